import { describe, expect, it } from 'vitest';
import { evaluatorsFor, quotaStatus, type QuotaTarget } from '../../../../main/controllers/manager/resourceQuotaUsage';
import type { ResourceQuotaObject } from '../../../../main/kube/quota/evaluators';
import type { KObject } from '../../../../main/kube/object';

const NOW = new Date('2026-01-01T00:00:00Z');
const pod = (name: string, cpu?: string, extra: Record<string, unknown> = {}): KObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns' }, spec: { containers: [{ name: 'c', resources: cpu ? { requests: { cpu }, limits: { cpu } } : {} }] }, ...extra }) as KObject;
const cm = (name: string): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' } }) as KObject;
const quota = (hard: Record<string, string>, status?: ResourceQuotaObject['status'], spec: Record<string, unknown> = {}): ResourceQuotaObject =>
  ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'ns' }, spec: { hard, ...spec }, status }) as ResourceQuotaObject;

const objects: Record<string, KObject[]> = {
  '/pods': [pod('a', '100m'), pod('b', '250m'), pod('done', '1', { status: { phase: 'Succeeded' } }), pod('going', '1', { metadata: { name: 'going', namespace: 'ns', deletionTimestamp: '2025-12-31T23:00:00Z', deletionGracePeriodSeconds: 30 } })],
  '/configmaps': [cm('x'), cm('y')],
  'apps/deployments': [cm('d1')],
};
const objectsOf = (t: QuotaTarget) => objects[`${t.group}/${t.resource}`] ?? [];

describe('quota status from the namespace objects', () => {
  const cases: { name: string; q: ResourceQuotaObject; want: Record<string, string>; dirty: boolean }[] = [
    {
      name: 'a new quota: hard copied, every name measured (0 when nothing uses it)',
      q: quota({ pods: '10', 'requests.cpu': '2', 'limits.memory': '1Gi', 'count/pods': '20', configmaps: '5', 'count/deployments.apps': '3', services: '4' }),
      want: { configmaps: '2', 'count/deployments.apps': '1', 'count/pods': '4', 'limits.memory': '0', pods: '2', 'requests.cpu': '350m', services: '0' },
      dirty: true,
    },
    { name: 'up to date: not dirty', q: quota({ pods: '10' }, { hard: { pods: '10' }, used: { pods: '2' } }), want: { pods: '2' }, dirty: false },
    { name: 'over-charged by admission: given back', q: quota({ pods: '10' }, { hard: { pods: '10' }, used: { pods: '3' } }), want: { pods: '2' }, dirty: true },
    { name: 'hard changed', q: quota({ pods: '5' }, { hard: { pods: '10' }, used: { pods: '2' } }), want: { pods: '2' }, dirty: true },
    { name: 'names dropped from hard leave used', q: quota({ pods: '5' }, { hard: { pods: '5', secrets: '1' }, used: { pods: '2', secrets: '0' } }), want: { pods: '2' }, dirty: true },
    { name: 'scoped: BestEffort counts pods without requests', q: quota({ pods: '5' }, undefined, { scopes: ['BestEffort'] }), want: { pods: '0' }, dirty: true },
    { name: 'scoped quota counts no configmaps', q: quota({ configmaps: '5' }, undefined, { scopes: ['NotTerminating'] }), want: { configmaps: '0' }, dirty: true },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { status, dirty } = await quotaStatus(c.q, objectsOf, NOW);
      expect(status.hard).toEqual(c.q.spec!.hard);
      expect(status.used).toEqual(c.want);
      expect(dirty).toBe(c.dirty);
    });
  }

  it('evaluators named by the hard list', () => {
    expect(evaluatorsFor(['pods', 'count/secrets', 'secrets', 'count/leases.coordination.k8s.io', 'bogus']).map((e) => `${e.group}/${e.resource}`)).toEqual(['/pods', '/secrets', 'coordination.k8s.io/leases']);
  });
});

import { describe, expect, it } from 'vitest';
import { checkQuotaRequest, resourceQuotaPlugin } from '../../../../main/apiserver/admission/resourceQuota';
import { evaluatorFor, podEvaluator, serviceEvaluator, type ResourceQuotaObject } from '../../../../main/kube/quota/evaluators';
import { formatList } from '../../../../main/kube/quota/quantity';
import type { KObject } from '../../../../main/kube/object';
import { StatusError } from '../../../../main/apiserver/api/status';
import { fakeEnv, podCreate } from './fakeEnv';

const NOW = new Date('2026-01-01T00:00:00Z');
const quota = (name: string, hard: Record<string, string>, used?: Record<string, string>, spec: Record<string, unknown> = {}): ResourceQuotaObject =>
  ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace: 'default', resourceVersion: '5' }, spec: { hard, ...spec }, status: { hard, used: used ?? Object.fromEntries(Object.keys(hard).map((k) => [k, '0'])) } }) as ResourceQuotaObject;
const pod = (name: string, containers: unknown[], extra: Record<string, unknown> = {}) => podCreate({ metadata: { name }, spec: { containers, ...extra } });
const c = (name: string, requests?: Record<string, string>, limits?: Record<string, string>) => ({ name, resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } });

describe('quota usage', () => {
  const cases: { name: string; obj: KObject; resource: string; want: Record<string, string> }[] = [
    {
      name: 'pod: counts and compute from requests and limits, init containers as max',
      resource: 'pods',
      obj: pod('p', [c('a', { cpu: '100m', memory: '64Mi' }, { cpu: '200m' }), c('b', { cpu: '300m' })], { initContainers: [c('i', { cpu: '1' })] }).object!,
      want: { 'count/pods': '1', cpu: '1', 'limits.cpu': '200m', memory: '64Mi', pods: '1', 'requests.cpu': '1', 'requests.memory': '64Mi' },
    },
    { name: 'terminal pod: only count/pods', resource: 'pods', obj: { ...pod('p', [c('a', { cpu: '1' })]).object!, status: { phase: 'Succeeded' } } as KObject, want: { 'count/pods': '1' } },
    {
      name: 'NodePort service',
      resource: 'services',
      obj: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { type: 'NodePort', ports: [{ port: 80 }, { port: 443 }] } } as KObject,
      want: { 'count/services': '1', services: '1', 'services.loadbalancers': '0', 'services.nodeports': '2' },
    },
    { name: 'configmap: count and legacy name', resource: 'configmaps', obj: { metadata: { name: 'x' } } as KObject, want: { 'count/configmaps': '1', configmaps: '1' } },
    { name: 'deployments.apps: count/deployments.apps', resource: 'deployments', obj: { metadata: { name: 'x' } } as KObject, want: { 'count/deployments.apps': '1' } },
  ];
  for (const t of cases) {
    it(t.name, () => {
      const ev = evaluatorFor(t.resource === 'deployments' ? 'apps' : '', t.resource);
      expect(formatList(ev.usage(t.obj, NOW))).toEqual(t.want);
    });
  }

  it('evaluators: pods and services by name, the rest generic', () => {
    expect(evaluatorFor('', 'pods')).toBe(podEvaluator);
    expect(evaluatorFor('', 'services')).toBe(serviceEvaluator);
    expect(evaluatorFor('', 'secrets').matchingResources(['secrets', 'pods', 'count/secrets'])).toEqual(['secrets', 'count/secrets']);
  });
});

describe('checkQuotaRequest', () => {
  const cases: { name: string; quotas: ResourceQuotaObject[]; attrs: ReturnType<typeof podCreate>; want: Record<string, Record<string, string>> | string }[] = [
    { name: 'charges pods', quotas: [quota('q', { pods: '2' }, { pods: '1' })], attrs: pod('p2', [c('a')]), want: { q: { pods: '2' } } },
    { name: 'refuses the third pod', quotas: [quota('q', { pods: '2' }, { pods: '2' })], attrs: pod('p3', [c('a')]), want: 'pods "p3" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2' },
    {
      name: 'names every exceeded resource',
      quotas: [quota('compute', { 'requests.cpu': '1', 'requests.memory': '1Gi', pods: '10' }, { 'requests.cpu': '900m', 'requests.memory': '1Gi', pods: '1' })],
      attrs: pod('big', [c('a', { cpu: '200m', memory: '1Mi' })]),
      want: 'pods "big" is forbidden: exceeded quota: compute, requested: requests.cpu=200m,requests.memory=1Mi, used: requests.cpu=900m,requests.memory=1Gi, limited: requests.cpu=1,requests.memory=1Gi',
    },
    { name: 'a cpu quota requires every container to state it', quotas: [quota('q', { 'limits.cpu': '2' })], attrs: pod('p', [c('nginx', { cpu: '1' }), c('side')]), want: 'pods "p" is forbidden: failed quota: q: must specify limits.cpu for: nginx,side' },
    { name: 'used missing for a tracked resource', quotas: [quota('q', { pods: '2' }, {})], attrs: pod('p', [c('a')]), want: 'pods "p" is forbidden: status unknown for quota: q, resources: pods' },
    { name: 'a quota without status.hard does not match yet', quotas: [{ ...quota('q', { pods: '0' }), status: {} }], attrs: pod('p', [c('a')]), want: {} },
    { name: 'BestEffort scope skips a pod with requests', quotas: [quota('be', { pods: '0' }, { pods: '0' }, { scopes: ['BestEffort'] })], attrs: pod('p', [c('a', { cpu: '1' })]), want: {} },
    { name: 'NotBestEffort scope charges it', quotas: [quota('nbe', { pods: '1' }, { pods: '0' }, { scopes: ['NotBestEffort'] })], attrs: pod('p', [c('a', { cpu: '1' })]), want: { nbe: { pods: '1' } } },
    { name: 'Terminating scope', quotas: [quota('t', { pods: '0' }, { pods: '0' }, { scopes: ['Terminating'] })], attrs: pod('p', [c('a')], { activeDeadlineSeconds: 60 }), want: 'pods "p" is forbidden: exceeded quota: t, requested: pods=1, used: pods=0, limited: pods=0' },
  ];
  for (const t of cases) {
    it(t.name, () => {
      const run = () => checkQuotaRequest(t.quotas, t.attrs, podEvaluator, NOW);
      if (typeof t.want === 'string') {
        let err: unknown;
        try {
          run();
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(StatusError);
        expect((err as StatusError).status).toMatchObject({ code: 403, reason: 'Forbidden', message: t.want });
      } else {
        expect(Object.fromEntries(run().map((ch) => [ch.quota.metadata.name, formatList(ch.used)]))).toEqual(t.want);
      }
    });
  }

  it('a service update charges only the growth in node ports', () => {
    const old = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', resourceVersion: '3' }, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } } as KObject;
    const now = { ...old, spec: { type: 'NodePort', ports: [{ port: 80 }] } } as KObject;
    const a = { ...pod('s', []), resource: 'services', kind: 'Service', operation: 'UPDATE' as const, name: 's', object: now, oldObject: old };
    const q = quota('q', { services: '1', 'services.nodeports': '1' }, { services: '1', 'services.nodeports': '0' });
    expect(formatList(checkQuotaRequest([q], a, serviceEvaluator, NOW)[0].used)).toEqual({ services: '1', 'services.nodeports': '1' });
  });
});

describe('ResourceQuota plugin', () => {
  it('charges status.used through storage; of two racing creates for the last slot one wins', async () => {
    const env = fakeEnv();
    env.put('resourcequotas', quota('q', { pods: '2' }, { pods: '1' }));
    const plugin = resourceQuotaPlugin(env);
    const results = await Promise.allSettled([plugin.validate!(pod('a', [c('x')])), plugin.validate!(pod('b', [c('x')]))]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((rejected.reason as Error).message).toMatch(/exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2$/);
    expect((env.read('resourcequotas', 'default', 'q') as ResourceQuotaObject).status!.used).toEqual({ pods: '2' });
  });

  it('a dry run checks but does not charge; other namespaces and subresources are untouched', async () => {
    const env = fakeEnv();
    env.put('resourcequotas', quota('q', { pods: '2' }, { pods: '0' }));
    const plugin = resourceQuotaPlugin(env);
    await plugin.validate!({ ...pod('a', [c('x')]), dryRun: true });
    expect(plugin.handles!({ ...pod('a', [c('x')]), subresource: 'status' })).toBe(false);
    await plugin.validate!(podCreate({ metadata: { name: 'o' }, spec: { containers: [] } }, 'other'));
    expect(env.updates).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { unusableReason, type PlaneFacts } from '../../../main/controlplane/readiness';
import type { ClusterRole } from '../../../main/controllers/manager/clusterRoleAggregation';

const NOW = Date.parse('2026-12-02T01:00:00Z');
const lease = (name: string, holder: string | undefined, renewedAgoS: number, durationS = 15) => ({
  metadata: { name },
  spec: { holderIdentity: holder, leaseDurationSeconds: durationS, renewTime: new Date(NOW - renewedAgoS * 1000).toISOString() },
});
const node = (name: string, ready: 'True' | 'False' | 'Unknown') => ({ metadata: { name }, status: { conditions: [{ type: 'Ready', status: ready }] } });
const rule = (verb: string) => ({ apiGroups: ['apps'], resources: ['deployments'], verbs: [verb] });
const aggregate = (name: string, rules: unknown[] | undefined): ClusterRole => ({
  metadata: { name },
  aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [`rbac.authorization.k8s.io/aggregate-to-${name}`]: 'true' } }] },
  rules,
});
const source = (name: string, to: string, rules: unknown[]): ClusterRole => ({ metadata: { name, labels: { [`rbac.authorization.k8s.io/aggregate-to-${to}`]: 'true' } }, rules });

function usable(): PlaneFacts {
  return {
    leases: [lease('kube-scheduler', 'host_a', 1), lease('kube-controller-manager', 'host_b', 3)],
    clusterRoles: [
      aggregate('admin', [rule('delete')]),
      aggregate('edit', [rule('create')]),
      aggregate('view', [rule('get')]),
      source('system:aggregate-to-admin', 'admin', [rule('delete')]),
      source('system:aggregate-to-edit', 'edit', [rule('create')]),
      source('system:aggregate-to-view', 'view', [rule('get')]),
    ],
    nodes: [node('node-1', 'True'), node('node-2', 'True'), node('node-3', 'True')],
  };
}

describe('unusableReason', () => {
  const want = { nodes: 3, nowMs: NOW };
  const cases: { name: string; change: (f: PlaneFacts) => void; want: string | undefined }[] = [
    { name: 'everything in place', change: () => {}, want: undefined },
    { name: 'no scheduler lease yet', change: (f) => f.leases.splice(0, 1), want: 'no holder of the Lease kube-system/kube-scheduler' },
    { name: 'a released lease (holder cleared)', change: (f) => (f.leases[1] = lease('kube-controller-manager', '', 0, 1)), want: 'no holder of the Lease kube-system/kube-controller-manager' },
    { name: 'a lease its holder stopped renewing', change: (f) => (f.leases[0] = lease('kube-scheduler', 'host_dead', 16)), want: 'the Lease kube-system/kube-scheduler held by host_dead has expired' },
    { name: 'edit created without rules (aggregation not run yet)', change: (f) => (f.clusterRoles[1] = aggregate('edit', undefined)), want: 'the ClusterRole edit is not aggregated yet' },
    {
      name: 'admin aggregated before a new source role was folded in',
      change: (f) => f.clusterRoles.push(source('extra-admin', 'admin', [rule('patch')])),
      want: 'the ClusterRole admin is not aggregated yet',
    },
    { name: 'view missing', change: (f) => f.clusterRoles.splice(2, 1), want: 'no ClusterRole view' },
    { name: 'a node not Ready', change: (f) => (f.nodes[2] = node('node-3', 'Unknown')), want: '2/3 nodes Ready' },
    { name: 'a node not registered yet', change: (f) => f.nodes.pop(), want: '2/3 nodes Ready' },
    { name: 'stale extra nodes beside every wanted one Ready', change: (f) => f.nodes.push(node('node-9', 'Unknown')), want: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const f = usable();
      c.change(f);
      expect(unusableReason(f, want)).toBe(c.want);
    });
  }

  it('wants no node when the controllers run none', () => {
    expect(unusableReason({ ...usable(), nodes: [] }, { nodes: 0, nowMs: NOW })).toBeUndefined();
  });
});

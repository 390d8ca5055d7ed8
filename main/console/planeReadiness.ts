// When a control plane with controllers is usable, beyond the API server's
// /readyz: the scheduler and the controller manager hold their Leases in
// kube-system (and renewed them within their duration), the bootstrap
// ClusterRoles admin, edit and view carry the rules the clusterrole-aggregation
// controller gives them (kube-apiserver creates them with an aggregationRule
// and no rules; /readyz says nothing about that), and every simulated node is
// Ready. A script started at the ready line can bind `edit` and list Ready
// nodes at once.
//
// unusableReason is pure (the facts and the time come in); probePlane reads
// the facts through a client of the API server (the admin's, from DIR/kubeconfig).

import { isDeepStrictEqual } from 'node:util';
import type { RestClient } from '../controllers/client/rest';
import { aggregatedRules, type ClusterRole } from '../controllers/manager/clusterRoleAggregation';

export const ELECTED_COMPONENTS = ['kube-scheduler', 'kube-controller-manager'] as const;
export const AGGREGATED_ROLES = ['admin', 'edit', 'view'] as const;

export interface LeaseFacts {
  metadata: { name?: string };
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string };
}

export interface NodeFacts {
  metadata: { name?: string };
  status?: { conditions?: { type: string; status: string }[] };
}

export interface PlaneFacts {
  /** The Leases in kube-system. */
  leases: LeaseFacts[];
  clusterRoles: ClusterRole[];
  nodes: NodeFacts[];
}

/** Undefined when the plane is usable; otherwise what it still waits for. */
export function unusableReason(facts: PlaneFacts, want: { nodes: number; nowMs: number }): string | undefined {
  for (const name of ELECTED_COMPONENTS) {
    const lease = facts.leases.find((l) => l.metadata.name === name);
    const holder = lease?.spec?.holderIdentity;
    if (!holder) return `no holder of the Lease kube-system/${name}`;
    const renewed = Date.parse(lease.spec?.renewTime ?? '');
    const durationMs = (lease.spec?.leaseDurationSeconds ?? 0) * 1000;
    if (!(renewed + durationMs > want.nowMs)) return `the Lease kube-system/${name} held by ${holder} has expired`;
  }
  for (const name of AGGREGATED_ROLES) {
    const role = facts.clusterRoles.find((r) => r.metadata.name === name);
    if (!role) return `no ClusterRole ${name}`;
    const rules = role.rules ?? [];
    if (rules.length === 0 || !isDeepStrictEqual(rules, aggregatedRules(role, facts.clusterRoles))) return `the ClusterRole ${name} is not aggregated yet`;
  }
  const ready = facts.nodes.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
  if (ready < want.nodes) return `${ready}/${want.nodes} nodes Ready`;
  return undefined;
}

/** Reads the facts unusableReason needs (three LISTs). */
export async function probePlane(rest: RestClient, timeoutMs = 2_000): Promise<PlaneFacts> {
  const list = <T>(path: string) => rest.request<{ items: T[] }>('GET', path, { signal: AbortSignal.timeout(timeoutMs) }).then((l) => l.items);
  const [leases, clusterRoles, nodes] = await Promise.all([
    list<LeaseFacts>('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases'),
    list<ClusterRole>('/apis/rbac.authorization.k8s.io/v1/clusterroles'),
    list<NodeFacts>('/api/v1/nodes'),
  ]);
  return { leases, clusterRoles, nodes };
}

// When a control plane with controllers is usable, beyond the API server's
// /readyz: the scheduler and the controller manager hold their Leases in
// kube-system (and renewed them within their duration), the bootstrap
// ClusterRoles admin, edit and view carry the rules the clusterrole-aggregation
// controller gives them (kube-apiserver creates them with an aggregationRule
// and no rules; /readyz says nothing about that), and every simulated node is
// Ready. A script started at the ready line can bind `edit` and list Ready
// nodes at once.
//
// unusableReason is pure (the facts and the time come in); probeUsable reads
// the facts through a client of the API server (the admin's, from
// DIR/kubeconfig). This module loads the Kubernetes client: the supervisor
// imports it only when it waits for the controllers, not at start.

import { isDeepStrictEqual } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { RestClient } from '../client/kube/rest';
import { aggregatedRules, type ClusterRole } from '../kube/clusterRoleAggregation';

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
  const ready = facts.nodes.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
  if (ready < want.nodes) return `${ready}/${want.nodes} nodes Ready`;
  for (const name of AGGREGATED_ROLES) {
    const role = facts.clusterRoles.find((r) => r.metadata.name === name);
    if (!role) return `no ClusterRole ${name}`;
    const rules = role.rules ?? [];
    if (rules.length === 0 || !isDeepStrictEqual(rules, aggregatedRules(role, facts.clusterRoles))) return `the ClusterRole ${name} is not aggregated yet`;
  }
  return undefined;
}

/**
 * Reads the facts and judges them: the Leases and the nodes first (two small
 * LISTs); the ClusterRoles (the largest list) only once those pass, so that
 * polling costs the API server little while the controllers sync.
 */
export async function probeUsable(rest: RestClient, want: { nodes: number }, timeoutMs = 2_000): Promise<string | undefined> {
  const list = <T>(path: string) => rest.request<{ items: T[] }>('GET', path, { signal: AbortSignal.timeout(timeoutMs) }).then((l) => l.items);
  const [leases, nodes] = await Promise.all([list<LeaseFacts>('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases'), list<NodeFacts>('/api/v1/nodes')]);
  const first = unusableReason({ leases, nodes, clusterRoles: [] }, { ...want, nowMs: Date.now() });
  if (first !== undefined && !first.includes('ClusterRole')) return first;
  const clusterRoles = await list<ClusterRole>('/apis/rbac.authorization.k8s.io/v1/clusterroles');
  return unusableReason({ leases, nodes, clusterRoles }, { ...want, nowMs: Date.now() });
}

/** A client of the API server as the kubeconfig's user, for probeUsable; close() it after. */
export function kubeconfigClient(kubeconfig: string, userAgent: string): Promise<RestClient> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return RestClient.fromKubeConfig(kc, userAgent);
}

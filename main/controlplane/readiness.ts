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
// DIR/kubeconfig). The kubeconfig is read here with the YAML parser, not
// client-node's KubeConfig: loading client-node costs a quarter second of CPU
// just when the controllers boot beside it, at the end of every start.

import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { RestClient } from '../client/kube/restClient';
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

interface Named<T> {
  name: string;
  [key: string]: T | string;
}

/**
 * A client of the API server as the kubeconfig's current user, for
 * probeUsable; close() it after. Takes what `up` writes (kubeconfigYaml):
 * the current context's cluster server and certificate-authority-data, its
 * user's client-certificate-data and client-key-data.
 */
export function kubeconfigClient(kubeconfig: string, userAgent: string): RestClient {
  const doc = parse(readFileSync(kubeconfig, 'utf8')) as {
    'current-context'?: string;
    contexts?: Named<{ cluster?: string; user?: string }>[];
    clusters?: Named<{ server?: string; 'certificate-authority-data'?: string }>[];
    users?: Named<{ 'client-certificate-data'?: string; 'client-key-data'?: string }>[];
  };
  const pick = <T>(list: Named<T>[] | undefined, name: string | undefined, field: string): T => {
    const found = list?.find((x) => x.name === name)?.[field];
    if (found === undefined || typeof found === 'string') throw new Error(`${kubeconfig}: no ${field} named ${name ?? '(none)'}`);
    return found;
  };
  const context = pick(doc.contexts, doc['current-context'], 'context');
  const cluster = pick(doc.clusters, context.cluster, 'cluster');
  const user = pick(doc.users, context.user, 'user');
  const data = (b64: string | undefined, what: string) => {
    if (!b64) throw new Error(`${kubeconfig}: no ${what}`);
    return Buffer.from(b64, 'base64');
  };
  if (!cluster.server) throw new Error(`${kubeconfig}: no server`);
  return RestClient.fromTls(
    cluster.server,
    {
      ca: data(cluster['certificate-authority-data'], 'certificate-authority-data'),
      cert: data(user['client-certificate-data'], 'client-certificate-data'),
      key: data(user['client-key-data'], 'client-key-data'),
    },
    userAgent,
  );
}

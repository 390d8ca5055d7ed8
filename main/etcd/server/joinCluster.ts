// Joining an existing cluster (--initial-cluster-state existing, no data
// dir yet; etcd: etcdserver/server.go NewServer, case !haveWAL &&
// !cfg.NewCluster):
//   1. ask the other members' peer URLs, in turn, for the cluster
//      (Peer.Members, transport/clusterMembers.ts; etcd: GET /members);
//   2. match every existing member to one --initial-cluster entry by peer
//      URLs (etcd's ValidateClusterAndAssignIDs): the counts must agree and
//      each must match, so the operator passes exactly what `etcdctl member
//      add` printed, this member included;
//   3. this member's id is the existing member whose URLs are its own (the
//      id MemberAdd assigned), the cluster id is the existing cluster's. The
//      WAL is created with them and Raft starts with no bootstrap entries:
//      the leader brings the log (or a snapshot) over.

import type { MemberId } from '../raft/types';
import { fetchClusterView, type ClusterMember, type ClusterView } from './transport/clusterMembers';
import type { PeerTlsOptions } from './transport/index';
import type { MemberConfig } from './memberConfig';

/** How long one peer URL gets to answer (etcd: the peer round-tripper's timeout). */
const FETCH_TIMEOUT_MS = 2000;

export interface JoinedCluster {
  id: MemberId;
  clusterId: bigint;
  /** The existing members (this one included): the transport talks to them from the start. */
  members: ClusterMember[];
}

/** etcd's getRemotePeerURLs: every other --initial-cluster member's peer URLs, sorted. */
export function remotePeerUrls(config: MemberConfig): string[] {
  return [...config.initialCluster]
    .filter(([name]) => name !== config.name)
    .flatMap(([, urls]) => urls)
    .sort();
}

function sameUrls(a: string[], b: string[]): boolean {
  const x = [...a].sort();
  const y = [...b].sort();
  return x.length === y.length && x.every((u, i) => u === y[i]);
}

function describe(v: ClusterView): string {
  const ms = v.members.map((m) => `&{ID:${m.id.toString(16)} RaftAttributes:{PeerURLs:[${m.peerUrls.join(' ')}] IsLearner:${m.isLearner}} Attributes:{Name:${m.name} ClientURLs:[${m.clientUrls.join(' ')}]}}`);
  return `{ClusterID:${v.clusterId.toString(16)} Members:[${ms.join(' ')}] RemovedMemberIDs:[]}`;
}

/** etcd's ValidateClusterAndAssignIDs, then this member's id; throws etcd's error text. */
export function assignIds(config: MemberConfig, existing: ClusterView): JoinedCluster {
  if (!config.initialCluster.has(config.name)) {
    throw new Error(`couldn't find local name "${config.name}" in the initial cluster configuration`);
  }
  const local = [...config.initialCluster].map(([name, peerUrls]) => ({ name, peerUrls }));
  const fail = (why: string) => new Error(`error validating peerURLs ${describe(existing)}: ${why}`);
  if (local.length !== existing.members.length) throw fail('member count is unequal');
  let id: MemberId | undefined;
  for (const em of existing.members) {
    const match = local.find((lm) => sameUrls(lm.peerUrls, em.peerUrls));
    if (!match) {
      throw fail(`PeerURLs: no match found for existing member (${em.id.toString(16)}, [${em.peerUrls.join(' ')}]), last resolver error (<nil>)`);
    }
    if (match.name === config.name) id = em.id;
  }
  if (id === undefined) throw fail(`PeerURLs: no match found for local member ${config.name}`);
  return { id, clusterId: existing.clusterId, members: existing.members };
}

/** Steps 1–3 above. */
export async function joinExistingCluster(config: MemberConfig, tls?: PeerTlsOptions): Promise<JoinedCluster> {
  const urls = remotePeerUrls(config);
  let lastError = '';
  for (const url of urls) {
    try {
      return assignIds(config, await fetchClusterView(url, FETCH_TIMEOUT_MS, tls));
    } catch (e) {
      const msg = (e as Error).message;
      if (msg.startsWith('error validating peerURLs') || msg.startsWith("couldn't find local name")) throw e;
      lastError = msg;
    }
  }
  throw new Error(
    `cannot fetch cluster info from peer urls: could not retrieve cluster information from the given URLs${lastError ? ` (${lastError})` : ''}`,
  );
}

// `snapshot restore`: a data dir for a NEW logical cluster holding a snapshot
// file's keys (etcd 3.4 clientv3/snapshot/v3_snapshot.go Restore).
//
// As etcd does, the new members' ids and the cluster id come from the flags
// (--initial-cluster, --initial-cluster-token), never from the file, so the
// restored cluster cannot talk to the old one. The data dir is what a
// restarting member reads (server/dataDir.ts restart):
// - member/wal: metadata {this member's id, the new cluster id}, one
//   ConfChange AddNode entry per member at indexes 1..N (term 1), the hard
//   state {term 1, vote the first member, commit N}, and a snapshot marker at
//   (N, 1);
// - member/snap: a Raft snapshot at index N, term 1, confState voters = the
//   new members, whose data is the file's state-machine data with the
//   consistent index set to N and the membership replaced by the new members.
// Starting `pilothouse etcd` on each restored dir (same flags) then forms the
// cluster, with every member at the same state. With etcdutl 3.5's
// --bump-revision/--mark-compacted the store's revision is moved forward and
// compacted first (revisionBump.ts).

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeConfChange } from '../raft/confChangeCodec';
import { ConfChangeType, EntryType, type Entry, type Snapshot } from '../raft/types';
import { encodeWalMetadata, makePrivateDataDir } from '../server/dataDir';
import { recordDataFormat } from '../server/dataFormat';
import { computeClusterId, computeMemberId } from '../server/ids';
import { encodeMemberContext, Membership } from '../server/membership';
import { encodeSnapshotData } from '../server/snapshotData';
import { Snapshotter, Wal } from '../wal/index';
import { bumpStoreRevision, checkRevisionBump } from './revisionBump';
import { readSnapshotState, type SnapshotState } from './snapshotState';

export interface RestoreOptions {
  snapshotPath: string;
  dataDir: string;
  name: string;
  /** "n1=http://a:2380,n2=http://b:2380" */
  initialCluster: string;
  initialAdvertisePeerUrls: string[];
  initialClusterToken: string;
  skipHashCheck: boolean;
  /** etcdutl 3.5 --bump-revision (0 or absent: unchanged); needs markCompacted. */
  bumpRevision?: number;
  /** etcdutl 3.5 --mark-compacted. */
  markCompacted?: boolean;
}

export interface RestoredMember {
  memberId: bigint;
  clusterId: bigint;
  /** Raft index (= consistent index) of the restored snapshot. */
  index: number;
  revision: number;
  /** The restored store's compacted revision (-1: never compacted). */
  compactRevision: number;
}

/** name → peer URLs, in flag order (etcd types.NewURLsMap). */
export function parseInitialCluster(s: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of s.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`invalid --initial-cluster entry "${part}"`);
    const name = part.slice(0, eq);
    out.set(name, [...(out.get(name) ?? []), part.slice(eq + 1)]);
  }
  return out;
}

export async function restoreSnapshot(o: RestoreOptions): Promise<RestoredMember> {
  const cluster = parseInitialCluster(o.initialCluster);
  const own = cluster.get(o.name);
  if (own === undefined) throw new Error(`couldn't find local name "${o.name}" in the initial cluster configuration`);
  const sameUrls = [...own].sort().join(',') === [...o.initialAdvertisePeerUrls].sort().join(',');
  if (!sameUrls) {
    // etcd's ServerConfig.advertiseMatchesCluster wording
    throw new Error(
      `--initial-cluster has ${o.name}=${own.join(',')} but missing from --initial-advertise-peer-urls=${o.initialAdvertisePeerUrls.join(',')}`,
    );
  }
  if (existsSync(o.dataDir)) throw new Error(`data-dir "${o.dataDir}" exists`);
  const bump = { bumpRevision: o.bumpRevision ?? 0, markCompacted: o.markCompacted ?? false };
  checkRevisionBump(bump);

  const img = readRestoreState(o.snapshotPath, o.skipHashCheck);
  const members = [...cluster].map(([name, peerUrls]) => ({
    id: computeMemberId(peerUrls, o.initialClusterToken),
    name,
    peerUrls,
  }));
  const memberId = members.find((m) => m.name === o.name)!.id;
  const clusterId = computeClusterId(members.map((m) => m.id));
  const index = members.length;

  const membership = new Membership();
  const entries: Entry[] = members.map((m, i) => {
    const ctx = { id: m.id, name: m.name, peerUrls: m.peerUrls, isLearner: false };
    membership.add(ctx);
    const data = encodeConfChange({ type: ConfChangeType.AddNode, nodeId: m.id, context: encodeMemberContext(ctx) });
    return { term: 1, index: i + 1, type: EntryType.ConfChange, data };
  });
  const state = img.data;
  const store = bump.bumpRevision > 0 ? bumpStoreRevision(state.mvcc, bump) : { mvcc: state.mvcc, revision: img.revision, compactRevision: img.compactRevision };
  const data = encodeSnapshotData({ ...state, mvcc: store.mvcc, consistentIndex: index, membership: membership.toSnapshot(), alarms: [] }); // old members' alarms do not carry over
  const snap: Snapshot = {
    data,
    metadata: { index, term: 1, confState: { voters: members.map((m) => m.id), learners: [] } },
  };

  makePrivateDataDir(o.dataDir);
  recordDataFormat(o.dataDir);
  const wal = await Wal.create(join(o.dataDir, 'member', 'wal'), encodeWalMetadata(memberId, clusterId));
  try {
    await wal.save({ term: 1, vote: members[0]!.id, commit: index }, entries, true);
    await new Snapshotter(join(o.dataDir, 'member', 'snap')).save(snap);
    await wal.saveSnapshot({ index, term: 1 });
  } finally {
    await wal.close();
  }
  return { memberId, clusterId, index, revision: store.revision, compactRevision: store.compactRevision };
}

/** The state to restore, read from a snapshot file of either format (./snapshotState.ts). */
function readRestoreState(path: string, skipHashCheck: boolean): SnapshotState {
  return readSnapshotState(readFileSync(path), skipHashCheck);
}

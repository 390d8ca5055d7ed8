// Opening a member's data dir (etcd: etcdserver/server.go NewServer,
// startNode / restartNode):
// - no WAL: a new member of a new cluster. Ids come from the flags; the WAL
//   is created with them as metadata and Raft is bootstrapped with one
//   AddNode entry per initial-cluster member;
// - a WAL: a restart. Ids come from the WAL's metadata (flags that disagree
//   are ignored, as etcd ignores them), the newest snapshot is loaded, and
//   the WAL entries after it rebuild the Raft storage.
// - no WAL and --initial-cluster-state existing: a member added at runtime
//   joins (joinCluster.ts): ids from the cluster, no bootstrap entries.

import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryStorage } from '../raft/memoryStorage';
import type { Peer } from '../raft/config';
import type { MemberId, Snapshot } from '../raft/types';
import { Snapshotter, Wal, type SegmentReads } from '../wal/index';
import { checkDataFormat, recordDataFormat } from './dataFormat';
import { computeClusterId, computeMemberId } from './ids';
import { encodeMemberContext } from './membership';
import { joinExistingCluster } from './joinCluster';
import type { PeerTlsOptions } from './transport/index';
import type { MemberConfig } from './memberConfig';

export interface OpenedDataDir {
  id: MemberId;
  clusterId: bigint;
  wal: Wal;
  snapshotter: Snapshotter;
  storage: MemoryStorage;
  /** Set on restart when a snapshot file exists: the state to restore first. */
  snapshot?: Snapshot;
  /** Set for a brand-new cluster: what RawNode.bootstrap gets. */
  bootstrapPeers?: Peer[];
  /** Set when joining an existing cluster: its members, for the transport to reach from the start. */
  remotes?: { id: MemberId; peerUrls: string[] }[];
}

export function walDir(dataDir: string): string {
  return join(dataDir, 'member', 'wal');
}

export function snapDir(dataDir: string): string {
  return join(dataDir, 'member', 'snap');
}

/**
 * The data dir and its member/ dir, private to the owner (0700, etcd's
 * fileutil.PrivateDirMode: they hold every key, Secrets included); one that
 * exists with wider modes is narrowed. wal/ and snap/ are made by their
 * owners (Wal.create fsyncs member/ when it makes wal/), inside.
 */
export function makePrivateDataDir(dataDir: string): void {
  for (const dir of [dataDir, join(dataDir, 'member')]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }
}

export function encodeWalMetadata(id: MemberId, clusterId: bigint): Uint8Array {
  const b = Buffer.alloc(16);
  b.writeBigUInt64BE(id, 0);
  b.writeBigUInt64BE(clusterId, 8);
  return b;
}

function decodeWalMetadata(bytes: Uint8Array): { id: MemberId; clusterId: bigint } {
  if (bytes.length !== 16) throw new Error(`wal metadata: want 16 bytes, got ${bytes.length}`);
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { id: b.readBigUInt64BE(0), clusterId: b.readBigUInt64BE(8) };
}

/** The initial cluster's members with etcd's ids; throws etcd's error when --name is not among them. */
export function initialMembers(config: MemberConfig): { id: MemberId; name: string; peerUrls: string[] }[] {
  const members = [...config.initialCluster].map(([name, peerUrls]) => ({
    id: computeMemberId(peerUrls, config.initialClusterToken),
    name,
    peerUrls,
  }));
  if (!config.initialCluster.has(config.name)) {
    throw new Error(`couldn't find local name "${config.name}" in the initial cluster configuration`);
  }
  return members;
}

export async function openDataDir(config: MemberConfig, peerTls?: PeerTlsOptions): Promise<OpenedDataDir> {
  // Before anything touches the dir: a newer build's data is left as it is.
  checkDataFormat(config.dataDir);
  makePrivateDataDir(config.dataDir);
  recordDataFormat(config.dataDir);
  const wdir = walDir(config.dataDir);
  const snapshotter = new Snapshotter(snapDir(config.dataDir));
  if (Wal.exists(wdir)) return restart(wdir, snapshotter);
  if (config.initialClusterState === 'existing') {
    const joined = await joinExistingCluster(config, peerTls);
    const wal = await Wal.create(wdir, encodeWalMetadata(joined.id, joined.clusterId));
    return { id: joined.id, clusterId: joined.clusterId, wal, snapshotter, storage: new MemoryStorage(), remotes: joined.members };
  }
  const members = initialMembers(config);
  const id = members.find((m) => m.name === config.name)!.id;
  const clusterId = computeClusterId(members.map((m) => m.id));
  const wal = await Wal.create(wdir, encodeWalMetadata(id, clusterId));
  const bootstrapPeers = members.map((m) => ({
    id: m.id,
    context: encodeMemberContext({ id: m.id, name: m.name, peerUrls: m.peerUrls, isLearner: false }),
  }));
  return { id, clusterId, wal, snapshotter, storage: new MemoryStorage(), bootstrapPeers };
}

async function restart(wdir: string, snapshotter: Snapshotter): Promise<OpenedDataDir> {
  // Only a snapshot whose marker reached the WAL (etcd 3.5's fix): a file
  // saved just before a crash may have no marker, and opening the WAL there fails.
  const reads: SegmentReads = new Map();
  const snapshot = await snapshotter.loadNewestAvailable(Wal.validSnapshotRefs(wdir, reads));
  const ref = snapshot ? { index: snapshot.metadata.index, term: snapshot.metadata.term } : { index: 0, term: 0 };
  const { wal, metadata, hardState, entries } = await Wal.open(wdir, ref, { reads });
  const { id, clusterId } = decodeWalMetadata(metadata);
  const storage = new MemoryStorage();
  if (snapshot) storage.applySnapshot(snapshot);
  storage.setHardState(hardState);
  storage.append(entries);
  return { id, clusterId, wal, snapshotter, storage, snapshot };
}

// The keys a snapshot file holds: every live key at the snapshot's revision,
// with the fields etcd's mvccpb.KeyValue carries. This is what the backup
// tools check a snapshot against (counts per /registry resource, the drill's
// comparison with a restored cluster) without starting a member.
//
// Either format (bbolt, or the older PHSNAP1; ./snapshotState.ts).
// Deleted keys and older revisions of live keys are left out: they are what
// `etcdctl get "" --prefix` would not show at the snapshot's revision.

import { readSnapshotState } from './snapshotState';
import { decodeSnapshot } from '../mvcc/snapshotCodec';

export interface SnapshotKeyValue {
  key: Buffer;
  value: Buffer;
  createRevision: number;
  modRevision: number;
  version: number;
  lease: number;
}

export interface SnapshotContents {
  /** The MVCC revision of the snapshot. */
  revision: number;
  /** The last compacted revision; -1 when never compacted. */
  compactRevision: number;
  /** Live keys at `revision`, in key order. */
  kvs: SnapshotKeyValue[];
}

export interface ReadContentsOptions {
  /** Skip the sha256 trailer check, as `snapshot restore --skip-hash-check` does. */
  skipHashCheck?: boolean;
}

export function readSnapshotContents(file: Uint8Array, opts: ReadContentsOptions = {}): SnapshotContents {
  const state = decodeSnapshot(readSnapshotState(file, opts.skipHashCheck ?? false).data.mvcc);
  const kvs: SnapshotKeyValue[] = [];
  state.tree.forEach((ki) => {
    const r = ki.latest();
    if (r === undefined) return;
    kvs.push({
      key: Buffer.from(ki.bytes),
      value: Buffer.from(r.value),
      createRevision: r.create,
      modRevision: r.main,
      version: r.version,
      // a number keeps the result JSON-serialisable; ids above 2^53 lose their
      // low bits, which the backup tools can afford (they only ask whether a
      // key has a lease)
      lease: Number(r.lease),
    });
  });
  return { revision: state.currentRev, compactRevision: state.compactMainRev, kvs };
}

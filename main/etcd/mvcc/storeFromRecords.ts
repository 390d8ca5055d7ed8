// Rebuilds a store image from the rows of etcd's "key" bucket (a bbolt
// backend file), as etcd's kvstore.restore does: the records replayed in
// revision order into empty key indexes (a tombstone closes a generation),
// the current revision that of the last row unless the compacted revision is
// newer. The result is the store's own snapshot bytes (snapshotCodec.ts), so
// a member restores it exactly as it restores its own snapshots.

import { toKeyString } from './keyBytes';
import type { KeyIndex, RevisionRecord } from './keyIndex';
import { encodeSnapshot } from './snapshotCodec';
import { EMPTY, StoreState } from './storeState';
import type { LeaseId, Revision } from './types';

/** One row of the key bucket, decoded (a tombstone has version 0). */
export interface BackendRecord {
  key: Uint8Array;
  main: Revision;
  sub: number;
  create: Revision;
  version: number;
  value: Uint8Array;
  lease: LeaseId;
}

/** @param compactRev -1 when never compacted. */
export function storeStateFromRecords(records: Iterable<BackendRecord>, compactRev: Revision): StoreState {
  const s = new StoreState();
  let lastMain = 0;
  let lastSub = -1;
  for (const b of records) {
    if (b.main < lastMain || (b.main === lastMain && b.sub <= lastSub)) throw new Error(`key bucket: revision ${b.main}_${b.sub} out of order`);
    lastMain = b.main;
    lastSub = b.sub;
    const ki: KeyIndex = s.tree.getOrCreate(toKeyString(b.key), b.key);
    const tombstone = b.version === 0;
    const rec: RevisionRecord = {
      index: ki,
      main: b.main,
      sub: b.sub,
      create: tombstone ? 0 : b.create,
      version: b.version,
      value: tombstone ? EMPTY : b.value,
      lease: tombstone ? 0n : b.lease,
      keptAt: 0,
    };
    const live = ki.latest();
    if (tombstone) ki.appendTombstone(rec);
    else ki.appendPut(rec);
    s.appendRecord(rec, live);
  }
  s.compactMainRev = compactRev;
  s.currentRev = Math.max(1, lastMain, compactRev);
  return s;
}

/** The store snapshot bytes (MvccStore.restore input) for these rows. */
export function snapshotFromRecords(records: Iterable<BackendRecord>, compactRev: Revision): Uint8Array {
  return encodeSnapshot(storeStateFromRecords(records, compactRev));
}

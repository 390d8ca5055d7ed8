// A snapshot file of either format, read into the state a member restores:
// - a bbolt database (what the Snapshot stream sends now, and what etcd 3.4's
//   `etcdctl snapshot save` writes): read through ../backend/, the key
//   bucket's rows rebuilt into the store's image as etcd's kvstore.restore
//   rebuilds its index, a scheduled but unfinished compaction finished;
// - Pilothouse's older PHSNAP1 file (../snapshotFile.ts): its state-machine
//   data as it is.
// Both may carry etcd's sha256 trailer; it is checked unless skipHashCheck.

import { BoltDb } from '../bbolt/index';
import { readBackend } from '../backend/index';
import { encodeLeases } from '../lease/index';
import { encodeSnapshot } from '../mvcc/snapshotCodec';
import { storeStateFromRecords } from '../mvcc/storeFromRecords';
import { decodeSnapshotData, type SnapshotData } from '../server/snapshotData';
import { decodeSnapshotBody, verifiedBody } from '../snapshotFile';

const BOLT_MAGIC = 0xed0cdaed;

export type SnapshotFormat = 'bbolt' | 'phsnap1';

export interface SnapshotState {
  format: SnapshotFormat;
  /** The state-machine data (consistent index, membership, store image, leases). */
  data: SnapshotData;
  revision: number;
  compactRevision: number;
}

/** A bbolt file has bbolt's magic in its first meta page. */
export function isBoltFile(body: Uint8Array): boolean {
  if (body.length < 20) return false;
  return new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(16, true) === BOLT_MAGIC;
}

export function readSnapshotState(file: Uint8Array, skipHashCheck = false): SnapshotState {
  const body = verifiedBody(file, skipHashCheck);
  if (!isBoltFile(body)) {
    const img = decodeSnapshotBody(body);
    return { format: 'phsnap1', data: decodeSnapshotData(img.data), revision: img.revision, compactRevision: img.compactRevision };
  }
  const db = openChecked(body);
  const b = readBackend(db);
  const store = storeStateFromRecords(b.records, b.compactRevision);
  if (b.scheduledCompactRevision > b.compactRevision && b.scheduledCompactRevision <= store.currentRev) store.compact(b.scheduledCompactRevision);
  return {
    format: 'bbolt',
    data: {
      consistentIndex: b.consistentIndex,
      membership: {
        members: b.members.map((m) => ({ ...m, id: m.id.toString() })),
        removed: b.removed.map((id) => id.toString()),
      },
      mvcc: encodeSnapshot(store),
      leases: encodeLeases(b.leases),
      alarms: b.alarms.map((a) => ({ memberId: a.memberId.toString(), alarm: a.alarm })),
    },
    revision: store.currentRev,
    compactRevision: store.compactMainRev,
  };
}

/** Opens a bbolt body and refuses it unless tx.Check() finds nothing, with etcdctl's message. */
export function openChecked(body: Uint8Array): BoltDb {
  const db = BoltDb.open(body);
  const errors = db.check();
  if (errors.length > 0) {
    throw new Error(`snapshot file integrity check failed. ${errors.length} errors found.\n${errors.join('\n')}`);
  }
  return db;
}

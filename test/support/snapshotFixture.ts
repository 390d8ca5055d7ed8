// Snapshot files made in-process from a real MVCC store, so the backup code
// reads exactly what a member streams (header, state-machine data, trailer).

import { MvccStore } from '../../main/etcd/mvcc/index';
import { Membership } from '../../main/etcd/server/membership';
import { encodeSnapshotData } from '../../main/etcd/server/snapshotData';
import { encodeSnapshotFile } from '../../main/etcd/snapshotFile';

export type Op = { put: string; value?: string } | { del: string };

export function snapshotFileOf(ops: Op[]): Buffer {
  const store = new MvccStore();
  for (const op of ops) {
    if ('put' in op) store.put({ key: Buffer.from(op.put), value: Buffer.from(op.value ?? 'v'), lease: 0n, prevKv: false, ignoreValue: false, ignoreLease: false });
    else store.deleteRange({ key: Buffer.from(op.del), rangeEnd: Buffer.alloc(0), prevKv: false });
  }
  const data = encodeSnapshotData({ consistentIndex: 9, membership: new Membership().toSnapshot(), mvcc: store.snapshot() });
  return encodeSnapshotFile({
    revision: store.currentRevision,
    compactRevision: store.compactRevision,
    keyCount: store.indexedKeys,
    storeHash: store.hash(),
    clusterId: 1n,
    memberId: 2n,
    consistentIndex: 9,
    data,
  });
}

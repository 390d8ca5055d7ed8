// A snapshot of a store restored with --bump-revision N --mark-compacted and
// given no write since: its key bucket ends at the old revision, so the bumped
// revision lives only in meta's compaction keys. Read back, the store must be
// at the bumped revision (etcd 3.4's kvstore.restore: currentRev is raised to
// compactMainRev), as must `snapshot status`'s REVISION when etcd would say so.

import { describe, expect, it } from 'vitest';
import { BoltDb } from '../../../../main/etcd/bbolt/index';
import { readBackend } from '../../../../main/etcd/backend/index';
import { encodeInternalRequest, type InternalRequest } from '../../../../main/etcd/server/internalRequest';
import { decodeSnapshotData, encodeSnapshotData } from '../../../../main/etcd/server/snapshotData';
import { captureSnapshotBody } from '../../../../main/etcd/server/snapshotCapture';
import { StateMachine } from '../../../../main/etcd/server/stateMachine';
import { bumpStoreRevision } from '../../../../main/etcd/snapshot/revisionBump';
import { readSnapshotState } from '../../../../main/etcd/snapshot/snapshotState';
import { sha256 } from '../../../../main/etcd/snapshotFile';
import { MvccStore } from '../../../../main/etcd/mvcc/index';

const enc = (s: string) => new TextEncoder().encode(s);
const put = (key: string, value: string) => ({ put: { key: enc(key), value: enc(value), lease: 0n, prevKv: false, ignoreValue: false, ignoreLease: false } });

function bumpedMachine(): StateMachine {
  const sm = new StateMachine();
  const reqs: Omit<InternalRequest, 'id'>[] = [put('a', '1'), put('b', '2')];
  for (const [i, r] of reqs.entries()) sm.applyNormal(sm.consistentIndex + 1, encodeInternalRequest({ id: BigInt(i + 1), ...r } as InternalRequest));
  expect(sm.store.currentRevision).toBe(3);
  const data = decodeSnapshotData(sm.snapshotData());
  const bumped = bumpStoreRevision(data.mvcc, { bumpRevision: 100, markCompacted: true });
  const out = new StateMachine();
  out.restore(encodeSnapshotData({ ...data, mvcc: bumped.mvcc }));
  return out;
}

describe('a snapshot of a bumped store with no write since', () => {
  it('is at the bumped revision when read back', () => {
    const sm = bumpedMachine();
    expect(sm.store.currentRevision).toBe(103);
    const body = Buffer.concat([...captureSnapshotBody(sm).chunks(32 * 1024)]);
    const b = readBackend(BoltDb.open(body));
    expect(b.compactRevision).toBe(103);
    expect(b.scheduledCompactRevision).toBe(103);
    const st = readSnapshotState(Buffer.concat([body, sha256(body)]));
    expect(st.revision).toBe(103);
    expect(MvccStore.restore(st.data.mvcc).currentRevision).toBe(103);
  });
});

// A member's snapshot body at its current applied index (the Snapshot RPC).
// The state machine only changes inside the apply loop's synchronous steps,
// so reading it in one synchronous call is a consistent point-in-time image.

import { encodeSnapshotBody } from '../snapshotFile';
import type { StateMachine } from './stateMachine';

export function captureSnapshotBody(sm: StateMachine, clusterId: bigint, memberId: bigint): Buffer {
  const { store } = sm;
  return encodeSnapshotBody({
    revision: store.currentRevision,
    compactRevision: store.compactRevision,
    keyCount: store.indexedKeys,
    storeHash: store.hash(),
    clusterId,
    memberId,
    consistentIndex: sm.consistentIndex,
    data: sm.snapshotData(),
  });
}

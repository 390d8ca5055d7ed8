// A member's snapshot at its current applied index (the Snapshot RPC): the
// bbolt file etcd 3.4 would hold for the same state (../backend/), so that
// etcdctl snapshot status/restore and etcd itself read it. The state machine
// only changes inside the apply loop's synchronous steps, so planning it in
// one synchronous call fixes a consistent point-in-time image; its pages are
// written later, as they are sent, from records that never change.

import { planBackend } from '../backend/index';
import type { SnapshotBody } from '../api/etcdServer';
import type { StateMachine } from './stateMachine';

export function captureSnapshotBody(sm: StateMachine): SnapshotBody {
  const { store } = sm;
  const membership = sm.membership.toSnapshot();
  return planBackend({
    consistentIndex: sm.consistentIndex,
    compactRevision: store.compactRevision,
    records: store.records(),
    leases: sm.lessor.toRecords(),
    members: membership.members.map((m) => ({ ...m, id: BigInt(m.id) })),
    removed: membership.removed.map((id) => BigInt(id)),
    alarms: sm.alarms.toSnapshot().map((a) => ({ memberId: BigInt(a.memberId), alarm: a.alarm })),
  });
}

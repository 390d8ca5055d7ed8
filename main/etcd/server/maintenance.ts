// The member's Maintenance calls (etcd v3rpc/maintenance.go and the
// EtcdServer methods behind it): Status, Hash, HashKV, Snapshot, Defragment
// and MoveLeader are local, no Raft; Alarm goes through Raft so that every
// member holds the same alarms. The member (member.ts) answers them through
// this object.

import { Errors } from '../errors';
import type { AlarmMember, AlarmRequest, ResponseHeader, SnapshotBody, StatusInfo, WithHeader } from '../api/etcdServer';
import type { MemberId } from '../raft/types';
import { formatAlarm } from './alarms';
import type { DbSpace } from './dbSpace';
import type { RequestBody } from './proposals';
import type { RaftLoop } from './raftLoop';
import { captureSnapshotBody } from './snapshotCapture';
import type { StateMachine } from './stateMachine';

/** What the Maintenance calls need from the member. */
export interface MaintenanceDeps {
  id: MemberId;
  clusterId: bigint;
  loop: RaftLoop;
  sm: StateMachine;
  space: DbSpace;
  /** The Raft term, as the member last saw it in a hard state. */
  term(): number;
  header(revision: number): ResponseHeader;
  propose(body: RequestBody): Promise<unknown>;
  isStopped(): boolean;
  /** etcd ReqTimeout: how long MoveLeader waits for the target to lead. */
  requestTimeoutMs: number;
  /** MoveLeader polls once per heartbeat. */
  heartbeatMs: number;
}

import { SERVER_VERSION } from '../api/etcdVersion';

export { SERVER_VERSION };

export class Maintenance {
  constructor(private readonly d: MaintenanceDeps) {}

  async status(): Promise<WithHeader<StatusInfo>> {
    const { loop, sm, space } = this.d;
    const lead = loop.lead;
    const sizes = space.sizes();
    const self = sm.membership.get(this.d.id);
    return {
      header: this.d.header(sm.store.currentRevision),
      result: {
        version: SERVER_VERSION,
        dbSize: sizes.dbSize,
        dbSizeInUse: sizes.dbSizeInUse,
        leader: lead,
        raftIndex: loop.committed,
        raftTerm: this.d.term(),
        raftAppliedIndex: loop.applied,
        errors: [...(lead === 0n ? [Errors.noLeader().message] : []), ...sm.alarms.get().map(formatAlarm)],
        isLearner: self?.isLearner ?? false,
      },
    };
  }

  async hash(): Promise<WithHeader<number>> {
    const { store } = this.d.sm;
    return { header: this.d.header(store.currentRevision), result: store.hash() };
  }

  async hashKV(revision: number): Promise<WithHeader<{ hash: number; compactRevision: number }>> {
    const r = this.d.sm.store.hashKV(revision);
    return { header: this.d.header(r.revision), result: { hash: r.hash, compactRevision: r.compactRevision } };
  }

  async snapshotBody(): Promise<SnapshotBody> {
    if (this.d.isStopped()) throw Errors.stopped();
    return captureSnapshotBody(this.d.sm);
  }

  async defragment(): Promise<WithHeader<void>> {
    this.d.space.defragment();
    return { header: this.d.header(this.d.sm.store.currentRevision), result: undefined };
  }

  /** etcd's MoveLeader: leader only; the target must be a voting member; polled every heartbeat until it leads. */
  async moveLeader(target: MemberId): Promise<WithHeader<void>> {
    const { loop, sm } = this.d;
    if (!loop.isLeader) throw Errors.notLeader();
    const m = sm.membership.get(target);
    if (m === undefined || m.isLearner) throw Errors.badLeaderTransferee();
    loop.transferLeaderTo(target);
    const deadline = Date.now() + this.d.requestTimeoutMs;
    while (loop.lead !== target) {
      if (this.d.isStopped()) throw Errors.stopped();
      if (Date.now() >= deadline) throw Errors.timeoutLeaderTransfer();
      await new Promise((r) => setTimeout(r, this.d.heartbeatMs));
    }
    return { header: this.d.header(sm.store.currentRevision), result: undefined };
  }

  async alarm(req: AlarmRequest): Promise<WithHeader<AlarmMember[]>> {
    const result = (await this.d.propose({ alarm: req })) as AlarmMember[];
    return { header: this.d.header(this.d.sm.store.currentRevision), result };
  }
}

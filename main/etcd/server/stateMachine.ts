// What Raft replicates into: the MVCC store, the membership, and the
// consistent index (the last entry applied to them). Applying is idempotent
// through the consistent index, as in etcd (etcdserver/server.go
// applyEntryNormal): an entry at or below it is already in the state and is
// skipped. The three are snapshotted and restored together.

import { applyLeaseGrant, applyLeaseRevoke, decodeLeases, encodeLeases, Lessor } from '../lease/index';
import { MvccStore } from '../mvcc/index';
import { AlarmStore, applyAlarm, rejectWhenCapped } from './alarms';
import type { Index, MemberId } from '../raft/types';
import { decodeInternalRequest, type InternalRequest } from './internalRequest';
import { Membership } from './membership';
import { decodeSnapshotData, encodeSnapshotData } from './snapshotData';

/** The outcome of one applied request, for the proposer's waiter. */
export type ApplyOutcome = { id: bigint; value: unknown } | { id: bigint; error: Error };

export class StateMachine {
  store = new MvccStore();
  membership = new Membership();
  consistentIndex: Index = 0;
  /** Active alarms (./alarms.ts); NOSPACE caps what the apply accepts. */
  alarms = new AlarmStore();
  /** Run after restore() replaced the store (the watchable store re-attaches). */
  readonly restoreListeners: (() => void)[] = [];
  /** Leases (../lease): granted and revoked through Raft; the store attaches keys to them. */
  lessor: Lessor;
  /**
   * Called when the leader's empty entry of a new term applies (etcd then
   * promotes the lessor: the leader has applied everything of earlier terms).
   */
  onTermEntry?: () => void;

  /** @param minLeaseTtl seconds (etcd: ceil(1.5 election timeouts)), default 2. */
  constructor(private readonly minLeaseTtl = 2) {
    this.lessor = new Lessor(minLeaseTtl);
    this.store.leases = this.lessor.hooks;
  }

  /**
   * Applies one Normal entry. Returns the proposer's outcome, or undefined for
   * an entry with no request (a new leader's empty entry) or one already applied.
   * MVCC errors (compacted, future revision, key not found…) are outcomes, not
   * failures: every member gets the same error and the state is unchanged.
   */
  applyNormal(index: Index, data: Uint8Array): ApplyOutcome | undefined {
    if (index <= this.consistentIndex) return undefined;
    this.consistentIndex = index;
    if (data.length === 0) {
      this.onTermEntry?.();
      return undefined;
    }
    const req = decodeInternalRequest(data);
    try {
      return { id: req.id, value: this.execute(req) };
    } catch (err) {
      return { id: req.id, error: err instanceof Error ? err : new Error(String(err)) };
    }
  }

  /** Marks a ConfChange entry applied; false when it already was. */
  markApplied(index: Index): boolean {
    if (index <= this.consistentIndex) return false;
    this.consistentIndex = index;
    return true;
  }

  snapshotData(): Uint8Array {
    return encodeSnapshotData({
      consistentIndex: this.consistentIndex,
      membership: this.membership.toSnapshot(),
      alarms: this.alarms.toSnapshot(),
      mvcc: this.store.snapshot(),
      leases: encodeLeases(this.lessor.toRecords()),
    });
  }

  restore(data: Uint8Array): void {
    const s = decodeSnapshotData(data);
    this.store = MvccStore.restore(s.mvcc);
    this.lessor = Lessor.restore(this.minLeaseTtl, decodeLeases(s.leases), (visit) => this.store.forEachLeasedKey(visit));
    this.store.leases = this.lessor.hooks;
    this.membership = Membership.fromSnapshot(s.membership);
    this.alarms = AlarmStore.fromSnapshot(s.alarms);
    this.consistentIndex = s.consistentIndex;
    for (const listener of this.restoreListeners) listener();
  }

  private execute(req: InternalRequest): unknown {
    rejectWhenCapped(this.alarms, req);
    if ('alarm' in req) return applyAlarm(this.alarms, req.alarm);
    if ('put' in req) return this.store.put(req.put);
    if ('deleteRange' in req) return this.store.deleteRange(req.deleteRange);
    if ('txn' in req) return this.store.txn(req.txn);
    if ('compaction' in req) return this.store.compact(req.compaction.revision);
    if ('leaseGrant' in req) return applyLeaseGrant(this.lessor, req.leaseGrant, Date.now());
    if ('leaseRevoke' in req) return applyLeaseRevoke(this.lessor, this.store, req.leaseRevoke);
    const a = req.memberAttrSet;
    this.membership.setAttributes(a.memberId as MemberId, a.name, a.clientUrls);
    return undefined;
  }
}

// Alarms and the space quota (etcd 3.4: etcdserver/api/v3alarm, apply.go
// applierV3backend.Alarm and applierV3Capped, quota.go).
//
// Alarms are cluster state: every action (GET too) goes through Raft and is
// applied here, so every member holds the same set; they travel in the
// state-machine snapshot. While NOSPACE is active the apply rejects what can
// grow the database — Put, a Txn whose success or failure branch puts, and
// LeaseGrant — with "mvcc: database space exceeded"; reads, deletes,
// compaction and defragment still work, so an operator can compact,
// defragment and `alarm disarm`. While CORRUPT is active every keyspace or
// lease change is refused with "etcdserver: corrupt cluster".
//
// The quota is checked before proposing (etcd's quotaKVServer /
// quotaLeaseServer): when the member's allocated size (dbSpace.ts, etcd's
// backend file size) plus the request's cost reaches --quota-backend-bytes,
// the member proposes ACTIVATE NOSPACE for itself and fails the request.

import { Errors } from '../errors';
import type { PutRequest, RequestOp, TxnRequest } from '../mvcc/types';
import { AlarmAction, AlarmType, type AlarmMember, type AlarmRequest } from '../api/etcdServer';
import type { MemberId } from '../raft/types';

/** As the snapshot stores them: ids as decimal strings (JSON). */
export type AlarmsSnapshot = { memberId: string; alarm: number }[];

/** The alarm names etcd prints (the proto enum names). */
export function alarmName(t: AlarmType): string {
  return ['NONE', 'NOSPACE', 'CORRUPT'][t] ?? String(t);
}

/** gogo-proto's compact text of an AlarmMember, as etcd puts it in Status errors and etcdctl prints it. */
export function formatAlarm(m: AlarmMember): string {
  return `memberID:${m.memberId} alarm:${alarmName(m.alarm)} `;
}

export class AlarmStore {
  private readonly active = new Map<AlarmType, Set<MemberId>>();

  /** All alarms of type `t` (every type for None), by type then member id. */
  get(t: AlarmType = AlarmType.None): AlarmMember[] {
    const out: AlarmMember[] = [];
    for (const type of [...this.active.keys()].sort()) {
      if (t !== AlarmType.None && type !== t) continue;
      const ids = [...this.active.get(type)!].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      for (const memberId of ids) out.push({ memberId, alarm: type });
    }
    return out;
  }

  has(t: AlarmType): boolean {
    return (this.active.get(t)?.size ?? 0) > 0;
  }

  /** etcd's Activate: undefined for NONE; an already active alarm is returned again. */
  activate(memberId: MemberId, t: AlarmType): AlarmMember | undefined {
    if (t === AlarmType.None) return undefined;
    let ids = this.active.get(t);
    if (ids === undefined) this.active.set(t, (ids = new Set()));
    ids.add(memberId);
    return { memberId, alarm: t };
  }

  /** etcd's Deactivate: undefined when that alarm was not active. */
  deactivate(memberId: MemberId, t: AlarmType): AlarmMember | undefined {
    const ids = this.active.get(t);
    if (ids === undefined || !ids.delete(memberId)) return undefined;
    if (ids.size === 0) this.active.delete(t);
    return { memberId, alarm: t };
  }

  toSnapshot(): AlarmsSnapshot {
    return this.get().map((m) => ({ memberId: m.memberId.toString(), alarm: m.alarm }));
  }

  static fromSnapshot(s: AlarmsSnapshot | undefined): AlarmStore {
    const out = new AlarmStore();
    for (const m of s ?? []) out.activate(BigInt(m.memberId), m.alarm);
    return out;
  }
}

/** applierV3backend.Alarm: the alarms the response lists. */
export function applyAlarm(store: AlarmStore, r: AlarmRequest): AlarmMember[] {
  switch (r.action) {
    case AlarmAction.Get:
      return store.get(r.alarm);
    case AlarmAction.Activate: {
      const m = store.activate(r.memberId, r.alarm);
      return m ? [m] : [];
    }
    case AlarmAction.Deactivate: {
      const m = store.deactivate(r.memberId, r.alarm);
      return m ? [m] : [];
    }
    default:
      return [];
  }
}

// ---- quota (etcd quota.go)

/** etcd's estimates of the metadata stored with each key and each lease. */
const KV_OVERHEAD = 256;
const LEASE_OVERHEAD = 64;

export function costPut(r: PutRequest): number {
  return KV_OVERHEAD + r.key.length + r.value.length;
}

function costOp(op: RequestOp): number {
  return 'put' in op ? costPut(op.put) : 0; // nested txns cost nothing, as in etcd 3.4
}

/** The larger of the two branches' puts. */
export function costTxn(r: TxnRequest): number {
  const success = r.success.reduce((n, op) => n + costOp(op), 0);
  const failure = r.failure.reduce((n, op) => n + costOp(op), 0);
  return Math.max(success, failure);
}

export const COST_LEASE = LEASE_OVERHEAD;

/** etcd's DefaultQuotaBytes (2 GiB), used when the configured quota is 0. */
export const DEFAULT_QUOTA_BYTES = 2 * 1024 * 1024 * 1024;

/** etcd's backendQuota.Available; quota 0 means the default, a negative quota none. */
export function quotaAvailable(dbSize: number, cost: number, quotaBytes: number): boolean {
  if (quotaBytes < 0) return true;
  return dbSize + cost < (quotaBytes === 0 ? DEFAULT_QUOTA_BYTES : quotaBytes);
}

/** applierV3Capped: what the apply refuses while NOSPACE is active. */
export function rejectWhenNoSpace(store: AlarmStore, req: object): void {
  if (!store.has(AlarmType.NoSpace)) return;
  if ('put' in req || 'leaseGrant' in req || ('txn' in req && costTxn((req as { txn: TxnRequest }).txn) > 0)) throw Errors.noSpace();
}

/** The requests applierV3Corrupt refuses (reads are served outside the apply and still work). */
const CORRUPT_REFUSES = ['put', 'deleteRange', 'txn', 'compaction', 'leaseGrant', 'leaseRevoke'];

/**
 * What the apply refuses under the active alarms: everything that changes
 * the keyspace or leases while CORRUPT is active (etcd's applierV3Corrupt),
 * growth while NOSPACE is. Alarm requests themselves always apply.
 */
export function rejectWhenCapped(store: AlarmStore, req: object): void {
  if (store.has(AlarmType.Corrupt) && CORRUPT_REFUSES.some((k) => k in req)) throw Errors.corrupt();
  rejectWhenNoSpace(store, req);
}

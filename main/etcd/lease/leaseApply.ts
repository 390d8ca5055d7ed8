// Applying the two lease requests that go through Raft (etcd's
// applierV3backend.LeaseGrant/LeaseRevoke). Revoke deletes every attached key
// in ONE write txn: one revision, one DELETE event per key, keys in byte
// order so every member writes the same history.

import type { LeaseId, MvccStore, RequestOp } from '../mvcc/index';
import type { Lessor } from './lessor';

export interface LeaseGrantRequest {
  id: LeaseId;
  /** Seconds as requested; the lessor raises it to its minimum. */
  ttl: number;
}

export interface LeaseRevokeRequest {
  id: LeaseId;
}

const EMPTY = new Uint8Array(0);

/** Returns the granted lease's id and effective TTL (the proposer's answer). */
export function applyLeaseGrant(lessor: Lessor, req: LeaseGrantRequest, now: number): LeaseGrantRequest {
  const lease = lessor.grant(req.id, req.ttl, now);
  return { id: lease.id, ttl: lease.ttl };
}

export function applyLeaseRevoke(lessor: Lessor, store: MvccStore, req: LeaseRevokeRequest): void {
  lessor.revoke(req.id, (keys) => {
    const success: RequestOp[] = keys.map((key) => ({ deleteRange: { key, rangeEnd: EMPTY, prevKv: false } }));
    store.txn({ compare: [], success, failure: [] });
  });
}

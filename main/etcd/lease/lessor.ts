// The lessor (etcd lease/lessor.go): which leases exist, their TTLs, the keys
// attached to each, and — on the leader only, the "primary" lessor — when
// each one expires.
//
// Replicated part: leases are granted and revoked by applying Raft entries,
// and keys attach/detach as the MVCC store writes them (the store's
// LeaseHooks). Every member holds the same leases and keys.
//
// Local part: expiry. A follower's leases never expire (expiry Infinity).
// The leader's expire at ttl seconds after the last grant, renewal or
// promotion; the server proposes a LeaseRevoke for each expired one. When a
// member becomes leader, promote() restarts every lease's clock with an extra
// election timeout, so a lease whose keep-alives went to the old leader does
// not expire just because the new leader never saw them.
//
// No clock inside: every method that needs the time takes `now` (ms).

import { Errors } from '../errors';
import { toKeyString } from '../mvcc/keyBytes';
import type { LeaseHooks, LeaseId } from '../mvcc/index';

/** etcd's MaxLeaseTTL (seconds). */
export const MAX_LEASE_TTL = 9_000_000_000;
/** etcd's leaseRevokeRate: revocations per second the leader proposes at most. */
export const LEASE_REVOKE_RATE = 1000;
/** etcd's expiredLeaseRetryInterval: an expired lease is offered for revocation again after this. */
export const EXPIRED_RETRY_MS = 3000;

/** One lease as a snapshot keeps it (etcd's leasepb.Lease). */
export interface LeaseRecord {
  id: LeaseId;
  ttl: number;
}

export class Lease {
  /** Attached keys, by their binary-string form (sorting these is bytes.Compare order). */
  readonly keys = new Map<string, Uint8Array>();
  /** Wall-clock ms; Infinity while this member is not the primary lessor. */
  expiry = Infinity;

  constructor(
    readonly id: LeaseId,
    /** Seconds, already raised to the minimum. */
    readonly ttl: number,
  ) {}

  /** ms until expiry (Infinity on a follower). */
  remainingMs(now: number): number {
    return this.expiry - now;
  }

  expired(now: number): boolean {
    return this.remainingMs(now) <= 0;
  }

  /** etcd's refresh(extend): expire ttl seconds (plus extend ms) from now. */
  refresh(now: number, extendMs = 0): void {
    this.expiry = now + extendMs + this.ttl * 1000;
  }

  /** Keys in byte order, as etcd sorts them before deleting (the same order on every member). */
  sortedKeys(): Uint8Array[] {
    return [...this.keys.keys()].sort().map((k) => this.keys.get(k)!);
  }
}

/** What renew() found. */
export type Renewal = { ttl: number } | 'expired' | 'not-primary';

export class Lessor {
  private readonly leases = new Map<LeaseId, Lease>();
  private primary = false;
  /** Expired leases already offered for revocation: not offered again before this time. */
  private readonly retryAt = new Map<LeaseId, number>();

  /** The store's view of this lessor (etcd's Attach/Detach/Lookup). */
  readonly hooks: LeaseHooks = {
    exists: (id) => this.leases.has(id),
    attach: (id, key) => this.leases.get(id)?.keys.set(toKeyString(key), key),
    detach: (id, key) => void this.leases.get(id)?.keys.delete(toKeyString(key)),
  };

  /** @param minTtl seconds; smaller grants are raised to it (etcd: ceil(1.5 election timeouts)). */
  constructor(readonly minTtl: number) {}

  get isPrimary(): boolean {
    return this.primary;
  }

  get size(): number {
    return this.leases.size;
  }

  lookup(id: LeaseId): Lease | undefined {
    return this.leases.get(id);
  }

  /** Applies a LeaseGrant. The id must be non-zero (the server picks one before proposing). */
  grant(id: LeaseId, ttl: number, now: number): Lease {
    if (id === 0n) throw Errors.leaseNotFound();
    if (ttl > MAX_LEASE_TTL) throw Errors.leaseTTLTooLarge();
    if (this.leases.has(id)) throw Errors.leaseExist();
    const lease = new Lease(id, Math.max(ttl, this.minTtl));
    if (this.primary) lease.refresh(now);
    this.leases.set(id, lease);
    return lease;
  }

  /**
   * Applies a LeaseRevoke: `deleteKeys` receives the attached keys sorted and
   * must delete them in one write txn (one revision), then the lease is gone.
   */
  revoke(id: LeaseId, deleteKeys: (keys: Uint8Array[]) => void): void {
    const lease = this.leases.get(id);
    if (lease === undefined) throw Errors.leaseNotFound();
    const keys = lease.sortedKeys();
    if (keys.length > 0) deleteKeys(keys);
    this.leases.delete(id);
    this.retryAt.delete(id);
  }

  /**
   * A keep-alive. Throws leaseNotFound for an unknown lease; 'expired' means
   * the lease awaits its revocation (the caller waits for it, as etcd does);
   * 'not-primary' means ask the leader.
   */
  renew(id: LeaseId, now: number): Renewal {
    if (!this.primary) return 'not-primary';
    const lease = this.leases.get(id);
    if (lease === undefined) throw Errors.leaseNotFound();
    if (lease.expired(now)) return 'expired';
    lease.refresh(now);
    this.retryAt.delete(id);
    return { ttl: lease.ttl };
  }

  /**
   * This member leads now (etcd Promote(extend)): every lease expires ttl +
   * extendMs from now. With at least LEASE_REVOKE_RATE leases, expiries that
   * pile up are spread so no second sees more than 3/4 of the revoke rate.
   */
  promote(extendMs: number, now: number): void {
    this.primary = true;
    this.retryAt.clear();
    for (const l of this.leases.values()) l.refresh(now, extendMs);
    if (this.leases.size < LEASE_REVOKE_RATE) return;

    const byExpiry = this.list();
    let baseWindow = byExpiry[0]!.remainingMs(now);
    let nextWindow = baseWindow + 1000;
    let expires = 0;
    const targetPerSecond = (3 * LEASE_REVOKE_RATE) / 4;
    for (const l of byExpiry) {
      const remaining = l.remainingMs(now);
      if (remaining > nextWindow) {
        baseWindow = remaining;
        nextWindow = baseWindow + 1000;
        expires = 1;
        continue;
      }
      expires++;
      if (expires <= targetPerSecond) continue;
      // leases n seconds ahead of the base window are pushed back n seconds less
      const delay = (1000 * expires) / targetPerSecond - (remaining - baseWindow);
      nextWindow = baseWindow + delay;
      l.refresh(now, delay + extendMs);
    }
  }

  /** No longer the leader (etcd Demote): leases stop expiring here. */
  demote(): void {
    this.primary = false;
    this.retryAt.clear();
    for (const l of this.leases.values()) l.expiry = Infinity;
  }

  /**
   * Up to `limit` expired leases to revoke, soonest-expired first. Each one
   * returned is not returned again for EXPIRED_RETRY_MS (its revocation is in
   * flight; should it fail, it is offered again then).
   */
  takeExpired(now: number, limit: number): LeaseId[] {
    if (!this.primary) return [];
    const due: Lease[] = [];
    for (const l of this.leases.values()) {
      if (!l.expired(now)) continue;
      const retry = this.retryAt.get(l.id);
      if (retry !== undefined && retry > now) continue;
      due.push(l);
    }
    due.sort(byExpiryThenId);
    const out = due.slice(0, limit).map((l) => l.id);
    for (const id of out) this.retryAt.set(id, now + EXPIRED_RETRY_MS);
    return out;
  }

  /** Every lease, soonest expiry first (ties by id, so every member lists alike). */
  list(): Lease[] {
    return [...this.leases.values()].sort(byExpiryThenId);
  }

  /** The replicated part, for the member's snapshot (keys come back from the MVCC store). */
  toRecords(): LeaseRecord[] {
    return [...this.leases.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((l) => ({ id: l.id, ttl: l.ttl }));
  }

  /**
   * Rebuilds a lessor from a snapshot: the leases, then their keys from the
   * store (a key whose lease is unknown stays unattached, as etcd logs and
   * skips it). Not primary: the member promotes it when it leads.
   */
  static restore(minTtl: number, records: readonly LeaseRecord[], forEachLeasedKey: (visit: (id: LeaseId, key: Uint8Array) => void) => void): Lessor {
    const lessor = new Lessor(minTtl);
    for (const r of records) lessor.leases.set(r.id, new Lease(r.id, r.ttl));
    forEachLeasedKey((id, key) => lessor.hooks.attach(id, key));
    return lessor;
  }
}

function byExpiryThenId(a: Lease, b: Lease): number {
  if (a.expiry !== b.expiry) return a.expiry < b.expiry ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** etcd's minimum lease TTL: ceil(((3 × election ticks) / 2) × heartbeat), in seconds. */
export function minLeaseTtl(electionTimeoutMs: number, heartbeatMs: number): number {
  const electionTicks = Math.max(1, Math.round(electionTimeoutMs / heartbeatMs));
  return Math.ceil((Math.floor((3 * electionTicks) / 2) * heartbeatMs) / 1000);
}

// The member's lease requests (etcd etcdserver/v3_server.go LeaseGrant,
// LeaseRevoke, LeaseRenew, LeaseTimeToLive, LeaseLeases, and the expiry
// handling of server.go run()), on top of a narrow view of the member.
//
// - Grant and revoke are proposals; a zero grant id becomes a positive 63-bit
//   id from the member's request-id generator before proposing.
// - Keep-alive and time-to-live need the primary lessor: on the leader they
//   are answered here (an expired lease that awaits its revocation is waited
//   for, as etcd's Renew does); on a follower the answer is the leader's
//   client URLs, which the API layer forwards to (etcd forwards over the peer
//   route /leases instead; the result is the same).
// - The leader's lessor is promoted when the leader's first entry of its term
//   applies, and demoted when leadership is lost; every 500 ms the leader
//   proposes a LeaseRevoke for each expired lease (at most 500 per round,
//   etcd's leaseRevokeRate / 2).

import { Errors } from '../errors';
import type { LeaseId } from '../mvcc/index';
import type { AtLeader } from '../atLeader';
import { LEASE_REVOKE_RATE, type Lessor } from './lessor';
import type { LeaseGrantRequest, LeaseRevokeRequest } from './leaseApply';

/** etcd's revokeExpiredLeases period. */
export const EXPIRY_CHECK_MS = 500;
/** How often a waiting keep-alive looks again (leader known? lease revoked?). */
const POLL_MS = 50;

/** A lease's remaining and granted TTL, as LeaseTimeToLive answers it. */
export interface LeaseTimeToLive {
  id: LeaseId;
  /** Whole seconds left (truncated). */
  ttl: number;
  grantedTtl: number;
  keys: Uint8Array[];
}

/** What the lease requests need from the member. */
export interface LeaseMemberView {
  lessor(): Lessor;
  /** Raft state, as the member's loop knows it. */
  isLeader(): boolean;
  lead(): bigint;
  leaderClientUrls(lead: bigint): string[];
  propose(body: { leaseGrant: LeaseGrantRequest } | { leaseRevoke: LeaseRevokeRequest }): Promise<unknown>;
  nextRequestId(): bigint;
  /** Resolves once everything committed so far is applied. */
  appliedAll(): Promise<void>;
  isStopped(): boolean;
  electionTimeoutMs: number;
  requestTimeoutMs: number;
  now(): number;
  log(line: string): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class LeaseRequests {
  constructor(private readonly m: LeaseMemberView) {}

  async grant(id: LeaseId, ttl: number): Promise<{ id: LeaseId; ttl: number }> {
    // etcd: for r.ID == NoLease { r.ID = reqIDGen.Next() & ((1 << 63) - 1) }
    while (id === 0n) id = BigInt.asUintN(63, this.m.nextRequestId());
    return (await this.m.propose({ leaseGrant: { id, ttl } })) as { id: LeaseId; ttl: number };
  }

  async revoke(id: LeaseId): Promise<void> {
    await this.m.propose({ leaseRevoke: { id } });
  }

  /** The renewed TTL; null when there is no such lease (also once an expired one is revoked). */
  keepAlive(id: LeaseId): Promise<AtLeader<number | null>> {
    return this.atLeader(() => {
      const lessor = this.m.lessor();
      if (!lessor.isPrimary) return 'not-primary';
      if (lessor.lookup(id) === undefined) return { value: null };
      const r = lessor.renew(id, this.m.now());
      return typeof r === 'object' ? { value: r.ttl } : r;
    });
  }

  /** null when there is no such lease. */
  timeToLive(id: LeaseId, withKeys: boolean): Promise<AtLeader<LeaseTimeToLive | null>> {
    return this.atLeader(() => {
      const lessor = this.m.lessor();
      if (!lessor.isPrimary) return 'not-primary';
      const lease = lessor.lookup(id);
      if (lease === undefined) return { value: null };
      const value: LeaseTimeToLive = {
        id,
        // Go's int64(Remaining().Seconds()) truncates toward zero
        ttl: Math.trunc(lease.remainingMs(this.m.now()) / 1000),
        grantedTtl: lease.ttl,
        keys: withKeys ? lease.sortedKeys() : [],
      };
      return { value };
    });
  }

  leases(): LeaseId[] {
    return this.m.lessor().list().map((l) => l.id);
  }

  /** Leadership moved (the member's leader-change hook): a member that does not lead stops expiring leases. */
  onLeaderChange(selfLeads: boolean): void {
    if (!selfLeads) this.m.lessor().demote();
  }

  /** The term's first entry applied (StateMachine.onTermEntry): the leader's lessor becomes primary. */
  onTermEntry(): void {
    if (this.m.isLeader()) this.m.lessor().promote(this.m.electionTimeoutMs, this.m.now());
  }

  /** Every EXPIRY_CHECK_MS on every member; only a primary lessor finds anything. */
  revokeExpired(): void {
    if (this.m.isStopped()) return;
    if (!this.m.isLeader()) {
      if (this.m.lessor().isPrimary) this.m.lessor().demote();
      return;
    }
    for (const id of this.m.lessor().takeExpired(this.m.now(), LEASE_REVOKE_RATE / 2)) {
      this.m.propose({ leaseRevoke: { id } }).catch((err: Error) => {
        // Already gone (revoked by a client meanwhile) is fine; anything else is retried after EXPIRED_RETRY_MS.
        if (err.message === Errors.leaseNotFound().message || this.m.isStopped()) return;
        this.m.log(`failed to revoke lease ${id.toString(16)}: ${err.message}`);
      });
    }
  }

  /**
   * Runs `local` where the primary lessor is, or says where the leader is.
   * Waits (bounded by the request timeout) while there is no leader, while a
   * new leader's lessor is not yet promoted, and while an expired lease awaits
   * its revocation.
   */
  private async atLeader<T>(local: () => { value: T } | 'expired' | 'not-primary'): Promise<AtLeader<T>> {
    const deadline = this.m.now() + this.m.requestTimeoutMs;
    let waitedApply = false;
    for (;;) {
      if (this.m.isStopped()) throw Errors.stopped();
      const lead = this.m.lead();
      if (this.m.isLeader()) {
        if (!waitedApply) {
          // etcd waitAppliedIndex: renew only against everything committed
          await this.m.appliedAll();
          waitedApply = true;
        }
        const r = local();
        if (typeof r === 'object') return r;
      } else if (lead !== 0n) {
        const urls = this.m.leaderClientUrls(lead);
        if (urls.length > 0) return { forwardTo: urls };
      }
      if (this.m.now() >= deadline) throw lead === 0n ? Errors.noLeader() : Errors.timeout();
      await sleep(POLL_MS);
    }
  }
}

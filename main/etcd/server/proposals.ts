// The write path between a request and its apply (etcd: v3_server.go
// processInternalRaftRequestOnce plus pkg/wait): encode with a fresh id,
// register a waiter, propose; the member that registered the id resolves it
// when the entry is applied (onOutcome). A proposal Raft cannot take now (no
// leader, leader transfer) waits in `unproposed` and is retried once a leader
// is known, so a leaderless follower blocks until the request timeout as
// etcd's does. Deadlines are checked by the member's one interval (tick).

import { Errors } from '../errors';
import { ErrProposalDropped } from '../raft/errors';
import type { ConfChange, MemberId } from '../raft/types';
import type { IdGenerator } from './idGenerator';
import { encodeInternalRequest, type InternalRequest } from './internalRequest';
import type { MemberMetrics } from './metrics';
import type { ApplyOutcome } from './stateMachine';
import { WaitRegistry } from './wait';

/** etcd's maxGapBetweenApplyAndCommitIndex. */
const MAX_APPLY_GAP = 5000;

/** An internal request without its id (the pipeline assigns one). */
export type RequestBody = InternalRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

/** What the pipeline needs of the Raft loop. */
export interface ProposalTarget {
  readonly lead: MemberId;
  readonly committed: number;
  readonly applied: number;
  propose(data: Uint8Array): void;
  proposeConfChange(cc: ConfChange): void;
}

export interface ProposalsOptions {
  loop: ProposalTarget;
  ids: IdGenerator;
  metrics: MemberMetrics;
  maxRequestBytes: number;
  requestTimeoutMs: number;
  electionTimeoutMs: number;
  heartbeatMs: number;
}

export class Proposals {
  private readonly waits = new WaitRegistry<unknown>();
  private unproposed: { id: bigint; data: Uint8Array }[] = [];
  private leaderElectedAt = 0;
  private stopped = false;

  constructor(private readonly o: ProposalsOptions) {}

  get pending(): number {
    return this.waits.size;
  }

  propose(body: RequestBody): Promise<unknown> {
    if (this.stopped) return Promise.reject(Errors.stopped());
    const loop = this.o.loop;
    if (loop.committed - loop.applied > MAX_APPLY_GAP) return Promise.reject(Errors.tooManyRequests());
    const id = this.o.ids.next();
    const data = encodeInternalRequest({ id, ...body } as InternalRequest);
    if (data.length > this.o.maxRequestBytes) return Promise.reject(Errors.requestTooLarge());
    const done = this.register(id);
    this.submit(id, data);
    return done;
  }

  /** etcd's configure: propose a ConfChange and wait for its apply (the apply answers with the member list). */
  async proposeConfChange(cc: ConfChange, requestId: bigint): Promise<unknown> {
    if (this.stopped) throw Errors.stopped();
    const done = this.register(requestId);
    const submit = (): boolean => {
      try {
        this.o.loop.proposeConfChange(cc);
        return true;
      } catch (err) {
        if (!(err instanceof ErrProposalDropped)) throw err;
        return false;
      }
    };
    // No leader yet: retry every heartbeat until the waiter's deadline fails it.
    for (let n = 0; !submit() && this.waits.isRegistered(requestId) && n < 1000; n++) {
      await new Promise((r) => setTimeout(r, this.o.heartbeatMs));
    }
    return done;
  }

  onOutcome(o: ApplyOutcome): void {
    if ('error' in o) {
      if (this.waits.fail(o.id, o.error)) this.o.metrics.proposalsFailed.inc();
    } else {
      this.waits.trigger(o.id, o.value);
    }
  }

  onLeaderElected(now: number): void {
    this.leaderElectedAt = now;
    this.flushUnproposed();
  }

  /** Fails expired waiters and retries held proposals once a leader is known. */
  tick(now: number): void {
    const expired = this.waits.expire(now, (startedAt) => this.timeoutError(startedAt));
    if (expired > 0) this.o.metrics.proposalsFailed.inc(expired);
    if (this.unproposed.length > 0 && this.o.loop.lead !== 0n) this.flushUnproposed();
    this.o.metrics.proposalsPending.set(this.waits.size);
  }

  stop(err: Error): void {
    this.stopped = true;
    this.unproposed = [];
    this.waits.failAll(err);
  }

  private register(id: bigint): Promise<unknown> {
    const now = Date.now();
    return this.waits.register(id, now, now + this.o.requestTimeoutMs);
  }

  private submit(id: bigint, data: Uint8Array): void {
    if (this.o.loop.lead === 0n) {
      this.unproposed.push({ id, data });
      return;
    }
    try {
      this.o.loop.propose(data);
    } catch (err) {
      if (!(err instanceof ErrProposalDropped)) throw err;
      this.unproposed.push({ id, data });
    }
  }

  private flushUnproposed(): void {
    const pending = this.unproposed;
    this.unproposed = [];
    for (const p of pending) {
      if (this.waits.isRegistered(p.id)) this.submit(p.id, p.data);
    }
  }

  /** etcd's parseProposeCtxErr for a deadline: blame a leader election that happened meanwhile. */
  private timeoutError(startedAt: number): Error {
    const prevLeaderLost = this.leaderElectedAt - 2 * this.o.electionTimeoutMs;
    if (startedAt > prevLeaderLost && startedAt < this.leaderElectedAt) return Errors.timeoutDueToLeaderFail();
    return Errors.timeout();
  }
}

// Linearizable reads by ReadIndex, batched as etcd's linearizableReadLoop
// batches them (etcdserver/v3_server.go): every read that arrives while a
// ReadIndex round is in flight joins the next round, so one heartbeat round
// confirms leadership for all of them. A round:
//   1. ask Raft for a read index with ctx = 8-byte big-endian request id;
//   2. wait for the ReadState carrying that ctx (resend every retryMs: a
//      follower without a leader drops the request);
//   3. wait until applied ≥ that index, then serve every read of the round.
// Time enters only through tick(now), driven by the member's shared timer.

import { Errors } from '../errors';
import type { Index, ReadState } from '../raft/types';

export interface LinearizableReadsDeps {
  nextId(): bigint;
  sendReadIndex(ctx: Uint8Array): void;
  appliedIndex(): Index;
  now(): number;
  /** Whole-round budget (etcd: ReqTimeout). */
  timeoutMs: number;
  /** Resend period while no ReadState came back (etcd 3.5: 500 ms). */
  retryMs: number;
}

interface PendingRead {
  resolve(): void;
  reject(err: Error): void;
}

interface Round {
  ctx: Uint8Array;
  reads: PendingRead[];
  startedAt: number;
  sentAt: number;
  /** Set once the matching ReadState arrived. */
  readIndex?: Index;
}

export function requestIdToCtx(id: bigint): Uint8Array {
  const ctx = new Uint8Array(8);
  new DataView(ctx.buffer).setBigUint64(0, id);
  return ctx;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class LinearizableReads {
  private queued: PendingRead[] = [];
  private round?: Round;

  constructor(private readonly deps: LinearizableReadsDeps) {}

  /** Resolves when a read served from local state now would be linearizable. */
  wait(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ resolve, reject });
      this.startRound();
    });
  }

  onReadState(rs: ReadState): void {
    const round = this.round;
    // A late answer to an earlier (timed-out) round is ignored, as etcd does.
    if (!round || round.readIndex !== undefined || !sameBytes(rs.requestCtx, round.ctx)) return;
    round.readIndex = rs.index;
    this.onApplied(this.deps.appliedIndex());
  }

  onApplied(applied: Index): void {
    const round = this.round;
    if (!round || round.readIndex === undefined || applied < round.readIndex) return;
    this.round = undefined;
    for (const r of round.reads) r.resolve();
    this.startRound();
  }

  /**
   * A round asked of a leaderless follower was dropped: resend at once when a
   * leader appears. A round in flight when a known leader changes fails with
   * "leader changed", as in etcd (the old leader's answer can no longer be trusted).
   */
  onLeaderChanged(previousLeader: bigint, newLeader: bigint): void {
    const round = this.round;
    if (!round || round.readIndex !== undefined) return;
    if (previousLeader === 0n) {
      if (newLeader !== 0n) this.send(round);
      return;
    }
    this.finishWithError(Errors.leaderChanged());
  }

  tick(): void {
    const round = this.round;
    if (!round) return;
    const now = this.deps.now();
    if (now - round.startedAt >= this.deps.timeoutMs) {
      this.finishWithError(Errors.timeout());
    } else if (round.readIndex === undefined && now - round.sentAt >= this.deps.retryMs) {
      this.send(round);
    }
  }

  stop(err: Error): void {
    const reads = [...(this.round?.reads ?? []), ...this.queued];
    this.round = undefined;
    this.queued = [];
    for (const r of reads) r.reject(err);
  }

  get pending(): number {
    return this.queued.length + (this.round?.reads.length ?? 0);
  }

  private finishWithError(err: Error): void {
    const round = this.round;
    if (!round) return;
    this.round = undefined;
    for (const r of round.reads) r.reject(err);
    this.startRound();
  }

  private startRound(): void {
    if (this.round || this.queued.length === 0) return;
    const now = this.deps.now();
    const round: Round = {
      ctx: requestIdToCtx(this.deps.nextId()),
      reads: this.queued,
      startedAt: now,
      sentAt: now,
    };
    this.queued = [];
    this.round = round;
    this.send(round);
  }

  private send(round: Round): void {
    round.sentAt = this.deps.now();
    this.deps.sendReadIndex(round.ctx);
  }
}

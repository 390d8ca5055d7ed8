// One probe channel's figures, kept from the outcomes of its writes as they
// end: how many, which failed, the longest time the channel could not take a
// write, and the sequence numbers acknowledged (what the probe verifies at
// its stop). Pure: every time comes in as an argument.
//
// An unavailability window opens at the start of the first failed attempt
// after an acknowledged write (or after the start) and closes when the next
// acknowledged write is answered. A window still open is measured up to the
// time of the report, and said to be ongoing.
//
//   t=0    seq 1 acknowledged at 4
//   t=100  seq 2 fails at 2100 (timed out)     window opens at 100
//   t=2100 seq 3 fails at 2105 (refused)
//   t=2200 seq 4 acknowledged at 2230          window closes: 100 → 2230, 2130 ms

export interface FailedWrite {
  channel: ProbeChannel;
  seq: number;
  /** When the attempt started (ISO). */
  at: string;
  /** How long it took to fail (the write timeout for a write that hung). */
  ms: number;
  error: string;
}

export type ProbeChannel = 'etcd' | 'apiserver';

export interface UnavailableWindow {
  from: string;
  to: string;
  /** Still open when the report was made: `to` is the report's time. */
  ongoing?: boolean;
}

export interface ChannelReport {
  writes: number;
  acknowledged: number;
  /** The first MAX_FAILURES_KEPT failures; failedCount counts them all. */
  failed: FailedWrite[];
  failedCount: number;
  longestUnavailableMs: number;
  longestWindow?: UnavailableWindow;
  /** Acknowledged writes not found when verified (0 until verified). */
  lost: number;
  /** The first few of them. */
  lostSeqs: number[];
  /** Why the acknowledged writes could not be verified, or cleaned up; lost says nothing when verification failed. */
  verifyError?: string;
  cleanupError?: string;
}

export const MAX_FAILURES_KEPT = 1000;
export const MAX_LOST_SEQS_KEPT = 20;

const iso = (ms: number) => new Date(ms).toISOString();

export class ChannelTally {
  private writes = 0;
  private readonly acked: number[] = [];
  private readonly failures: FailedWrite[] = [];
  private failedCount = 0;
  /** Start of the open window, if the last write failed. */
  private openSince: number | undefined;
  private longest: { from: number; to: number } | undefined;

  constructor(readonly channel: ProbeChannel) {}

  acknowledged(seq: number, answeredAt: number): void {
    this.writes++;
    this.acked.push(seq);
    if (this.openSince !== undefined) this.consider(this.openSince, answeredAt);
    this.openSince = undefined;
  }

  failed(seq: number, startedAt: number, endedAt: number, error: string): void {
    this.writes++;
    this.failedCount++;
    if (this.failures.length < MAX_FAILURES_KEPT) this.failures.push({ channel: this.channel, seq, at: iso(startedAt), ms: endedAt - startedAt, error });
    this.openSince ??= startedAt;
  }

  /** The acknowledged sequence numbers, in the order they were answered. */
  acknowledgedSeqs(): readonly number[] {
    return this.acked;
  }

  report(nowMs: number): ChannelReport {
    let longest = this.longest;
    let ongoing = false;
    if (this.openSince !== undefined && (!longest || nowMs - this.openSince > longest.to - longest.from)) {
      longest = { from: this.openSince, to: nowMs };
      ongoing = true;
    }
    return {
      writes: this.writes,
      acknowledged: this.acked.length,
      failed: [...this.failures],
      failedCount: this.failedCount,
      longestUnavailableMs: longest ? longest.to - longest.from : 0,
      ...(longest ? { longestWindow: { from: iso(longest.from), to: iso(longest.to), ...(ongoing ? { ongoing } : {}) } } : {}),
      lost: 0,
      lostSeqs: [],
    };
  }

  private consider(from: number, to: number): void {
    if (!this.longest || to - from > this.longest.to - this.longest.from) this.longest = { from, to };
  }
}

/** The acknowledged seqs that `present` lacks, as lost and the first few lostSeqs. */
export function lostWrites(acknowledged: readonly number[], present: ReadonlySet<number>): { lost: number; lostSeqs: number[] } {
  const missing = acknowledged.filter((s) => !present.has(s));
  return { lost: missing.length, lostSeqs: missing.slice(0, MAX_LOST_SEQS_KEPT) };
}

// Reconnect delays for a peer that is down: 100 ms, doubling, capped at 2 s
// (fast enough to rejoin within an election timeout, slow enough not to spin
// on a dead address). No jitter: there are only a handful of peers.

export const INITIAL_BACKOFF_MS = 100;
export const MAX_BACKOFF_MS = 2000;

export class Backoff {
  private current: number;

  constructor(
    private readonly initialMs = INITIAL_BACKOFF_MS,
    private readonly maxMs = MAX_BACKOFF_MS,
  ) {
    this.current = initialMs;
  }

  /** The delay before the next attempt; each call doubles the one after it. */
  next(): number {
    const d = this.current;
    this.current = Math.min(this.current * 2, this.maxMs);
    return d;
  }

  /** After a success the next failure starts over at the initial delay. */
  reset(): void {
    this.current = this.initialMs;
  }
}

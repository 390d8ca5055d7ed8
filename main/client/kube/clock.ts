// Time for the controllers, injected so tests can drive it: the work queue's
// backoff, leader election's renew loop and the event recorder's timestamps
// all read this instead of Date/setTimeout. FakeClock moves only when told.

export interface Clock {
  now(): number;
  /** Runs fn after ms; returns a cancel function. */
  after(ms: number, fn: () => void): () => void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    // Not unref'd: a controller waiting for its next retry is the program's work, it must keep the process alive.
    const t = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(t);
  },
};

/** A clock for tests: `step(ms)` fires due timers in time order. */
export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();

  constructor(start = 1_700_000_000_000) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  after(ms: number, fn: () => void): () => void {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    return () => this.timers.delete(id);
  }

  /** Advances time by ms, firing each timer due on the way (at most 10,000). */
  step(ms: number): void {
    const end = this.t + ms;
    for (let i = 0; i < 10_000; i++) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.timers) if (e[1].at <= end && (!next || e[1].at < next[1].at)) next = e;
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = Math.max(this.t, next[1].at);
      next[1].fn();
    }
    this.t = end;
  }

  pending(): number {
    return this.timers.size;
  }
}

/** Resolves after ms on the given clock, or at once when signal aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const cancel = clock.after(ms, done);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

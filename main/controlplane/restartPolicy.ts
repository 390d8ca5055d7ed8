// When a supervised process crashes: restart it after an exponential backoff
// (BASE_MS, doubling, at most MAX_MS), unless it crashed LIMIT times within
// WINDOW_MS — then it stays crashed until the user starts it (VS Code's pty
// host and Rancher Desktop's background processes do the same; a crash loop
// that restarts forever hides the reason in a flood of log lines).
//
// Pure: time comes in as an argument.

export interface RestartPolicyOptions {
  baseMs?: number;
  maxMs?: number;
  limit?: number;
  windowMs?: number;
}

export const DEFAULT_RESTART = { baseMs: 250, maxMs: 8_000, limit: 5, windowMs: 60_000 } as const;

/** Gives up at the first crash: a process that is run, not kept alive. */
export const NEVER_RESTART: RestartPolicyOptions = { limit: 0 };

export type CrashDecision = { action: 'restart'; delayMs: number; attempt: number } | { action: 'give-up'; crashes: number };

export class RestartPolicy {
  private crashes: number[] = [];
  private readonly o: Required<RestartPolicyOptions>;

  constructor(opts: RestartPolicyOptions = {}) {
    this.o = { ...DEFAULT_RESTART, ...opts };
  }

  /** Records a crash at `now` and decides. */
  onCrash(now: number): CrashDecision {
    this.crashes = this.crashes.filter((t) => now - t < this.o.windowMs);
    this.crashes.push(now);
    const n = this.crashes.length;
    if (n > this.o.limit) return { action: 'give-up', crashes: n };
    return { action: 'restart', delayMs: Math.min(this.o.maxMs, this.o.baseMs * 2 ** (n - 1)), attempt: n };
  }

  /** A user start clears the history: the user has looked at it. */
  reset(): void {
    this.crashes = [];
  }
}

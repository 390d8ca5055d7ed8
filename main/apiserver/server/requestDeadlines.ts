// The deadlines of the requests being served, checked by one interval timer
// for all of them: arming a timer per request costs more on the create path
// than the check (a Set insert and delete) does. A deadline fires on the
// first check after it passed, so within CHECK_INTERVAL_MS of it.

export const CHECK_INTERVAL_MS = 100;

export interface Deadline {
  at: number;
  onExpired(): void;
}

export class RequestDeadlines {
  private readonly pending = new Set<Deadline>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly now: () => number = performance.now.bind(performance), intervalMs = CHECK_INTERVAL_MS) {
    this.timer = setInterval(() => this.check(), intervalMs);
    this.timer.unref();
  }

  add(d: Deadline): void {
    this.pending.add(d);
  }

  delete(d: Deadline): void {
    this.pending.delete(d);
  }

  get size(): number {
    return this.pending.size;
  }

  /** Fires (and forgets) every deadline that has passed. */
  check(): void {
    if (this.pending.size === 0) return;
    const t = this.now();
    for (const d of this.pending) {
      if (d.at > t) continue;
      this.pending.delete(d);
      d.onExpired();
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.pending.clear();
  }
}

// Coalesces items arriving many times per frame (watch-event batches, trace
// batches, terminal output) into one flush per animation frame, so the
// renderer updates reactive state at most once per frame. The scheduler is
// injected: requestAnimationFrame in the page, a manual one in tests.

export type Schedule = (run: () => void) => void;

export function animationFrameSchedule(): Schedule {
  const g = globalThis as { requestAnimationFrame?: (cb: () => void) => number };
  // Hidden tabs get no animation frames; fall back to a timer so memory stays bounded there too.
  const hidden = () => (globalThis as { document?: { hidden?: boolean } }).document?.hidden === true;
  return (run) => {
    if (g.requestAnimationFrame && !hidden()) g.requestAnimationFrame(run);
    else setTimeout(run, 16);
  };
}

export class FrameBatcher<T> {
  private queue: T[] = [];
  private scheduled = false;

  constructor(
    private readonly flush: (items: T[]) => void,
    private readonly schedule: Schedule = animationFrameSchedule(),
  ) {}

  add(items: readonly T[]): void {
    if (items.length === 0) return;
    for (const it of items) this.queue.push(it);
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => {
      this.scheduled = false;
      const batch = this.queue;
      this.queue = [];
      if (batch.length > 0) this.flush(batch);
    });
  }

  get pending(): number {
    return this.queue.length;
  }
}

// A rate-limited work queue with client-go's semantics (util/workqueue):
//   1. An item is queued at most once (dirty set) however often it is added.
//   2. An item being processed is never handed to a second worker; adding it
//      meanwhile marks it dirty and it is re-queued when done() is called.
//   3. addRateLimited waits the limiter's delay: per item exponential
//      (base·2^failures, capped), reset by forget() after a success.
//   4. After shutDown() get() resolves { shutdown: true } at once, as
//      client-go's ShutDown (not the drain variant): workers stop, queued items are dropped.

import { type Clock, realClock } from './clock';

export interface RateLimiter<T> {
  when(item: T): number;
  forget(item: T): void;
  numRequeues(item: T): number;
}

/** client-go's ItemExponentialFailureRateLimiter: base·2^n ms, at most max (defaults 5 ms and 1000 s as the controllers'). */
export class ItemExponentialRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();
  constructor(
    private readonly baseMs = 5,
    private readonly maxMs = 1_000_000,
  ) {}
  when(item: T): number {
    const n = this.failures.get(item) ?? 0;
    this.failures.set(item, n + 1);
    return Math.min(this.baseMs * 2 ** n, this.maxMs);
  }
  forget(item: T): void {
    this.failures.delete(item);
  }
  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

export class RateLimitingQueue<T = string> {
  private readonly queue: T[] = [];
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private readonly waiters: ((r: { item?: T; shutdown: boolean }) => void)[] = [];
  private readonly timers = new Map<T, { at: number; cancel: () => void }>();
  private shuttingDown = false;
  private readonly clock: Clock;
  private readonly limiter: RateLimiter<T>;

  constructor(opts: { clock?: Clock; rateLimiter?: RateLimiter<T>; name?: string } = {}) {
    this.clock = opts.clock ?? realClock;
    this.limiter = opts.rateLimiter ?? new ItemExponentialRateLimiter<T>();
  }

  add(item: T): void {
    if (this.shuttingDown || this.dirty.has(item)) return;
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.push(item);
  }

  /** Adds after ms; of several pending delays for one item the earliest wins (client-go's waitingForQueue). */
  addAfter(item: T, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(item);
    const at = this.clock.now() + ms;
    const prev = this.timers.get(item);
    if (prev && prev.at <= at) return;
    prev?.cancel();
    const cancel = this.clock.after(ms, () => {
      this.timers.delete(item);
      this.add(item);
    });
    this.timers.set(item, { at, cancel });
  }

  addRateLimited(item: T): void {
    this.addAfter(item, this.limiter.when(item));
  }

  forget(item: T): void {
    this.limiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.limiter.numRequeues(item);
  }

  /** The next item, or { shutdown: true } once the queue is shut down. Call done(item) when finished with it. */
  get(): Promise<{ item?: T; shutdown: boolean }> {
    if (this.queue.length) return Promise.resolve({ item: this.take(), shutdown: false });
    if (this.shuttingDown) return Promise.resolve({ shutdown: true });
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(item: T): void {
    this.processing.delete(item);
    if (this.dirty.has(item) && !this.shuttingDown) this.push(item);
  }

  len(): number {
    return this.queue.length;
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
    this.queue.length = 0;
    for (const w of this.waiters.splice(0)) w({ shutdown: true });
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  private push(item: T): void {
    const w = this.waiters.shift();
    if (w) {
      this.processing.add(item);
      this.dirty.delete(item);
      w({ item, shutdown: false });
    } else this.queue.push(item);
  }

  private take(): T {
    const item = this.queue.shift()!;
    this.processing.add(item);
    this.dirty.delete(item);
    return item;
  }
}

/**
 * Runs `workers` loops taking keys from the queue until it shuts down: a
 * successful sync forgets the key's failures, a thrown error re-queues it
 * rate-limited (client-go's processNextWorkItem). Resolves when all loops end.
 */
export async function runWorkers<T>(queue: RateLimitingQueue<T>, workers: number, sync: (item: T) => Promise<void>, onError?: (item: T, err: unknown) => void): Promise<void> {
  const loop = async (): Promise<void> => {
    for (;;) {
      const { item, shutdown } = await queue.get();
      if (shutdown) return;
      try {
        await sync(item as T);
        queue.forget(item as T);
      } catch (e) {
        onError?.(item as T, e);
        queue.addRateLimited(item as T);
      } finally {
        queue.done(item as T);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, workers) }, loop));
}

// One client's watch on the watch cache (kube's cacheWatcher): its initial
// events (the snapshot or window replay it started from), then the live
// changes the cache hands it, filtered by its predicate, then bookmarks.
//
// Back-pressure: the sink may return false ("backed up, not taken" — e.g. the
// HTTP response needs a drain); the event stays queued and delivery resumes
// when the sink calls resume() (or at the next retry). Live events queue up
// to `bufferSize`; a watcher whose queue stays above that for the dispatch
// timeout is closed (backlogLimit.ts, kube's "Forcing ... watcher close due
// to unresponsiveness"), so one slow client never holds the cache, the other
// watchers or the server's memory. The client sees its stream end and
// re-watches from its last resourceVersion.

import type { Predicate, WatchEvent, WatchSink, Watcher } from './interface';
import { BacklogLimit, DISPATCH_TIMEOUT_MS } from './backlogLimit';
import { bookmarkEvent, cloneEvent, toWatchEvent, type ObjectEvent } from './watchEvents';

export interface CacheWatcherOptions {
  /** Which keys the watch covers (its prefix, or one key). */
  scope: (key: string) => boolean;
  predicate?: Predicate;
  allowBookmarks: boolean;
  bookmarkType?: { apiVersion: string; kind: string };
  /** Live events that may wait for a backed-up sink; above that for dispatchTimeoutMs, the watcher is closed. */
  bufferSize: number;
  /** Default DISPATCH_TIMEOUT_MS. */
  dispatchTimeoutMs?: number;
  bookmarkIntervalMs: number;
  /** When the REST layer will end the watch (ms since epoch); the last bookmark goes 2 s before. */
  deadline?: number;
  /** The sink never changes what it gets (WatchOptions.shareObjects): hand it the cache's objects. */
  shareObjects?: boolean;
  now: () => number;
}

const RETRY_MS = 20;
/** kube sends the last bookmark this long before the watch's deadline. */
const DEADLINE_HEADROOM_MS = 2000;

export class CacheWatcher implements Watcher {
  readonly done: Promise<void>;
  /** Set when the watcher closed itself because its sink stayed backed up. */
  unresponsive: { queued: number } | undefined;
  private finish!: () => void;
  private initial: WatchEvent[] = [];
  private initialAt = 0;
  private readonly queue: WatchEvent[] = [];
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  /** Changes at or below this revision are already covered by the initial state. */
  private fromRV = 0n;
  /** The newest revision delivered (events or bookmarks). */
  private lastRV = 0n;
  private nextBookmarkAt: number;
  private readonly backlog: BacklogLimit;

  constructor(
    private readonly sink: WatchSink,
    private readonly opts: CacheWatcherOptions,
    private readonly onStop: (w: CacheWatcher) => void,
  ) {
    this.done = new Promise((r) => (this.finish = r));
    this.nextBookmarkAt = this.bookmarkTimeAfter(opts.now());
    this.backlog = new BacklogLimit(opts.bufferSize, opts.dispatchTimeoutMs ?? DISPATCH_TIMEOUT_MS, () => {
      this.unresponsive = { queued: this.queue.length };
      this.stop();
    });
  }

  /** True once stopped (by the client, an ERROR, or for falling behind). */
  get closed(): boolean {
    return this.stopped;
  }

  /** The starting point: initial events, and the revision live changes must exceed. */
  begin(initial: WatchEvent[], fromRV: bigint): void {
    this.initial = initial;
    this.fromRV = fromRV;
    this.lastRV = fromRV;
    this.flush();
  }

  /** A live change from the cache. */
  add(ev: ObjectEvent): void {
    if (this.stopped || ev.rev <= this.fromRV || !this.opts.scope(ev.key)) return;
    const out = toWatchEvent(ev, this.opts.predicate);
    if (!out) return;
    this.push(out);
  }

  /** Queues a BOOKMARK at rv if bookmarks are on and one is due (or `force`, for initial-events-end). */
  bookmark(rv: bigint, initialEventsEnd = false): void {
    if (this.stopped || !this.opts.allowBookmarks) return;
    if (!initialEventsEnd) {
      const now = this.opts.now();
      if (now < this.nextBookmarkAt || rv < this.lastRV) return;
      this.nextBookmarkAt = this.bookmarkTimeAfter(now);
    }
    this.push(bookmarkEvent(this.opts.bookmarkType, rv, initialEventsEnd));
  }

  /** The sink can take events again (its response drained): deliver now instead of at the next retry. */
  resume(): void {
    if (this.stopped || this.retry === undefined) return;
    clearTimeout(this.retry);
    this.flush();
  }

  /** Ends the watch with one ERROR event (e.g. 410 Expired). */
  fail(status: Record<string, unknown>): void {
    if (this.stopped) return;
    this.initial = [];
    this.queue.length = 0;
    this.sink({ type: 'ERROR', object: status });
    this.stop();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.retry);
    this.backlog.dispose();
    this.initial = [];
    this.queue.length = 0;
    this.onStop(this);
    this.finish();
  }

  private push(e: WatchEvent): void {
    this.queue.push(e);
    if (!this.retry) this.flush();
    else this.backlog.update(this.queue.length);
  }

  private flush(): void {
    this.retry = undefined;
    while (!this.stopped) {
      const fromInitial = this.initialAt < this.initial.length;
      const next = fromInitial ? this.initial[this.initialAt] : this.queue[0];
      if (!next) break;
      // Consumers may change what they get (unless they promised not to); the cache's objects stay intact.
      if (this.sink(next.type === 'BOOKMARK' || this.opts.shareObjects ? next : cloneEvent(next)) === false) {
        this.retry = setTimeout(() => this.flush(), RETRY_MS);
        this.backlog.update(this.queue.length);
        return;
      }
      if (fromInitial) {
        this.initialAt++;
        if (this.initialAt === this.initial.length) {
          this.initial = [];
          this.initialAt = 0;
        }
      } else this.queue.shift();
      const rv = (next.object as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
      if (rv && next.type !== 'ERROR' && BigInt(rv) > this.lastRV) this.lastRV = BigInt(rv);
    }
    this.backlog.update(this.queue.length);
  }

  private bookmarkTimeAfter(now: number): number {
    const regular = now + this.opts.bookmarkIntervalMs;
    if (this.opts.deadline === undefined) return regular;
    const lastBeat = this.opts.deadline - DEADLINE_HEADROOM_MS;
    return lastBeat > now ? Math.min(regular, lastBeat) : regular;
  }
}

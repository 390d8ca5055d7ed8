// The member's watchable store (etcd mvcc/watchable_store.go): watchers on
// top of the MVCC store, fed from the one place events fire (the store's
// onEvents, called when a write txn ends during apply).
//
// Two groups, as in etcd:
// - synced: caught up with the store; each new revision is matched against
//   them at once and handed to their stream. This runs inside apply, so it
//   only matches and enqueues — it never waits on a client.
// - unsynced: behind the store, because they started at an older revision,
//   because their stream was too full to take a revision (etcd's "victims";
//   here the revision is simply replayed from history later), or because a
//   snapshot restore replaced the store under them. A background loop
//   replays history to them in batches of ≤ watchBatchMaxRevs revisions and
//   moves each one to synced once it reaches the current revision. A
//   watcher whose next revision was compacted away gets the compaction
//   notice and is dropped.
//
// Survives snapshot restores: `reattach()` binds to the state machine's new
// store and sends every synced watcher through catch-up.

import type { MvccStore } from '../mvcc/store';
import type { MvccEvent, Revision } from '../mvcc/types';
import { eventsFor, WatcherGroup, type WatchFilters, type Watcher, type WatchSink } from './watcherGroup';

/** etcd's watchBatchMaxRevs. */
export const WATCH_BATCH_MAX_REVS = 1000;
/** etcd's syncWatchersLoop period while watchers are behind. */
const SYNC_INTERVAL_MS = 100;

/** Where the current store lives (the state machine, which replaces it on restore). */
export interface StoreSource {
  readonly store: MvccStore;
}

export interface WatchableStoreOptions {
  batchMaxRevs?: number;
  syncIntervalMs?: number;
}

export interface WatchSpec {
  id: number;
  key: Uint8Array;
  end: Uint8Array | null | undefined;
  /** Already resolved: 0 is not accepted here (the stream maps it to current+1). */
  startRev: Revision;
  filters: WatchFilters;
  sink: WatchSink;
}

export class WatchableStore {
  private readonly synced = new WatcherGroup();
  private readonly unsynced = new WatcherGroup();
  private attached: MvccStore | undefined;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private disposed = false;
  private readonly batchMaxRevs: number;
  private readonly syncIntervalMs: number;
  private readonly listener = (rev: Revision, events: MvccEvent[]) => this.notify(rev, events);
  /** Kept by the watch streams, for metrics (watchMetrics.ts). */
  readonly stats = { streams: 0, eventsSent: 0 };

  constructor(
    private readonly source: StoreSource,
    opts: WatchableStoreOptions = {},
  ) {
    this.batchMaxRevs = opts.batchMaxRevs ?? WATCH_BATCH_MAX_REVS;
    this.syncIntervalMs = opts.syncIntervalMs ?? SYNC_INTERVAL_MS;
    this.reattach();
  }

  get currentRevision(): Revision {
    return this.source.store.currentRevision;
  }

  /** Watchers per group (for tests and metrics). */
  get counts(): { synced: number; unsynced: number } {
    return { synced: this.synced.size, unsynced: this.unsynced.size };
  }

  /**
   * Binds to the source's current store if it changed (snapshot restore):
   * every synced watcher then catches up from the new store's history.
   */
  reattach(): void {
    const store = this.source.store;
    if (store === this.attached || this.disposed) return;
    const previous = this.attached;
    if (previous !== undefined && previous.onEvents === this.listener) previous.onEvents = undefined;
    store.onEvents = this.listener;
    this.attached = store;
    if (previous === undefined) return;
    // A synced watcher has seen every revision of the old store.
    const seen = previous.currentRevision;
    for (const w of this.synced.all()) {
      if (w.minRev <= seen) w.minRev = seen + 1;
      this.synced.delete(w);
      this.unsynced.add(w);
    }
    this.schedule(true);
  }

  /** etcd watchableStore.watch: synced when starting at or after current+1, else replayed first. */
  watch(spec: WatchSpec): Watcher {
    const cur = this.currentRevision;
    const w: Watcher = { id: spec.id, key: spec.key, end: spec.end, filters: spec.filters, minRev: spec.startRev, sink: spec.sink };
    if (spec.startRev > cur) {
      this.synced.add(w);
    } else {
      this.unsynced.add(w);
      this.schedule(true);
    }
    return w;
  }

  /** Removes the watcher; false if it was already gone (canceled or compacted). */
  cancel(w: Watcher): boolean {
    return this.synced.delete(w) || this.unsynced.delete(w);
  }

  isSynced(w: Watcher): boolean {
    return this.synced.has(w);
  }

  /** A stream that was full can take events again: catch up its watchers soon. */
  kick(): void {
    this.schedule(true);
  }

  dispose(): void {
    this.disposed = true;
    if (this.attached?.onEvents === this.listener) this.attached.onEvents = undefined;
    clearTimeout(this.timer);
    if (this.immediate !== undefined) clearImmediate(this.immediate);
    this.timer = this.immediate = undefined;
    for (const w of this.synced.all()) this.synced.delete(w);
    for (const w of this.unsynced.all()) this.unsynced.delete(w);
  }

  /** The store's onEvents: one revision's events, to every synced watcher that wants some. */
  private notify(rev: Revision, events: MvccEvent[]): void {
    if (this.synced.size === 0) return;
    let behind = false;
    for (const [w, evs] of this.synced.match(events)) {
      if (w.minRev > rev) continue;
      let taken = false;
      try {
        taken = w.sink.deliver(w, evs, rev);
      } catch {
        taken = false; // a broken stream must never fail the apply; it is retried or closed by its owner
      }
      if (taken) {
        w.minRev = rev + 1;
      } else {
        // minRev stays at rev: catch-up replays this revision from history
        this.synced.delete(w);
        this.unsynced.add(w);
        behind = true;
      }
    }
    if (behind) this.schedule(false);
  }

  /**
   * One round of etcd's syncWatchers: the unsynced watchers whose stream can
   * take more get the next batch of history. Returns whether anything moved.
   */
  syncOnce(): boolean {
    const store = this.source.store;
    const cur = store.currentRevision;
    const compactRev = store.compactRevision;
    let progressed = false;
    let minRev = Number.POSITIVE_INFINITY;
    const due: Watcher[] = [];
    for (const w of this.unsynced.all()) {
      if (!w.sink.ready()) continue;
      if (w.minRev > cur) {
        // restored under it, or caught up meanwhile: nothing to replay
        this.unsynced.delete(w);
        this.synced.add(w);
        progressed = true;
        continue;
      }
      if (w.minRev < compactRev) {
        this.unsynced.delete(w);
        w.sink.compacted(w, compactRev);
        progressed = true;
        continue;
      }
      due.push(w);
      if (w.minRev < minRev) minRev = w.minRev;
    }
    if (due.length === 0) return progressed;

    const batch = store.eventsBetween(minRev, cur, this.batchMaxRevs);
    const last = batch.length === this.batchMaxRevs ? batch[batch.length - 1]!.revision : cur;
    for (const w of due) {
      if (w.minRev > last) continue;
      const evs: MvccEvent[] = [];
      for (const group of batch) {
        if (group.revision >= w.minRev && group.revision <= last) evs.push(...eventsFor(w, group.events));
      }
      if (evs.length > 0 && !w.sink.deliver(w, evs, last)) continue;
      progressed = true;
      w.minRev = last + 1;
      if (last === cur) {
        this.unsynced.delete(w);
        this.synced.add(w);
      }
    }
    return progressed;
  }

  /** Runs catch-up soon (at once when asked), again every interval while watchers are behind. */
  private schedule(soon: boolean): void {
    if (this.disposed || this.unsynced.size === 0) return;
    if (soon && this.immediate === undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.immediate = setImmediate(() => {
        this.immediate = undefined;
        this.run();
      });
      this.immediate.unref();
      return;
    }
    if (this.timer !== undefined || this.immediate !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.run();
    }, this.syncIntervalMs);
    this.timer.unref();
  }

  private run(): void {
    if (this.disposed) return;
    // a revision not yet written by apply is never read here: everything runs on the one JS thread
    const progressed = this.syncOnce();
    this.schedule(progressed);
  }
}

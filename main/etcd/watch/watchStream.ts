// One client Watch stream (etcd's mvcc watchStream plus the per-stream state
// of v3rpc/watch.go serverWatchStream), free of gRPC: it turns create,
// cancel and progress requests into watchers on the watchable store and
// hands every response, in order, to `send`. The gRPC layer
// (api/watchService.ts) converts, fragments and writes them.
//
// Order on the stream: a watcher is registered and its `created` reply sent
// in one synchronous step, and events only ever arrive from later tasks
// (apply, catch-up), so `created` always precedes the watcher's events.

import { compareBytes } from '../mvcc/keyBytes';
import { EventType, type MvccEvent, type Revision } from '../mvcc/types';
import type { WatchableStore } from './watchableStore';
import type { WatchFilters, Watcher, WatchSink } from './watcherGroup';

/** etcd's mvcc.AutoWatchID: a create with watch_id 0 gets the next free id. */
export const AUTO_WATCH_ID = 0;
export const ERR_WATCHER_DUPLICATE_ID = 'mvcc: duplicate watch ID provided on the WatchStream';
export const ERR_EMPTY_WATCHER_RANGE = 'mvcc: watcher range is empty';
/** How often a deferred progress request checks whether every watcher caught up. */
const PROGRESS_RETRY_MS = 10;

/** etcdserverpb.WatchCreateRequest, decoded. */
export interface WatchCreate {
  key: Uint8Array;
  rangeEnd: Uint8Array;
  /** 0: current revision + 1. */
  startRevision: Revision;
  progressNotify: boolean;
  filters: WatchFilters;
  prevKv: boolean;
  /** 0: pick one. */
  watchId: number;
  fragment: boolean;
}

/** etcdserverpb.WatchResponse less the header, which carries `revision`. */
export interface WatchReply {
  watchId: number;
  /** header.revision. */
  revision: Revision;
  created?: boolean;
  canceled?: boolean;
  compactRevision?: Revision;
  cancelReason?: string;
  events: MvccEvent[];
  /** The watcher asked for fragmentation of large responses. */
  fragment?: boolean;
}

export interface WatchStreamOptions {
  /** Writes one reply; never throws. */
  send(reply: WatchReply): void;
  /** False while the transport is backed up: events wait in history instead. */
  writable(): boolean;
  /** etcd's --experimental-watch-progress-notify-interval (ms, default 10 min); 0 disables. */
  progressIntervalMs: number;
  /** Randomness for the ticker's jitter (injected for tests). */
  random?: () => number;
}

interface Entry {
  w: Watcher;
  prevKv: boolean;
  fragment: boolean;
  /** Only for progress_notify watchers: true when no events went out since the last tick. */
  progressDue?: boolean;
}

export class WatchStream implements WatchSink {
  private readonly entries = new Map<number, Entry>();
  private nextId = 0;
  private ticker: NodeJS.Timeout | undefined;
  private progressRequested = false;
  private progressRetry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly store: WatchableStore,
    private readonly opts: WatchStreamOptions,
  ) {
    store.stats.streams++;
  }

  /** The watch ids now active (for tests). */
  get ids(): number[] {
    return [...this.entries.keys()];
  }

  /** v3rpc recvLoop's create case followed by mvcc watchStream.Watch. */
  create(req: WatchCreate): void {
    const key = req.key.length === 0 ? new Uint8Array([0]) : req.key;
    const end =
      req.rangeEnd.length === 0 ? undefined : req.rangeEnd.length === 1 && req.rangeEnd[0] === 0 ? null : req.rangeEnd;
    const wsrev = this.store.currentRevision;
    const fail = (reason: string) =>
      this.opts.send({ watchId: -1, revision: wsrev, created: true, canceled: true, cancelReason: reason, events: [] });
    if (end instanceof Uint8Array && compareBytes(key, end) >= 0) return fail(ERR_EMPTY_WATCHER_RANGE);
    if (this.closed) return fail(ERR_EMPTY_WATCHER_RANGE);
    let id = req.watchId;
    if (id === AUTO_WATCH_ID) {
      while (this.entries.has(this.nextId)) this.nextId++;
      id = this.nextId++;
    } else if (this.entries.has(id)) {
      return fail(ERR_WATCHER_DUPLICATE_ID);
    }
    const startRev = req.startRevision === 0 ? wsrev + 1 : req.startRevision;
    const w = this.store.watch({ id, key, end, startRev, filters: req.filters, sink: this });
    const entry: Entry = { w, prevKv: req.prevKv, fragment: req.fragment };
    if (req.progressNotify) {
      entry.progressDue = true;
      this.startTicker();
    }
    this.entries.set(id, entry);
    this.opts.send({ watchId: id, revision: wsrev, created: true, events: [] });
  }

  /** Unknown ids are ignored, as etcd does (no reply). */
  cancel(id: number): void {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    this.store.cancel(entry.w);
    this.entries.delete(id);
    this.opts.send({ watchId: id, revision: this.store.currentRevision, canceled: true, events: [] });
  }

  /**
   * WatchProgressRequest: one empty reply with watch_id -1 and the current
   * revision, which clientv3 broadcasts to every watcher. As etcd does since
   * 3.4.31/3.5.13, the reply waits until every watcher on this stream is
   * synced: a reply while one is still replaying history would claim a
   * revision its events have not reached (the API server's consistent reads
   * from cache depend on this).
   */
  requestProgress(): void {
    this.progressRequested = true;
    this.answerProgressRequest();
  }

  private answerProgressRequest(): void {
    if (!this.progressRequested || this.closed) return;
    const allSynced = [...this.entries.values()].every((e) => this.store.isSynced(e.w));
    if (allSynced && this.ready()) {
      this.progressRequested = false;
      clearTimeout(this.progressRetry);
      this.progressRetry = undefined;
      this.opts.send({ watchId: -1, revision: this.store.currentRevision, events: [] });
      return;
    }
    // Catch-up runs on the store's schedule; look again shortly.
    this.progressRetry ??= setTimeout(() => {
      this.progressRetry = undefined;
      this.answerProgressRequest();
    }, PROGRESS_RETRY_MS);
  }

  /** The transport drained: replay what the watchers missed while it was full. */
  resume(): void {
    this.store.kick();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.store.stats.streams--;
    clearInterval(this.ticker);
    this.ticker = undefined;
    clearTimeout(this.progressRetry);
    this.progressRetry = undefined;
    for (const e of this.entries.values()) this.store.cancel(e.w);
    this.entries.clear();
  }

  // ---- WatchSink (called by the watchable store)

  ready(): boolean {
    return !this.closed && this.opts.writable();
  }

  deliver(w: Watcher, events: MvccEvent[], revision: Revision): boolean {
    const entry = this.entries.get(w.id);
    if (entry === undefined || entry.w !== w) return true; // canceled meanwhile: drop
    if (!this.ready()) return false;
    if (entry.progressDue !== undefined) entry.progressDue = false;
    this.store.stats.eventsSent += events.length;
    this.opts.send({
      watchId: w.id,
      revision,
      events: events.map((ev) => withPrevKv(ev, entry.prevKv)),
      fragment: entry.fragment,
    });
    return true;
  }

  compacted(w: Watcher, compactRevision: Revision): void {
    const entry = this.entries.get(w.id);
    if (entry === undefined || entry.w !== w) return;
    this.entries.delete(w.id);
    // etcd's compaction reply carries header revision 0
    this.opts.send({ watchId: w.id, revision: 0, canceled: true, compactRevision, events: [] });
  }

  // ---- progress_notify (etcd sendLoop's progressTicker)

  private startTicker(): void {
    if (this.ticker !== undefined || this.opts.progressIntervalMs <= 0) return;
    const base = this.opts.progressIntervalMs;
    // etcd GetProgressReportInterval: the interval plus up to 10% jitter
    const every = base + Math.floor((this.opts.random ?? Math.random)() * (base / 10));
    this.ticker = setInterval(() => this.tick(), every);
    this.ticker.unref();
  }

  /** One progress tick: a notification to each progress watcher that is synced and got no events. */
  tick(): void {
    for (const entry of this.entries.values()) {
      if (entry.progressDue === undefined) continue;
      if (entry.progressDue && this.store.isSynced(entry.w) && this.ready()) {
        this.opts.send({ watchId: entry.w.id, revision: this.store.currentRevision, events: [] });
      }
      entry.progressDue = true;
    }
  }
}

/** prev_kv only when asked for, and never on a create event (etcd's IsCreateEvent). */
function withPrevKv(ev: MvccEvent, wanted: boolean): MvccEvent {
  const isCreate = ev.type === EventType.Put && ev.kv.version === 1;
  if (wanted && !isCreate) return ev;
  if (ev.prevKv === undefined) return ev;
  return { type: ev.type, kv: ev.kv };
}

// The watch cache (kube's cacher + watchCache) for one resource prefix: it
// lists the prefix from etcd, then follows one etcd watch (prev_kv, progress
// notify) and keeps every object in a B-tree plus a window of recent changes.
// Writes go through to the etcd store; reads follow kube's RV rules (§4.1):
//   get   RV ""  → etcd            "0" → cache        "N" → cache once it has reached N
//   list  RV ""  → consistent: the cache once it has reached etcd's current
//                  revision (progress request), etcd if it cannot within 3 s
//         RV "0" → cache, limit ignored     "N" → cache once at N
//         Exact, legacy limit+N, continue → etcd
//   watch RV ""/"0" → the current state as ADDED, then changes; "N" → changes
//         after N from the window, or ERROR 410 "too old resource version"
// "Once at N" waits up to blockTimeoutMs, then TooLarge. Until the first list
// is in, reads and watches get Initializing (429), except limited lists
// without selectors, which go to etcd. If etcd compacts past the cache's
// watch, every watcher is closed and the cache relists.
//
// A value the store cannot read (encrypted with a key the server no longer
// has) fails the list, as in kube's reflector: the cache stays not ready and
// relists with a growing backoff until the value is fixed or deleted. So a
// LIST (limited, no selectors, as kubectl sends) reaches etcd and fails with
// kube's `unable to transform key ...` instead of silently leaving the
// object out; a change to such a value makes the cache relist the same way.

import BTreeImport from 'sorted-btree';
import type { KObject } from '../../kube/object';
import { expired, internalError, tooLargeResourceVersion as tooLargeStatus } from '../api/status';
import { WATCHER_BUFFER_SIZE } from './backlogLimit';
import { CacheWatcher } from './cacheWatcher';
import { initializing, keyNotFound, parseResourceVersion, tooLargeResourceVersion } from './errors';
import type { EtcdStore } from './etcdStore';
import { UnreadableValueError } from './rawWatch';
import type { EtcdWatch } from '../../client/etcd/etcdWatch';
import { listFromMemory } from './cacheList';
import { EventWindow } from './eventWindow';
import { RevisionBatcher } from './revisionBatcher';
import { StorageError, type CreateOptions, type GetOptions, type ListOptions, type ListResult, type Preconditions, type Storage, type UpdateFunc, type WatchEvent, type WatchOptions, type WatchSink, type Watcher } from './interface';
import { toWatchEvent, type ObjectEvent } from './watchEvents';
import { jsonCopy } from '../patch/jsonValue';

const BTree: typeof BTreeImport = (BTreeImport as unknown as { default?: typeof BTreeImport }).default ?? BTreeImport;

export interface WatchCacheOptions {
  store: EtcdStore;
  /** The resource's key prefix, e.g. "/registry/pods/". */
  prefix: string;
  /** Events kept for watches from an older RV (--watch-cache-sizes); default 10,000. */
  capacity?: number;
  /** kind/apiVersion of BOOKMARK events, e.g. { apiVersion: 'v1', kind: 'Pod' }. */
  bookmarkType?: { apiVersion: string; kind: string };
  /** Default 60 s (kube's defaultBookmarkFrequency). */
  bookmarkIntervalMs?: number;
  /** How long a read for a future RV waits (kube's blockTimeout, 3 s). */
  blockTimeoutMs?: number;
  /** Live events a backed-up watcher may owe (for the dispatch timeout, then it is closed); default WATCHER_BUFFER_SIZE. */
  watcherBufferSize?: number;
  /** Injected clock for bookmark timing. */
  clock?: { now(): number };
}

const DEFAULT_CAPACITY = 10_000;
const BOOKMARK_TICK_MAX_MS = 1000;
const PROGRESS_RETRY_MS = 200;
const RELIST_BACKOFF_MS = 500;
const RELIST_BACKOFF_MAX_MS = 30_000;

class FreshnessTimeout extends Error {}

export class WatchCache implements Storage {
  readonly prefix: string;
  private readonly store: EtcdStore;
  private objects = new BTree<string, KObject>();
  private readonly window: EventWindow;
  private readonly watchers = new Set<CacheWatcher>();
  private waiters: { rv: bigint; resolve: () => void }[] = [];
  private etcdWatch: EtcdWatch | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private relistTimer: NodeJS.Timeout | undefined;
  /** Delay before the next relist attempt after a failed one. */
  private relistBackoff = RELIST_BACKOFF_MS;
  /** Why the last list failed, when it failed on a value the store cannot read. */
  private unreadable: UnreadableValueError | undefined;
  private ready = false;
  private closed = false;
  /** The revision the cache reflects: last event or progress notification. */
  private rv = 0n;
  private lastProgressAsk = 0;
  /** Re-asks etcd for progress while any read waits for the cache to catch up. */
  private poke: NodeJS.Timeout | undefined;
  /** etcd's current revision for consistent reads, requests batched. */
  private readonly revisions: RevisionBatcher;
  private readonly now: () => number;
  /** Number of completed (re)lists, for tests and metrics. */
  lists = 0;

  constructor(private readonly opts: WatchCacheOptions) {
    this.store = opts.store;
    this.revisions = new RevisionBatcher(() => this.store.currentRevision());
    this.prefix = opts.prefix.endsWith('/') ? opts.prefix : `${opts.prefix}/`;
    this.window = new EventWindow(opts.capacity ?? DEFAULT_CAPACITY);
    this.now = opts.clock ? () => opts.clock!.now() : Date.now;
  }

  /**
   * Lists, then follows changes; resolves once the cache serves reads, or,
   * when a stored value cannot be read, once it has started retrying (the
   * server serves; this resource's cache stays not ready until then).
   */
  async start(): Promise<void> {
    try {
      await this.relist();
    } catch (e) {
      if (!(e instanceof UnreadableValueError)) throw e;
      this.restart();
    }
    const tick = Math.min(BOOKMARK_TICK_MAX_MS, Math.max(10, Math.floor(this.bookmarkInterval / 4)));
    this.ticker ??= setInterval(() => this.sendBookmarks(), tick);
  }

  get isReady(): boolean {
    return this.ready;
  }

  /**
   * For /readyz: the cache is ready, or it cannot become ready until someone
   * fixes an unreadable value. kube's readiness does not wait on its caches
   * either; the requests this cache would serve get kube's errors meanwhile.
   */
  get settled(): boolean {
    return this.ready || this.unreadable !== undefined;
  }

  /** Open watches served by this cache. */
  get watcherCount(): number {
    return this.watchers.size;
  }

  /** The revision the cache has caught up to. */
  get resourceVersion(): bigint {
    return this.rv;
  }

  private get bookmarkInterval(): number {
    return this.opts.bookmarkIntervalMs ?? 60_000;
  }

  private get blockTimeout(): number {
    return this.opts.blockTimeoutMs ?? 3000;
  }

  private async relist(): Promise<void> {
    this.ready = false;
    this.etcdWatch?.cancel();
    let list: Awaited<ReturnType<EtcdStore['listWithKeys']>>;
    try {
      list = await this.store.listWithKeys(this.prefix);
    } catch (e) {
      if (e instanceof UnreadableValueError) this.unreadable = e;
      throw e;
    }
    this.unreadable = undefined;
    if (this.closed) return;
    const objects = new BTree<string, KObject>();
    for (const { key, obj } of list.entries) objects.set(key, obj);
    this.objects = objects;
    this.rv = list.revision;
    this.window.reset(this.rv);
    this.etcdWatch = this.store.watchRaw(this.prefix, this.rv + 1n, {
      onEvents: (events) => this.apply(events),
      onProgress: (rev) => this.advance(rev),
      onCompacted: () => this.restart(),
      onError: () => this.restart(),
      onUnreadable: () => this.restart(),
      holdsPrevious: true,
    });
    this.lists++;
    this.relistBackoff = RELIST_BACKOFF_MS;
    this.ready = true;
    this.wakeWaiters();
  }

  /** The cache's watch broke for good: close every watcher (they re-watch) and relist. */
  private restart(): void {
    this.ready = false;
    this.etcdWatch?.cancel();
    for (const w of [...this.watchers]) w.stop();
    if (this.closed || this.relistTimer) return;
    const again = () => {
      this.relistTimer = undefined;
      if (this.closed) return;
      this.relist().catch(() => {
        if (this.closed) return;
        this.relistTimer = setTimeout(again, this.relistBackoff);
        this.relistBackoff = Math.min(this.relistBackoff * 2, RELIST_BACKOFF_MAX_MS);
      });
    };
    this.relistTimer = setTimeout(again, 0);
  }

  private apply(events: ObjectEvent[]): void {
    for (const ev of events) {
      if (ev.decodePrev) {
        // etcd's prev_kv is what the cache holds for the key (the watch is
        // gapless from the list), stamped with the event's revision.
        const held = this.objects.get(ev.key);
        ev.prevObj = held ? { ...held, metadata: { ...held.metadata, resourceVersion: ev.rev.toString() } } : ev.decodePrev();
        ev.decodePrev = undefined;
      }
      if (ev.type === 'PUT') this.objects.set(ev.key, ev.obj!);
      else this.objects.delete(ev.key);
      this.window.push(ev);
      if (ev.rev > this.rv) this.rv = ev.rev;
      for (const w of this.watchers) w.add(ev);
    }
    this.wakeWaiters();
  }

  private advance(rev: bigint): void {
    if (rev <= this.rv) return;
    this.rv = rev;
    this.wakeWaiters();
  }

  private wakeWaiters(): void {
    if (!this.ready) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) (w.rv <= this.rv ? w.resolve() : still.push(w));
    this.waiters = still;
  }

  /** Resolves once the cache has reached rv; FreshnessTimeout after blockTimeoutMs. */
  private async waitUntilFresh(rv: bigint): Promise<void> {
    if (this.ready && this.rv >= rv) return;
    let resolve!: () => void;
    const reached = new Promise<void>((r) => (resolve = r));
    const waiter = { rv, resolve };
    this.waiters.push(waiter);
    // Events for this prefix may never come; a progress reply moves rv anyway.
    // One retry timer serves every waiter (many concurrent consistent reads
    // would otherwise each poke etcd every PROGRESS_RETRY_MS).
    this.etcdWatch?.requestProgress();
    this.poke ??= setInterval(() => this.etcdWatch?.requestProgress(), PROGRESS_RETRY_MS);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new FreshnessTimeout()), this.blockTimeout)));
    try {
      await Promise.race([reached, timeout]);
    } finally {
      clearTimeout(timer);
      this.waiters = this.waiters.filter((w) => w !== waiter);
      if (this.waiters.length === 0) this.stopPoking();
    }
  }

  private stopPoking(): void {
    clearInterval(this.poke);
    this.poke = undefined;
  }

  private async waitOrTooLarge(rv: bigint, key: string): Promise<void> {
    try {
      await this.waitUntilFresh(rv);
    } catch (e) {
      if (e instanceof FreshnessTimeout) throw tooLargeResourceVersion(key, rv, this.rv);
      throw e;
    }
  }

  // ---- writes: straight to etcd

  create(key: string, obj: KObject, opts?: CreateOptions): Promise<KObject> {
    return this.store.create(key, obj, opts);
  }

  // Updates and deletes start from the cached copy, as kube's cacher passes
  // it down: one etcd round trip instead of a read and a txn when the copy
  // is current; the store reads etcd whenever the copy may be stale.
  guaranteedUpdate(key: string, preconditions: Preconditions | undefined, tryUpdate: UpdateFunc, opts?: CreateOptions): Promise<KObject> {
    return this.store.guaranteedUpdate(key, preconditions, tryUpdate, opts, this.cachedCopy(key));
  }

  delete(key: string, preconditions?: Preconditions, validate?: (current: KObject) => void | Promise<void>): Promise<KObject> {
    return this.store.delete(key, preconditions, validate, this.cachedCopy(key));
  }

  private cachedCopy(key: string): KObject | undefined {
    return this.ready ? this.objects.get(key) : undefined;
  }

  currentRevision(): Promise<bigint> {
    return this.store.currentRevision();
  }

  // ---- reads

  async get(key: string, opts: GetOptions = {}): Promise<KObject> {
    if (!opts.resourceVersion || !this.ready) return this.store.get(key, opts);
    const rv = parseResourceVersion(opts.resourceVersion);
    if (rv > 0n) await this.waitOrTooLarge(rv, key);
    const obj = this.objects.get(key);
    if (!obj) throw keyNotFound(key, this.rv);
    return opts.shareObject ? obj : jsonCopy(obj);
  }

  async getList(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const limited = (opts.limit ?? 0) > 0;
    const rvText = opts.resourceVersion ?? '';
    const delegate =
      opts.resourceVersionMatch === 'Exact' ||
      (opts.resourceVersionMatch === undefined && limited && rvText !== '' && rvText !== '0') ||
      Boolean(opts.continue);
    if (delegate) return this.store.getList(prefix, opts);
    if (!this.ready) {
      if (limited && !opts.predicate) return this.store.getList(prefix, opts);
      throw initializing(prefix);
    }
    if (rvText === '') {
      // Consistent read: serve from memory once the cache has seen etcd's current revision.
      const current = await this.revisions.current();
      try {
        await this.waitUntilFresh(current);
      } catch (e) {
        if (e instanceof FreshnessTimeout) return this.store.getList(prefix, opts);
        throw e;
      }
    } else if (rvText !== '0') {
      await this.waitOrTooLarge(parseResourceVersion(rvText), prefix);
    }
    return listFromMemory(this.objects, this.rv, prefix, opts, rvText === '0' ? 0 : (opts.limit ?? 0));
  }

  // ---- watch

  watch(prefix: string, opts: WatchOptions, sink: WatchSink): Watcher {
    if (!this.ready) throw initializing(prefix);
    const rv = parseResourceVersion(opts.resourceVersion);
    const inScope = scopeOf(prefix);
    const w = new CacheWatcher(
      sink,
      {
        scope: inScope,
        predicate: opts.predicate,
        allowBookmarks: opts.allowWatchBookmarks === true,
        bookmarkType: opts.bookmarkType ?? this.opts.bookmarkType,
        bufferSize: this.opts.watcherBufferSize ?? WATCHER_BUFFER_SIZE,
        bookmarkIntervalMs: this.bookmarkInterval,
        deadline: opts.timeoutSeconds ? this.now() + opts.timeoutSeconds * 1000 : undefined,
        now: this.now,
        shareObjects: opts.shareObjects,
      },
      (x) => this.watchers.delete(x),
    );
    const initial = opts.sendInitialEvents ?? rv === 0n;
    if (!initial) {
      let replay: ObjectEvent[] = [];
      if (rv > 0n) {
        try {
          replay = this.window.since(rv, prefix);
        } catch (e) {
          if (e instanceof StorageError && e.code === 'Expired') {
            queueMicrotask(() => w.fail(expired(e.message).status as unknown as Record<string, unknown>));
            return w;
          }
          throw e;
        }
      }
      const events: WatchEvent[] = [];
      for (const ev of replay) {
        const out = inScope(ev.key) ? toWatchEvent(ev, opts.predicate) : undefined;
        if (out) events.push(out);
      }
      this.watchers.add(w);
      w.begin(events, rv > 0n ? (rv > this.rv ? rv : this.rv) : this.rv);
      return w;
    }
    // Initial state: for RV "" (with sendInitialEvents) it must be consistent, for "N" at least N.
    const needed = opts.sendInitialEvents && !opts.resourceVersion ? undefined : rv;
    void (async () => {
      try {
        if (needed === undefined) await this.waitUntilFresh(await this.revisions.current());
        else if (needed > 0n) await this.waitOrTooLarge(needed, prefix);
      } catch (e) {
        const status = e instanceof StorageError && e.code === 'ResourceVersionTooLarge' ? tooLargeStatus(e.revisions!.requested!, e.revisions!.current!) : internalError(e);
        w.fail(status.status as unknown as Record<string, unknown>);
        return;
      }
      if (w.closed) return; // the client went away while we waited
      if (!this.ready) return w.stop();
      // Snapshot and registration happen in one synchronous step: no change can slip between them.
      const events: WatchEvent[] = [];
      for (const [key, obj] of this.objects.entries(prefix)) {
        if (!key.startsWith(prefix)) break;
        if (inScope(key) && (!opts.predicate || opts.predicate(obj))) events.push({ type: 'ADDED', object: obj });
      }
      this.watchers.add(w);
      w.begin(events, this.rv);
      if (opts.sendInitialEvents) w.bookmark(this.rv, true);
    })();
    return w;
  }

  private sendBookmarks(): void {
    if (!this.ready || this.watchers.size === 0) return;
    for (const w of this.watchers) w.bookmark(this.rv);
    // Keep rv moving when this prefix is quiet, so bookmarks carry news —
    // twice per bookmark interval is enough, and spares etcd.
    const now = this.now();
    if (now - this.lastProgressAsk >= this.bookmarkInterval / 2) {
      this.lastProgressAsk = now;
      this.etcdWatch?.requestProgress();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.ticker);
    clearTimeout(this.relistTimer);
    this.stopPoking();
    this.etcdWatch?.cancel();
    for (const w of [...this.watchers]) w.stop();
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }
}

/** Which keys a watch on prefix covers: a '/'-terminated prefix, or one exact key. */
function scopeOf(prefix: string): (key: string) => boolean {
  return prefix.endsWith('/') ? (key) => key.startsWith(prefix) : (key) => key === prefix;
}

// A shared index informer, as client-go's: list, then watch from the list's
// resourceVersion with bookmarks; a 410 Gone (as an answer or as an ERROR
// event inside the stream) means our resourceVersion was compacted away, so
// we list again and tell the handlers only what changed; any other break
// re-watches from the last resourceVersion seen (bookmarks keep it fresh)
// after a bounded backoff. A periodic resync replays every cached object to
// the update handlers so level-driven controllers retry what they missed.
//
// Objects are the API server's JSON untouched (timestamps are strings).
// Invariants:
//   1. The cache holds, per key, the newest object any event or list gave us.
//   2. Handlers see add before update before delete for a key, in stream order.
//   3. hasSynced() turns true after the first complete list and stays true.

import { type Clock, realClock, sleep } from './clock';
import { ApiError, type Query, type RestClient, type WatchEvent } from './rest';
import { collectionPath, type ResourceRef } from './resources';

export interface ObjectMetaLike {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  deletionTimestamp?: string;
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[];
}

/** Any Kubernetes object as JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMetaLike;
  [field: string]: unknown;
}

/** `namespace/name`, or `name` for cluster-scoped objects (client-go's MetaNamespaceKeyFunc). */
export function objectKey(obj: KubeObject): string {
  const m = obj.metadata ?? {};
  return m.namespace ? `${m.namespace}/${m.name}` : (m.name ?? '');
}

export function splitKey(key: string): { namespace?: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

export interface EventHandlers<T extends KubeObject> {
  add?(obj: T): void;
  update?(oldObj: T, newObj: T): void;
  /** The last state we knew of (a relist may miss the final one). */
  delete?(obj: T): void;
}

export type IndexFunc = (obj: KubeObject) => string[];

/** The indexes every informer keeps. */
export const INDEX_NAMESPACE = 'namespace';
export const INDEX_NODE_NAME = 'spec.nodeName';
export const INDEX_OWNER_UID = 'ownerUid';
export const DEFAULT_INDEXERS: Record<string, IndexFunc> = {
  [INDEX_NAMESPACE]: (o) => (o.metadata?.namespace ? [o.metadata.namespace] : []),
  [INDEX_NODE_NAME]: (o) => {
    const n = (o.spec as { nodeName?: string } | undefined)?.nodeName;
    return n ? [n] : [];
  },
  [INDEX_OWNER_UID]: (o) => (o.metadata?.ownerReferences ?? []).map((r) => r.uid),
};

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
}

/** How an informer reaches the server; a fake one drives the unit tests. */
export interface ListerWatcher {
  /** A full list; signal aborts it (the informer is stopping), rejecting with the abort error. */
  list(signal?: AbortSignal): Promise<ListResult>;
  /** Watch from resourceVersion; resolves with the error that ended it (ApiError 410 when too old), undefined when it just closed. */
  watch(resourceVersion: string, onEvent: (e: WatchEvent) => void, signal: AbortSignal): Promise<Error | undefined>;
}

export interface ListWatchOptions {
  namespace?: string;
  fieldSelector?: string;
  labelSelector?: string;
  /** Page size of the list (client-go's pager uses 500). */
  pageSize?: number;
}

/** A ListerWatcher over the REST client: paged list, watch with allowWatchBookmarks and a 5–10 min timeout. */
export function restListerWatcher(rest: RestClient, resource: ResourceRef, opts: ListWatchOptions = {}): ListerWatcher {
  const path = collectionPath(resource, opts.namespace);
  const sel: Query = { fieldSelector: opts.fieldSelector, labelSelector: opts.labelSelector };
  return {
    async list(signal) {
      const items: KubeObject[] = [];
      let cont: string | undefined;
      let rv = '';
      for (let page = 0; page < 100_000; page++) {
        const res = await rest.request<{ items?: KubeObject[]; metadata?: { resourceVersion?: string; continue?: string } }>('GET', path, {
          query: { ...sel, limit: opts.pageSize ?? 500, continue: cont },
          signal,
        });
        const kind = resource.kind;
        const apiVersion = resource.group ? `${resource.group}/${resource.version}` : resource.version;
        for (const it of res.items ?? []) items.push({ apiVersion, kind, ...it });
        rv = res.metadata?.resourceVersion ?? rv;
        cont = res.metadata?.continue || undefined;
        if (!cont) break;
      }
      return { items, resourceVersion: rv };
    },
    watch(resourceVersion, onEvent, signal) {
      const h = rest.watch(path, { ...sel, resourceVersion, allowWatchBookmarks: true, timeoutSeconds: 300 + Math.floor(Math.random() * 300) }, onEvent);
      signal.addEventListener('abort', () => h.stop(), { once: true });
      return h.closed;
    },
  };
}

export interface InformerOptions {
  /** 0 = never. */
  resyncMs?: number;
  clock?: Clock;
  indexers?: Record<string, IndexFunc>;
  /** Called on list/watch failures (they are retried). */
  onError?(err: Error): void;
}

export class SharedIndexInformer<T extends KubeObject = KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private readonly handlers: EventHandlers<T>[] = [];
  private readonly indexers: Record<string, IndexFunc>;
  private readonly clock: Clock;
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private rv = '';
  private started = false;
  /** How many full lists ran (1 + relists); for tests and metrics. */
  listCount = 0;

  constructor(
    private readonly lw: ListerWatcher,
    private readonly opts: InformerOptions = {},
  ) {
    this.clock = opts.clock ?? realClock;
    this.indexers = { ...DEFAULT_INDEXERS, ...opts.indexers };
    for (const name of Object.keys(this.indexers)) this.indices.set(name, new Map());
  }

  /** Handlers added after sync get an add for every cached object first, as client-go does. */
  addEventHandler(h: EventHandlers<T>): void {
    this.handlers.push(h);
    if (this.synced) for (const o of this.items.values()) h.add?.(o);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves true once synced, false if signal aborts first. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      // the stop listener goes once synced: a long-lived signal would otherwise keep one per call
      const stopped = (): void => resolve(false);
      const done = (): void => {
        signal?.removeEventListener('abort', stopped);
        resolve(true);
      };
      this.syncWaiters.push(done);
      signal?.addEventListener('abort', stopped, { once: true });
    });
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }
  getByName(namespace: string | undefined, name: string): T | undefined {
    return this.items.get(namespace ? `${namespace}/${name}` : name);
  }
  list(): T[] {
    return [...this.items.values()];
  }
  keys(): string[] {
    return [...this.items.keys()];
  }
  /** Objects whose index `indexName` yields `value` (e.g. byIndex(INDEX_NODE_NAME, 'node-1')). */
  byIndex(indexName: string, value: string): T[] {
    const keys = this.indices.get(indexName)?.get(value);
    if (!keys) return [];
    return [...keys].map((k) => this.items.get(k)!).filter(Boolean);
  }
  lastResourceVersion(): string {
    return this.rv;
  }

  /** Runs until signal aborts. Call once (the factory does). */
  async run(signal: AbortSignal): Promise<void> {
    if (this.started) return;
    this.started = true;
    let resyncCancel = (): void => {};
    const resync = (): void => {
      for (const o of this.items.values()) for (const h of this.handlers) h.update?.(o, o);
      resyncCancel = this.clock.after(this.opts.resyncMs!, resync);
    };
    if (this.opts.resyncMs) resyncCancel = this.clock.after(this.opts.resyncMs, resync);
    let backoff = 0;
    let needList = true;
    try {
      for (let round = 0; !signal.aborted && round < Number.MAX_SAFE_INTEGER; round++) {
        if (backoff) await sleep(this.clock, backoff, signal);
        if (signal.aborted) break;
        if (needList) {
          try {
            // Abortable: a list stuck on a server that never answers must not keep stopped() from resolving.
            const res = await this.lw.list(signal);
            this.listCount++;
            this.replace(res.items as T[], res.resourceVersion);
            needList = false;
          } catch (e) {
            if (signal.aborted) break;
            this.opts.onError?.(e as Error);
            backoff = nextBackoff(backoff);
            continue;
          }
        }
        let gone = false;
        let errored = false;
        // An ERROR event ends this watch at once (client-go's watchHandler), whether or not the server closes the stream.
        const watchCtl = new AbortController();
        const stopWatch = (): void => watchCtl.abort();
        signal.addEventListener('abort', stopWatch, { once: true });
        const ended = await this.lw.watch(
          this.rv,
          (ev) => {
            if (watchCtl.signal.aborted) return;
            if (ev.type === 'ERROR') {
              if ((ev.object as { code?: number }).code === 410) gone = true;
              else {
                errored = true;
                this.opts.onError?.(new ApiError(Number((ev.object as { code?: number }).code ?? 500), ev.object));
              }
              watchCtl.abort();
              return;
            }
            this.apply(ev);
          },
          watchCtl.signal,
        );
        signal.removeEventListener('abort', stopWatch);
        if (signal.aborted) break;
        if (gone || (ended instanceof ApiError && ended.status === 410)) {
          needList = true;
          backoff = 0;
        } else if (ended || errored) {
          if (ended) this.opts.onError?.(ended);
          backoff = nextBackoff(backoff);
        } else {
          backoff = 0;
        }
      }
    } finally {
      resyncCancel();
    }
  }

  private apply(ev: WatchEvent): void {
    const obj = ev.object as T;
    const rv = obj.metadata?.resourceVersion;
    if (ev.type === 'BOOKMARK') {
      if (rv) this.rv = rv;
      return;
    }
    if (rv) this.rv = rv;
    const key = objectKey(obj);
    const old = this.items.get(key);
    if (ev.type === 'DELETED') {
      if (!old) return;
      this.remove(key, old);
      for (const h of this.handlers) h.delete?.(obj);
      return;
    }
    this.put(key, obj, old);
    for (const h of this.handlers) old ? h.update?.(old, obj) : h.add?.(obj);
  }

  /** A fresh list: adds, updates (when resourceVersion moved) and deletes for what vanished. */
  private replace(items: T[], rv: string): void {
    const seen = new Set<string>();
    const changes: (() => void)[] = [];
    for (const obj of items) {
      const key = objectKey(obj);
      seen.add(key);
      const old = this.items.get(key);
      this.put(key, obj, old);
      if (!old) changes.push(() => this.handlers.forEach((h) => h.add?.(obj)));
      else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) changes.push(() => this.handlers.forEach((h) => h.update?.(old, obj)));
    }
    for (const [key, old] of [...this.items]) {
      if (seen.has(key)) continue;
      this.remove(key, old);
      changes.push(() => this.handlers.forEach((h) => h.delete?.(old)));
    }
    this.rv = rv;
    for (const c of changes) c();
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  private put(key: string, obj: T, old: T | undefined): void {
    if (old) this.unindex(key, old);
    this.items.set(key, obj);
    for (const [name, fn] of Object.entries(this.indexers)) {
      const idx = this.indices.get(name)!;
      for (const v of fn(obj)) {
        let s = idx.get(v);
        if (!s) idx.set(v, (s = new Set()));
        s.add(key);
      }
    }
  }

  private remove(key: string, old: T): void {
    this.unindex(key, old);
    this.items.delete(key);
  }

  private unindex(key: string, old: T): void {
    for (const [name, fn] of Object.entries(this.indexers)) {
      const idx = this.indices.get(name)!;
      for (const v of fn(old)) {
        const s = idx.get(v);
        s?.delete(key);
        if (s && s.size === 0) idx.delete(v);
      }
    }
  }
}

function nextBackoff(prev: number): number {
  return prev ? Math.min(prev * 2, 30_000) : 800;
}

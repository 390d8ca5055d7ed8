// An in-memory copy of one served resource, kept by a watch on its watch
// cache — the API server's equivalent of the informer listers kube's RBAC
// and Node authorizers read. Each object is turned into a compact entry once
// (rules normalised, subjects parsed), so an authorization check reads
// ready-made maps and never lists storage.
//
// The watch starts lazily (authorizers are built before the caches have
// listed) with sendInitialEvents, so `ready()` resolves at the
// initial-events-end bookmark: a check never runs against a half-filled
// copy. If the watch ends (cache relist, overflow) it is reopened after a
// short delay and the copy replaced wholesale at the next initial-events-end.

import type { KObject } from '../../kube/object';
import type { Storage, Watcher } from '../storage/interface';

export interface MirrorOptions<T> {
  storage: () => Storage;
  /** The resource's etcd prefix, ending with '/'. */
  prefix: string;
  toEntry(obj: KObject): T;
  /** Called after every change (add, update, delete, or a full reload). */
  onChange?(): void;
  log?(line: string): void;
  /** Delay before reopening an ended watch. */
  retryMs?: number;
}

/** Key of an object in a mirror: "namespace/name" ("/name" for cluster-scoped). */
export const mirrorKey = (namespace: string | undefined, name: string): string => `${namespace ?? ''}/${name}`;

export class WatchMirror<T> {
  private entries = new Map<string, T>();
  private watcher: Watcher | undefined;
  private readyPromise: Promise<void> | undefined;
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Bumped on every change: lets callers cache derived data. */
  generation = 0;

  constructor(private readonly opts: MirrorOptions<T>) {}

  /** Starts the watch on first use; resolves once the first full state is in. */
  ready(): Promise<void> {
    this.readyPromise ??= new Promise<void>((resolve, reject) => this.open(resolve, reject));
    return this.readyPromise;
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.entries.get(mirrorKey(namespace, name));
  }

  values(): IterableIterator<T> {
    return this.entries.values();
  }

  get size(): number {
    return this.entries.size;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.watcher?.stop();
  }

  private open(onReady: () => void, onFail: (e: unknown) => void): void {
    if (this.closed) return;
    // A reopened watch fills a fresh map and swaps it in at initial-events-end, so readers never see a partial state.
    let filling: Map<string, T> | undefined = new Map();
    const apply = (map: Map<string, T>, type: string, obj: KObject): void => {
      const key = mirrorKey(obj.metadata?.namespace, obj.metadata?.name ?? '');
      if (type === 'DELETED') map.delete(key);
      else map.set(key, this.opts.toEntry(obj));
    };
    try {
      this.watcher = this.opts.storage().watch(this.opts.prefix, { resourceVersion: '', sendInitialEvents: true, allowWatchBookmarks: true }, (ev) => {
        const obj = ev.object as KObject;
        if (ev.type === 'BOOKMARK') {
          if (filling && obj.metadata?.annotations?.['k8s.io/initial-events-end'] === 'true') {
            this.entries = filling;
            filling = undefined;
            this.changed();
            onReady();
          }
          return;
        }
        if (ev.type === 'ERROR') return;
        if (filling) apply(filling, ev.type, obj);
        else {
          apply(this.entries, ev.type, obj);
          this.changed();
        }
      });
    } catch (err) {
      this.opts.log?.(`rbac: watch of ${this.opts.prefix} failed to open: ${err instanceof Error ? err.message : String(err)}`);
      this.retry(onReady, onFail);
      return;
    }
    void this.watcher.done.then(() => this.retry(onReady, onFail));
  }

  private retry(onReady: () => void, onFail: (e: unknown) => void): void {
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(onReady, onFail), this.opts.retryMs ?? 500);
    this.retryTimer.unref?.();
  }

  private changed(): void {
    this.generation++;
    this.opts.onChange?.();
  }
}

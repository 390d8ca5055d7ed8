// A set of watchers and the question "who wants an event on this key?"
// (etcd's mvcc/watcher_group.go). Single-key watchers are found through a
// map by key; range watchers by a scan (etcd uses an interval tree; the
// number of range watchers per member is small here).

import { compareBytes, toKeyString } from '../mvcc/keyBytes';
import { EventType, type MvccEvent, type Revision } from '../mvcc/types';

/** etcd's mvcc.FilterFunc inputs: which event types a watcher drops. */
export interface WatchFilters {
  noPut: boolean;
  noDelete: boolean;
}

/**
 * One watcher (etcd mvcc.watcher). Invariants:
 * 1. `minRev` is the next revision the watcher has not been sent; every
 *    revision below it that matched was sent, in order, once.
 * 2. It is in exactly one of the store's groups (synced, unsynced) until it
 *    is canceled or compacted, then in none.
 */
export interface Watcher {
  readonly id: number;
  readonly key: Uint8Array;
  /** undefined: just `key`; null: every key ≥ key; else [key, end). */
  readonly end: Uint8Array | null | undefined;
  readonly filters: WatchFilters;
  minRev: Revision;
  readonly sink: WatchSink;
}

/** What the watchable store hands a watcher's events to (a watch stream). */
export interface WatchSink {
  /**
   * Delivers events (all of one or more whole revisions, oldest first) for
   * watcher `w`, served at `revision`. Returns false when the stream is too
   * far behind to take them; the store then replays them from history later.
   */
  deliver(w: Watcher, events: MvccEvent[], revision: Revision): boolean;
  /** The watcher's start revision was compacted away; it is removed from the store. */
  compacted(w: Watcher, compactRevision: Revision): void;
  /** False while the stream cannot take more (catch-up skips it). */
  ready(): boolean;
}

export function watcherMatches(w: Watcher, key: Uint8Array): boolean {
  if (w.end === undefined) return compareBytes(key, w.key) === 0;
  if (compareBytes(key, w.key) < 0) return false;
  return w.end === null || compareBytes(key, w.end) < 0;
}

/** The events of `events` that `w` watches and does not filter out, in order. */
export function eventsFor(w: Watcher, events: MvccEvent[]): MvccEvent[] {
  const out: MvccEvent[] = [];
  for (const ev of events) {
    if (!watcherMatches(w, ev.kv.key)) continue;
    if (ev.type === EventType.Put ? w.filters.noPut : w.filters.noDelete) continue;
    out.push(ev);
  }
  return out;
}

export class WatcherGroup {
  private readonly byKey = new Map<string, Set<Watcher>>();
  private readonly ranges = new Set<Watcher>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  has(w: Watcher): boolean {
    if (w.end !== undefined) return this.ranges.has(w);
    return this.byKey.get(toKeyString(w.key))?.has(w) ?? false;
  }

  add(w: Watcher): void {
    if (this.has(w)) return;
    this.count++;
    if (w.end !== undefined) {
      this.ranges.add(w);
      return;
    }
    const k = toKeyString(w.key);
    let set = this.byKey.get(k);
    if (set === undefined) this.byKey.set(k, (set = new Set()));
    set.add(w);
  }

  delete(w: Watcher): boolean {
    let removed: boolean;
    if (w.end !== undefined) {
      removed = this.ranges.delete(w);
    } else {
      const k = toKeyString(w.key);
      const set = this.byKey.get(k);
      removed = set?.delete(w) ?? false;
      if (set !== undefined && set.size === 0) this.byKey.delete(k);
    }
    if (removed) this.count--;
    return removed;
  }

  /** Every watcher, in no particular order (a copy: callers may move watchers). */
  all(): Watcher[] {
    const out: Watcher[] = [...this.ranges];
    for (const set of this.byKey.values()) out.push(...set);
    return out;
  }

  /** The watchers with events among `events` (key matches, after filters), each with them in order. */
  match(events: MvccEvent[]): Map<Watcher, MvccEvent[]> {
    const out = new Map<Watcher, MvccEvent[]>();
    const push = (w: Watcher, ev: MvccEvent) => {
      if (ev.type === EventType.Put ? w.filters.noPut : w.filters.noDelete) return;
      const list = out.get(w);
      if (list === undefined) out.set(w, [ev]);
      else list.push(ev);
    };
    for (const ev of events) {
      const exact = this.byKey.get(toKeyString(ev.kv.key));
      if (exact !== undefined) for (const w of exact) push(w, ev);
      for (const w of this.ranges) if (watcherMatches(w, ev.kv.key)) push(w, ev);
    }
    return out;
  }
}

// The watchable store and one watch stream, driven in-process against a real
// MvccStore: what a client sees, reply by reply.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { MvccStore } from '../../../../main/etcd/mvcc/index';
import { EventType } from '../../../../main/etcd/mvcc/types';
import { WatchableStore } from '../../../../main/etcd/watch/watchableStore';
import {
  ERR_EMPTY_WATCHER_RANGE,
  ERR_WATCHER_DUPLICATE_ID,
  WatchStream,
  type WatchCreate,
  type WatchReply,
} from '../../../../main/etcd/watch/watchStream';
import { b, s } from '../mvcc/helpers';

const put = (store: MvccStore, key: string, value: string) =>
  store.put({ key: b(key), value: b(value), lease: 0n, prevKv: false, ignoreValue: false, ignoreLease: false });
const del = (store: MvccStore, key: string, end = '') => store.deleteRange({ key: b(key), rangeEnd: b(end), prevKv: false });

function create(key: string, over: Partial<WatchCreate> & { end?: string } = {}): WatchCreate {
  const { end, ...rest } = over;
  return {
    key: b(key),
    rangeEnd: b(end ?? ''),
    startRevision: 0,
    progressNotify: false,
    filters: { noPut: false, noDelete: false },
    prevKv: false,
    watchId: 0,
    fragment: false,
    ...rest,
  };
}

/** One line per reply, e.g. "w0 @3 created" or "w0 @4 PUT a=1 | DELETE b". */
function describeReply(r: WatchReply): string {
  const parts = [`w${r.watchId} @${r.revision}`];
  if (r.created) parts.push('created');
  if (r.canceled) parts.push('canceled');
  if (r.compactRevision !== undefined) parts.push(`compact=${r.compactRevision}`);
  if (r.cancelReason) parts.push(`reason=${r.cancelReason}`);
  if (r.events.length > 0) {
    parts.push(
      r.events
        .map((ev) => {
          const kv = ev.type === EventType.Put ? `PUT ${s(ev.kv.key)}=${s(ev.kv.value)}` : `DELETE ${s(ev.kv.key)}`;
          return ev.prevKv ? `${kv} (prev ${s(ev.prevKv.value)})` : kv;
        })
        .join(' | '),
    );
  }
  return parts.join(' ');
}

interface Harness {
  store: MvccStore;
  watchable: WatchableStore;
  stream: WatchStream;
  replies: WatchReply[];
  lines: () => string[];
  writable: { value: boolean };
}

const open: WatchableStore[] = [];
afterEach(() => {
  for (const w of open.splice(0)) w.dispose();
  vi.useRealTimers();
});

function harness(opts: { batchMaxRevs?: number; progressIntervalMs?: number; store?: MvccStore } = {}): Harness {
  const source = { store: opts.store ?? new MvccStore() };
  const watchable = new WatchableStore(source, { batchMaxRevs: opts.batchMaxRevs, syncIntervalMs: 5 });
  open.push(watchable);
  const replies: WatchReply[] = [];
  const writable = { value: true };
  const stream = new WatchStream(watchable, {
    send: (r) => replies.push(r),
    writable: () => writable.value,
    progressIntervalMs: opts.progressIntervalMs ?? 0,
    random: () => 0,
  });
  return {
    get store() {
      return source.store;
    },
    set store(v: MvccStore) {
      source.store = v;
    },
    watchable,
    stream,
    replies,
    lines: () => replies.map(describeReply),
    writable,
  } as Harness;
}

/** Lets the catch-up loop run until no watcher is behind (bounded). */
async function settle(h: Harness): Promise<void> {
  for (let i = 0; i < 200 && h.watchable.counts.unsynced > 0; i++) await new Promise((r) => setTimeout(r, 2));
  await new Promise((r) => setImmediate(r));
}

describe('watch stream', () => {
  it('replies created with the current revision before any event, then one reply per revision', async () => {
    const h = harness();
    put(h.store, 'a', '1'); // rev 2
    h.stream.create(create('a'));
    put(h.store, 'a', '2');
    put(h.store, 'b', 'x'); // not watched
    h.store.txn({
      compare: [],
      success: [
        { put: { key: b('a'), value: b('3'), lease: 0n, prevKv: false, ignoreValue: false, ignoreLease: false } },
        { deleteRange: { key: b('a'), rangeEnd: b(''), prevKv: false } },
      ],
      failure: [],
    });
    expect(h.lines()).toEqual(['w0 @2 created', 'w0 @3 PUT a=2', 'w0 @5 PUT a=3 | DELETE a']);
  });

  it('numbers watchers per stream from 0 and refuses a duplicate client-chosen id', () => {
    const h = harness();
    h.stream.create(create('a'));
    h.stream.create(create('b', { watchId: 5 }));
    h.stream.create(create('c'));
    h.stream.create(create('d', { watchId: 5 }));
    expect(h.lines()).toEqual([
      'w0 @1 created',
      'w5 @1 created',
      'w1 @1 created',
      `w-1 @1 created canceled reason=${ERR_WATCHER_DUPLICATE_ID}`,
    ]);
    expect(h.stream.ids).toEqual([0, 5, 1]);
  });

  it('refuses an empty range (key ≥ range end) with watch id -1', () => {
    const h = harness();
    h.stream.create(create('b', { end: 'a' }));
    expect(h.lines()).toEqual([`w-1 @1 created canceled reason=${ERR_EMPTY_WATCHER_RANGE}`]);
  });

  it('watches a prefix, every key from a key ("\\0"), and every key (empty key + "\\0")', () => {
    const h = harness();
    h.stream.create(create('p/', { end: 'p0' }));
    h.stream.create(create('m', { end: '\0' }));
    h.stream.create(create('', { end: '\0' }));
    put(h.store, 'p/1', 'x');
    put(h.store, 'a', 'y');
    put(h.store, 'z', 'z');
    expect(h.lines().slice(3).sort()).toEqual(
      ['w0 @2 PUT p/1=x', 'w1 @2 PUT p/1=x', 'w2 @2 PUT p/1=x', 'w2 @3 PUT a=y', 'w1 @4 PUT z=z', 'w2 @4 PUT z=z'].sort(),
    );
  });

  it('cancels: replies {watch_id, canceled} and sends nothing more; unknown ids get no reply', () => {
    const h = harness();
    h.stream.create(create('a'));
    h.stream.cancel(0);
    h.stream.cancel(7);
    put(h.store, 'a', '1');
    expect(h.lines()).toEqual(['w0 @1 created', 'w0 @1 canceled']);
    expect(h.watchable.counts).toEqual({ synced: 0, unsynced: 0 });
  });

  it('applies NOPUT and NODELETE, and sends nothing when every event of a revision is filtered', () => {
    const h = harness();
    h.stream.create(create('a', { filters: { noPut: true, noDelete: false } }));
    h.stream.create(create('a', { filters: { noPut: false, noDelete: true } }));
    put(h.store, 'a', '1');
    del(h.store, 'a');
    expect(h.lines()).toEqual(['w0 @1 created', 'w1 @1 created', 'w1 @2 PUT a=1', 'w0 @3 DELETE a']);
  });

  it('sends prev_kv only when asked, never on a create event', () => {
    const h = harness();
    h.stream.create(create('a', { prevKv: true }));
    h.stream.create(create('a'));
    put(h.store, 'a', '1');
    put(h.store, 'a', '2');
    del(h.store, 'a');
    expect(h.lines().slice(2)).toEqual([
      'w0 @2 PUT a=1',
      'w1 @2 PUT a=1',
      'w0 @3 PUT a=2 (prev 1)',
      'w1 @3 PUT a=2',
      'w0 @4 DELETE a (prev 2)',
      'w1 @4 DELETE a',
    ]);
  });

  it('replays history from an older revision, then switches to live events', async () => {
    const h = harness();
    put(h.store, 'a', '1'); // 2
    put(h.store, 'a', '2'); // 3
    del(h.store, 'a'); // 4
    h.stream.create(create('a', { startRevision: 3, prevKv: true }));
    expect(h.lines()).toEqual(['w0 @4 created']);
    await settle(h);
    put(h.store, 'a', '3'); // 5
    expect(h.lines()).toEqual(['w0 @4 created', 'w0 @4 PUT a=2 (prev 1) | DELETE a (prev 2)', 'w0 @5 PUT a=3']);
  });

  it('replays in batches of at most batchMaxRevs revisions, each reply naming its last revision', async () => {
    const h = harness({ batchMaxRevs: 2 });
    for (let i = 1; i <= 5; i++) put(h.store, 'k', String(i)); // revs 2..6
    h.stream.create(create('k', { startRevision: 2 }));
    await settle(h);
    expect(h.lines()).toEqual(['w0 @6 created', 'w0 @3 PUT k=1 | PUT k=2', 'w0 @5 PUT k=3 | PUT k=4', 'w0 @6 PUT k=5']);
  });

  it('a start revision in the future waits for it', () => {
    const h = harness();
    h.stream.create(create('a', { startRevision: 4 }));
    put(h.store, 'a', '1'); // 2
    put(h.store, 'a', '2'); // 3
    put(h.store, 'a', '3'); // 4
    expect(h.lines()).toEqual(['w0 @1 created', 'w0 @4 PUT a=3']);
  });

  it('cancels a watch from a compacted revision after created, with compact_revision', async () => {
    const h = harness();
    for (let i = 1; i <= 4; i++) put(h.store, 'a', String(i)); // 2..5
    h.store.compact(4);
    h.stream.create(create('a', { startRevision: 2 }));
    await settle(h);
    h.stream.create(create('a', { startRevision: 4 })); // exactly the compacted revision is still served
    await settle(h);
    expect(h.lines()).toEqual(['w0 @5 created', 'w0 @0 canceled compact=4', 'w1 @5 created', 'w1 @5 PUT a=3 | PUT a=4']);
    expect(h.stream.ids).toEqual([1]);
  });

  it('answers a progress request with watch id -1 and the current revision', () => {
    const h = harness();
    put(h.store, 'a', '1');
    h.stream.requestProgress();
    expect(h.lines()).toEqual(['w-1 @2']);
  });

  it('holds a progress request until every watcher on the stream has caught up (etcd 3.4.31)', async () => {
    const h = harness();
    h.writable.value = false; // the watcher cannot catch up while the transport is full
    for (let i = 1; i <= 3; i++) put(h.store, 'a', String(i)); // 2..4
    h.stream.create(create('a', { startRevision: 2 }));
    h.stream.requestProgress();
    await new Promise((r) => setTimeout(r, 30));
    expect(h.lines()).toEqual(['w0 @4 created']); // unsynced: no progress claim yet
    h.writable.value = true;
    h.stream.resume();
    await settle(h);
    await new Promise((r) => setTimeout(r, 30));
    // The events up to 4 first, then the progress reply at 4, never before them.
    expect(h.lines()).toEqual(['w0 @4 created', 'w0 @4 PUT a=1 | PUT a=2 | PUT a=3', 'w-1 @4']);
    h.stream.close();
  });

  it('sends periodic progress only to synced progress_notify watchers that saw no events', () => {
    vi.useFakeTimers();
    const h = harness({ progressIntervalMs: 1000 });
    h.stream.create(create('a', { progressNotify: true }));
    h.stream.create(create('b'));
    vi.advanceTimersByTime(1000);
    put(h.store, 'a', '1');
    vi.advanceTimersByTime(1000); // saw an event in this interval: no notification
    vi.advanceTimersByTime(1000);
    expect(h.lines()).toEqual(['w0 @1 created', 'w1 @1 created', 'w0 @1', 'w0 @2 PUT a=1', 'w0 @2']);
    h.stream.close();
  });

  it('a slow stream never blocks writes and later receives everything, in order, once', async () => {
    const h = harness({ batchMaxRevs: 7 });
    const fast = new WatchStream(h.watchable, { send: (r) => fastReplies.push(r), writable: () => true, progressIntervalMs: 0 });
    const fastReplies: WatchReply[] = [];
    h.stream.create(create('k', { end: 'l' }));
    fast.create(create('k', { end: 'l' }));
    h.writable.value = false; // the slow client's transport is full
    for (let i = 0; i < 50; i++) put(h.store, `k${i % 3}`, String(i)); // revs 2..51, applied without waiting
    expect(h.watchable.counts).toEqual({ synced: 1, unsynced: 1 });
    expect(fastReplies.length).toBe(51);
    await new Promise((r) => setTimeout(r, 20));
    expect(h.replies.length).toBe(1); // still only `created`
    h.writable.value = true;
    h.stream.resume();
    put(h.store, 'k0', 'late'); // 52, while catching up
    await settle(h);
    put(h.store, 'k1', 'live'); // 53
    const seen = h.replies.flatMap((r) => r.events.map((ev) => ev.kv.modRevision));
    expect(seen).toEqual(Array.from({ length: 52 }, (_, i) => i + 2));
    expect(h.watchable.counts).toEqual({ synced: 2, unsynced: 0 });
    fast.close();
  });

  it('keeps working across a snapshot restore that replaces the store, catching up what it missed', async () => {
    const h = harness();
    h.stream.create(create('a'));
    put(h.store, 'a', '1'); // 2
    // a newer state arrives as a snapshot (e.g. from the leader): revs 3 and 4 happened elsewhere
    const other = MvccStore.restore(h.store.snapshot());
    put(other, 'a', '2'); // 3
    put(other, 'b', 'x'); // 4
    h.store = MvccStore.restore(other.snapshot());
    h.watchable.reattach();
    await settle(h);
    put(h.store, 'a', '3'); // 5
    expect(h.lines()).toEqual(['w0 @1 created', 'w0 @2 PUT a=1', 'w0 @4 PUT a=2', 'w0 @5 PUT a=3']);
  });

  it('close() removes every watcher of the stream', () => {
    const h = harness();
    h.stream.create(create('a'));
    h.stream.create(create('b', { startRevision: 1 }));
    h.stream.close();
    expect(h.watchable.counts).toEqual({ synced: 0, unsynced: 0 });
  });
});

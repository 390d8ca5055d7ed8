import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import { CacheWatcher, type CacheWatcherOptions } from '../../../../main/apiserver/storage/cacheWatcher';
import type { WatchEvent } from '../../../../main/apiserver/storage/interface';
import type { ObjectEvent } from '../../../../main/apiserver/storage/watchEvents';

const put = (rev: number, key = '/r/a'): ObjectEvent => ({ type: 'PUT', key, rev: BigInt(rev), obj: { metadata: { name: key, resourceVersion: String(rev) } } });
const line = (e: WatchEvent) => `${e.type} ${(e.object as KObject).metadata.resourceVersion}`;

let now = 0;
beforeEach(() => {
  vi.useFakeTimers();
  now = 1_000_000;
});
afterEach(() => vi.useRealTimers());

function watcher(more: Partial<CacheWatcherOptions> = {}, sink?: (e: WatchEvent) => boolean | void) {
  const got: WatchEvent[] = [];
  let stopped = 0;
  const w = new CacheWatcher(
    sink ?? ((e) => void got.push(e)),
    { scope: (k) => k.startsWith('/r/'), allowBookmarks: true, bufferSize: 3, bookmarkIntervalMs: 60_000, now: () => now, ...more },
    () => stopped++,
  );
  return { w, got, stopped: () => stopped };
}

describe('cache watcher', () => {
  it('delivers initial events, then only live changes above its start revision and inside its scope', () => {
    const { w, got } = watcher();
    w.begin([{ type: 'ADDED', object: { metadata: { resourceVersion: '3' } } }], 5n);
    for (const ev of [put(4), put(5), put(6), put(7, '/other/x'), put(8)]) w.add(ev);
    expect(got.map(line)).toEqual(['ADDED 3', 'ADDED 6', 'ADDED 8']);
  });

  it('hands out copies: a consumer changing an event does not change the next one', () => {
    const shared = put(6);
    const a = watcher();
    const b = watcher();
    a.w.begin([], 5n);
    b.w.begin([], 5n);
    a.w.add(shared);
    (a.got[0].object as KObject).metadata.name = 'changed';
    b.w.add(shared);
    expect((b.got[0].object as KObject).metadata.name).toBe('/r/a');
  });

  it('holds events while the sink refuses them, retries, and delivers in order', () => {
    let refuse = true;
    const got: string[] = [];
    const { w } = watcher({ bufferSize: 10 }, (e) => {
      if (refuse) return false;
      got.push(line(e));
    });
    w.begin([], 1n);
    w.add(put(2));
    w.add(put(3));
    expect(got).toEqual([]);
    refuse = false;
    vi.advanceTimersByTime(50);
    expect(got).toEqual(['ADDED 2', 'ADDED 3']);
  });

  it('closes itself when more than bufferSize live events stay queued for the dispatch timeout', async () => {
    const { w, stopped } = watcher({ bufferSize: 3, dispatchTimeoutMs: 100 }, () => false);
    w.begin([], 1n);
    for (const r of [2, 3, 4, 5, 6]) w.add(put(r));
    vi.advanceTimersByTime(99);
    expect(stopped()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(stopped()).toBe(1);
    expect(w.unresponsive).toEqual({ queued: 5 });
    await w.done;
  });

  it('a burst above bufferSize that drains within the dispatch timeout keeps the watcher, in order', () => {
    let room = 0;
    const got: string[] = [];
    const { w, stopped } = watcher({ bufferSize: 3, dispatchTimeoutMs: 100 }, (e) => {
      if (room === 0) return false;
      room--;
      got.push(line(e));
    });
    w.begin([], 1n);
    for (let r = 2; r <= 9; r++) w.add(put(r));
    vi.advanceTimersByTime(15); // the retry polls a refusing sink; nothing moves
    room = 8;
    w.resume(); // the response drained
    expect(got).toEqual(['2', '3', '4', '5', '6', '7', '8', '9'].map((r) => `ADDED ${r}`));
    vi.advanceTimersByTime(1000);
    expect(stopped()).toBe(0);
    expect(w.unresponsive).toBeUndefined();
  });

  it('a backlog that shrinks to bufferSize restarts the timeout; staying above it again closes the watcher', () => {
    let room = 0;
    const { w, stopped } = watcher({ bufferSize: 3, dispatchTimeoutMs: 100 }, () => (room > 0 ? void room-- : false));
    w.begin([], 1n);
    for (let r = 2; r <= 6; r++) w.add(put(r)); // 5 queued
    vi.advanceTimersByTime(90);
    room = 2;
    w.resume(); // 3 queued: at the limit
    vi.advanceTimersByTime(90);
    w.add(put(7)); // above it again: a new timeout
    vi.advanceTimersByTime(99);
    expect(stopped()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(stopped()).toBe(1);
    expect(w.unresponsive).toEqual({ queued: 4 });
  });

  it('resume() delivers at once instead of at the next retry', () => {
    let refuse = true;
    const got: string[] = [];
    const { w } = watcher({ bufferSize: 10 }, (e) => (refuse ? false : void got.push(line(e))));
    w.begin([], 1n);
    w.add(put(2));
    refuse = false;
    w.resume();
    expect(got).toEqual(['ADDED 2']);
  });

  const bookmarkCases = [
    { name: 'not before the interval', interval: 60_000, deadline: undefined, at: 59_000, want: [] },
    { name: 'once the interval passed', interval: 60_000, deadline: undefined, at: 60_000, want: ['BOOKMARK 9'] },
    { name: '2 s before a near deadline', interval: 60_000, deadline: 10_000, at: 8_000, want: ['BOOKMARK 9'] },
    { name: 'not earlier than that', interval: 60_000, deadline: 10_000, at: 7_900, want: [] },
  ];
  for (const c of bookmarkCases) {
    it(`bookmarks: ${c.name}`, () => {
      const start = now;
      const { w, got } = watcher({ bookmarkIntervalMs: c.interval, deadline: c.deadline === undefined ? undefined : start + c.deadline });
      w.begin([], 1n);
      now = start + c.at;
      w.bookmark(9n);
      expect(got.map(line)).toEqual(c.want);
    });
  }

  it('no bookmarks unless asked for; an ERROR ends the watch', async () => {
    const { w, got } = watcher({ allowBookmarks: false });
    w.begin([], 1n);
    now += 120_000;
    w.bookmark(9n);
    w.fail({ kind: 'Status', code: 410 });
    w.add(put(10));
    expect(got.map((e) => e.type)).toEqual(['ERROR']);
    await w.done;
  });
});

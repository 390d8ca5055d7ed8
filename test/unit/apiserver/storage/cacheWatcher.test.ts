import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { KObject } from '../../../../main/apiserver/api/object';
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

  it('closes itself when a backed-up sink lets more than bufferSize live events pile up', async () => {
    const { w, stopped } = watcher({ bufferSize: 3 }, () => false);
    w.begin([], 1n);
    for (const r of [2, 3, 4]) w.add(put(r));
    expect(stopped()).toBe(0);
    w.add(put(5));
    expect(stopped()).toBe(1);
    expect(w.closedBecause).toBe('unresponsive');
    await w.done;
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

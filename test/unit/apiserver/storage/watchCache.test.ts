// The watch cache against a scripted etcd store: what it does when etcd
// compacts past its watch (close every watcher, relist), when a stored value
// cannot be read (not ready, limited lists go to etcd, relist with backoff),
// and how consistent reads wait for a progress notification or fall back to etcd.

import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import type { EtcdStore } from '../../../../main/apiserver/storage/etcdStore';
import { UnreadableValueError, type RawWatchHandlers } from '../../../../main/apiserver/storage/rawWatch';
import { StorageError, type WatchEvent } from '../../../../main/apiserver/storage/interface';
import { WatchCache } from '../../../../main/apiserver/storage/watchCache';

const P = '/registry/things/';

class ScriptedStore {
  objects = new Map<string, KObject>();
  rev = 10n;
  lists = 0;
  etcdLists = 0;
  progressRequests = 0;
  h: RawWatchHandlers | undefined;
  from = 0n;
  /** Keys whose stored value the scripted store cannot read. */
  unreadable = new Set<string>();
  async listWithKeys() {
    this.lists++;
    for (const key of this.unreadable) throw new UnreadableValueError(key, new Error('invalid padding on input'));
    const entries = [...this.objects].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, obj]) => ({ key, obj: structuredClone(obj) }));
    return { entries, revision: this.rev };
  }
  watchRaw(_prefix: string, from: bigint, h: RawWatchHandlers) {
    this.h = h;
    this.from = from;
    return { cancel: () => (this.h = undefined), requestProgress: () => this.progressRequests++ };
  }
  revisionReads = 0;
  /** When set, currentRevision answers only once the test releases it (held in pending). */
  holdRevisions = false;
  pending: (() => void)[] = [];
  async currentRevision() {
    this.revisionReads++;
    const rev = this.rev; // what etcd answers is the revision when the read reached it
    if (this.holdRevisions) await new Promise<void>((r) => this.pending.push(r));
    return rev;
  }
  async getList() {
    this.etcdLists++;
    for (const key of this.unreadable) throw new UnreadableValueError(key, new Error('invalid padding on input'));
    return { items: [], resourceVersion: 'from-etcd' };
  }
  /** A write the cache hears about through its watch. */
  put(name: string) {
    this.rev++;
    const obj: KObject = { metadata: { name, resourceVersion: String(this.rev) } };
    const prevObj = this.objects.get(P + name);
    this.objects.set(P + name, obj);
    this.h?.onEvents([{ type: 'PUT', key: P + name, rev: this.rev, obj, prevObj }]);
  }
}

async function started(more: { blockTimeoutMs?: number } = {}) {
  const s = new ScriptedStore();
  s.objects.set(`${P}a`, { metadata: { name: 'a', resourceVersion: '9' } });
  const cache = new WatchCache({ store: s as unknown as EtcdStore, prefix: P, blockTimeoutMs: more.blockTimeoutMs ?? 300 });
  await cache.start();
  return { s, cache };
}

describe('watch cache (scripted etcd)', () => {
  it('a value it cannot read: start resolves not ready, lists fail as etcd\'s do or with 429, and it relists once the value is gone', async () => {
    const s = new ScriptedStore();
    s.objects.set(`${P}a`, { metadata: { name: 'a', resourceVersion: '9' } });
    s.unreadable.add(`${P}a`);
    const cache = new WatchCache({ store: s as unknown as EtcdStore, prefix: P });
    await cache.start();
    expect(cache.isReady).toBe(false);
    expect(cache.settled).toBe(true);
    // kubectl's list (limit 500, no selectors) goes to etcd and fails there with kube's message.
    await expect(cache.getList(P, { limit: 500 })).rejects.toThrow(`unable to transform key "${P}a": invalid padding on input`);
    // Anything else the cache would serve is kube's "storage is (re)initializing".
    await expect(cache.getList(P, { resourceVersion: '0' })).rejects.toMatchObject({ code: 'Initializing', message: 'storage is (re)initializing' });
    const listsBefore = s.lists;
    s.unreadable.clear();
    for (let i = 0; i < 300 && !cache.isReady; i++) await new Promise((r) => setTimeout(r, 10));
    expect(cache.isReady).toBe(true);
    expect(s.lists).toBeGreaterThan(listsBefore);
    expect((await cache.getList(P, { resourceVersion: '0' })).items.map((o) => o.metadata?.name)).toEqual(['a']);
    await cache.close();
  });

  it('a change event it cannot read closes its watchers and makes it relist (and wait) like a failed list', async () => {
    const { s, cache } = await started();
    const w = cache.watch(P, { resourceVersion: '10' }, () => {});
    s.unreadable.add(`${P}a`);
    s.h!.onUnreadable!(new UnreadableValueError(`${P}a`, new Error('invalid padding on input')));
    await w.done;
    expect(cache.isReady).toBe(false);
    for (let i = 0; i < 100 && s.lists < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(s.lists).toBeGreaterThanOrEqual(2);
    expect(cache.isReady).toBe(false);
    await cache.close();
  });

  it('starts its etcd watch right after its list revision', async () => {
    const { s, cache } = await started();
    expect(s.from).toBe(11n);
    expect(cache.resourceVersion).toBe(10n);
    await cache.close();
  });

  it('etcd compacted past its watch: every watcher is closed and the cache relists; old RVs are then too old', async () => {
    const { s, cache } = await started();
    s.put('b');
    const got: WatchEvent[] = [];
    const w = cache.watch(P, { resourceVersion: '10' }, (e) => void got.push(e));
    expect(got.map((e) => e.type)).toEqual(['ADDED']);
    s.rev = 20n; // changes the cache missed, then compacted
    s.h!.onCompacted(20n);
    await w.done;
    for (let i = 0; i < 50 && s.lists < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(s.lists).toBe(2);
    expect(cache.resourceVersion).toBe(20n);
    const late: WatchEvent[] = [];
    const w2 = cache.watch(P, { resourceVersion: '11' }, (e) => void late.push(e));
    await w2.done;
    expect(late).toEqual([{ type: 'ERROR', object: expect.objectContaining({ code: 410, reason: 'Expired', message: 'too old resource version: 11 (20)' }) }]);
    await cache.close();
  });

  it('a consistent list waits for a progress notification at etcd\'s revision, then serves from memory', async () => {
    const { s, cache } = await started();
    s.rev = 15n; // written elsewhere in etcd: no event for this prefix
    const list = cache.getList(P);
    await new Promise((r) => setTimeout(r, 30));
    expect(s.progressRequests).toBeGreaterThan(0);
    s.h!.onProgress(15n);
    const l = await list;
    expect(l.resourceVersion).toBe('15');
    expect(l.items.map((o) => o.metadata.name)).toEqual(['a']);
    expect(s.etcdLists).toBe(0);
    await cache.close();
  });

  it('shareItems lists hand out the stored objects; other lists get copies; a write replaces, never mutates, what was shared', async () => {
    const { s, cache } = await started();
    const shared = (await cache.getList(P, { resourceVersion: '0', shareItems: true })).items[0]!;
    expect((await cache.getList(P, { resourceVersion: '0', shareItems: true })).items[0]).toBe(shared);
    const copy = (await cache.getList(P, { resourceVersion: '0' })).items[0]!;
    expect(copy).not.toBe(shared);
    expect(copy).toEqual(shared);
    s.put('a');
    const after = (await cache.getList(P, { resourceVersion: '0', shareItems: true })).items[0]!;
    expect(after).not.toBe(shared);
    expect(shared.metadata.resourceVersion).toBe('9');
    expect(after.metadata.resourceVersion).toBe('11');
    await cache.close();
  });

  it('a shareObject get hands out the stored object; a plain get a copy', async () => {
    const { cache } = await started();
    const stored = (await cache.getList(P, { resourceVersion: '0', shareItems: true })).items[0]!;
    const k = `${P}a`;
    const shared = await cache.get(k, { resourceVersion: '0', shareObject: true });
    expect(shared).toBe(stored);
    const copy = await cache.get(k, { resourceVersion: '0' });
    expect(copy).not.toBe(shared);
    expect(copy).toEqual(shared);
    await cache.close();
  });

  it('shareObjects watchers get the stored objects themselves; other watchers get copies', async () => {
    const { s, cache } = await started();
    const shared: WatchEvent[] = [];
    const copied: WatchEvent[] = [];
    const w1 = cache.watch(P, { resourceVersion: '10', shareObjects: true }, (e) => void shared.push(e));
    const w2 = cache.watch(P, { resourceVersion: '10' }, (e) => void copied.push(e));
    s.put('b');
    expect(shared).toHaveLength(1);
    expect(shared[0]!.object).toBe(s.objects.get(`${P}b`));
    expect(copied[0]!.object).not.toBe(s.objects.get(`${P}b`));
    expect(copied[0]!.object).toEqual(shared[0]!.object);
    w1.stop();
    w2.stop();
    await cache.close();
  });

  it('without a progress notification the consistent list falls back to etcd; get RV N times out as TooLarge', async () => {
    const { s, cache } = await started({ blockTimeoutMs: 100 });
    s.rev = 15n;
    expect((await cache.getList(P)).resourceVersion).toBe('from-etcd');
    const err = await cache.get(`${P}a`, { resourceVersion: '12' }).catch((e) => e);
    expect(err).toBeInstanceOf(StorageError);
    expect((err as StorageError).code).toBe('ResourceVersionTooLarge');
    expect((err as StorageError).message).toBe('Too large resource version: 12, current: 10');
    await cache.close();
  });

  it('sendInitialEvents with RV "": the initial state waits until the cache is current, then ends with the initial-events-end bookmark', async () => {
    const { s, cache } = await started();
    s.rev = 15n;
    const got: WatchEvent[] = [];
    const w = cache.watch(P, { sendInitialEvents: true, allowWatchBookmarks: true }, (e) => void got.push(e));
    await new Promise((r) => setTimeout(r, 30));
    expect(got).toEqual([]);
    s.h!.onProgress(15n);
    await new Promise((r) => setTimeout(r, 10));
    expect(got.map((e) => `${e.type} ${(e.object as KObject).metadata.resourceVersion}`)).toEqual(['ADDED 9', 'BOOKMARK 15']);
    expect((got[1].object as KObject).metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    w.stop();
    expect(cache.watcherCount).toBe(0);
    await cache.close();
  });

  it('a watch stopped while it waited for the cache to be current is never registered', async () => {
    const { s, cache } = await started();
    s.rev = 15n;
    const got: WatchEvent[] = [];
    const w = cache.watch(P, { sendInitialEvents: true, allowWatchBookmarks: true }, (e) => void got.push(e));
    await new Promise((r) => setTimeout(r, 20));
    w.stop();
    s.h!.onProgress(15n);
    await new Promise((r) => setTimeout(r, 10));
    expect(cache.watcherCount).toBe(0);
    expect(got).toEqual([]);
    await cache.close();
  });

  it('concurrent consistent lists share revision requests: arrivals during one wait for the next, which is sent once it returns', async () => {
    const { s, cache } = await started();
    s.holdRevisions = true;
    s.rev = 15n;
    const first = cache.getList(P);
    await new Promise((r) => setTimeout(r, 5));
    expect(s.revisionReads).toBe(1);
    // A write lands after the first request was sent; later reads must see it.
    s.rev = 16n;
    const later = [cache.getList(P), cache.getList(P), cache.getList(P)];
    await new Promise((r) => setTimeout(r, 5));
    expect(s.revisionReads).toBe(1); // queued behind the one in flight, not sent yet
    s.pending.shift()!();
    await new Promise((r) => setTimeout(r, 5));
    expect(s.revisionReads).toBe(2); // one request for all three
    s.h!.onProgress(15n);
    expect((await first).resourceVersion).toBe('15');
    s.pending.shift()!();
    await new Promise((r) => setTimeout(r, 5));
    s.h!.onProgress(16n);
    expect((await Promise.all(later)).map((l) => l.resourceVersion)).toEqual(['16', '16', '16']);
    expect(s.revisionReads).toBe(2);
    expect(s.etcdLists).toBe(0);
    await cache.close();
  });

  it('a failed revision request fails its reads and does not block the next ones', async () => {
    const { s, cache } = await started();
    const orig = s.currentRevision.bind(s);
    s.currentRevision = async () => {
      s.revisionReads++;
      throw new Error('etcdserver: request timed out');
    };
    await expect(cache.getList(P)).rejects.toThrow('etcdserver: request timed out');
    s.currentRevision = orig;
    expect((await cache.getList(P)).resourceVersion).toBe('10');
    await cache.close();
  });
});

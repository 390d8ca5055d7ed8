// Behaviours only the watch cache has (kube's cacher tests): RV "0" lists
// ignore limit, a window that overflowed answers 410 "too old resource
// version", periodic and deadline bookmarks, slow watchers are closed without
// holding others back, Initializing until the first list.

import { expect } from 'vitest';
import type { KObject } from '../../../main/kube/object';
import { WatchCache } from '../../../main/apiserver/storage/watchCache';
import { EtcdStore } from '../../../main/apiserver/storage/etcdStore';
import { cm, storageErr, type Case, type Harness } from '../../support/storage/storageConformance';
import { protobufCodec } from '../../../main/kube/codec';

const codec = protobufCodec();
import { record, sleep } from '../../support/storage/watchRecorder';

const names = (items: KObject[]) => items.map((i) => i.metadata.name);

export const cacheCases: Case<Harness>[] = [
  {
    name: 'cache: a consistent list after a write elsewhere in etcd is served once a progress notification moves the cache on',
    async run({ storage, other, prefix }) {
      await other.create(`${prefix}a`, cm('a'));
      await storage.getList(prefix);
      const cache = storage as WatchCache;
      for (let i = 0; i < 3; i++) {
        // No event reaches this cache: only etcd's progress reply (RequestWatchProgress) can tell it that it is current.
        await other.create(`/registry/elsewhere-${prefix.split('/')[2]}/x${i}`, cm(`x${i}`));
        const current = await other.currentRevision();
        const t0 = Date.now();
        const l = await cache.getList(prefix);
        expect(l.resourceVersion).toBe(current.toString());
        expect(cache.resourceVersion).toBe(current);
        expect(Date.now() - t0).toBeLessThan(1000); // not the block timeout and etcd fallback
        expect(names(l.items)).toEqual(['a']);
      }
    },
  },
  {
    name: 'cache: list RV "0" is served from memory and ignores limit; RV N waits for the cache to reach N',
    async run({ storage, other, prefix }) {
      for (const n of ['a', 'b', 'c']) await other.create(`${prefix}${n}`, cm(n));
      const d = await other.create(`${prefix}d`, cm('d'));
      const l = await storage.getList(prefix, { resourceVersion: d.metadata.resourceVersion, resourceVersionMatch: 'NotOlderThan' });
      expect(names(l.items)).toEqual(['a', 'b', 'c', 'd']);
      const any = await storage.getList(prefix, { resourceVersion: '0', limit: 2 });
      expect(names(any.items)).toEqual(['a', 'b', 'c', 'd']);
      expect(any.continue).toBeUndefined();
      const limited = await storage.getList(prefix, { limit: 3 });
      expect(names(limited.items)).toEqual(['a', 'b', 'c']);
      expect(limited.remainingItemCount).toBe(1);
      const got = await storage.get(`${prefix}d`, { resourceVersion: d.metadata.resourceVersion });
      expect(got.metadata.resourceVersion).toBe(d.metadata.resourceVersion);
      // What the caller gets is a copy: changing it leaves the cache intact.
      got.metadata.name = 'changed';
      expect((await storage.get(`${prefix}d`, { resourceVersion: '0' })).metadata.name).toBe('d');
    },
  },
  {
    name: 'cache: a watch from an RV older than the window gets ERROR 410 "too old resource version: N (M)"',
    async run({ other, prefix, makeCache }) {
      const first = await other.create(`${prefix}a`, cm('a'));
      const small = await makeCache!({ capacity: 3 });
      const revs: bigint[] = [];
      for (let i = 0; i < 5; i++) revs.push(BigInt((await other.guaranteedUpdate(`${prefix}a`, undefined, (c) => ({ ...c, data: { i: String(i) } }))).metadata.resourceVersion!));
      await small.getList(prefix); // caught up
      const r = record(small, prefix, { resourceVersion: first.metadata.resourceVersion });
      await r.waitFor(1);
      await r.watcher.done;
      const oldestKept = revs[2];
      expect(r.events[0]).toEqual({
        type: 'ERROR',
        object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${first.metadata.resourceVersion} (${oldestKept - 1n})`, reason: 'Expired', code: 410 },
      });
      // From the oldest servable RV it replays what the window holds.
      const ok = record(small, prefix, { resourceVersion: String(oldestKept - 1n) });
      await ok.waitFor(3);
      expect(ok.lines().map((l) => l.split(' ')[2])).toEqual(revs.slice(2).map(String));
      ok.watcher.stop();
    },
  },
  {
    name: 'cache: bookmarks about every interval, and one 2 s before the watch timeout',
    async run({ other, prefix, makeCache }) {
      const c = await makeCache!({ bookmarkIntervalMs: 300, bookmarkType: { apiVersion: 'v1', kind: 'ConfigMap' } });
      const w = await other.create(`${prefix}a`, cm('a'));
      await c.getList(prefix);
      const r = record(c, prefix, { resourceVersion: w.metadata.resourceVersion, allowWatchBookmarks: true });
      const noBm = record(c, prefix, { resourceVersion: w.metadata.resourceVersion });
      await r.waitFor(2, 3000);
      expect(r.events.every((e) => e.type === 'BOOKMARK')).toBe(true);
      expect(r.events[0].object).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: expect.any(String) } });
      expect(BigInt((r.events[0].object as KObject).metadata.resourceVersion!)).toBeGreaterThanOrEqual(BigInt(w.metadata.resourceVersion!));
      expect(noBm.events).toEqual([]);
      // Interval 60 s, timeout 3 s: the only bookmark comes at about 1 s.
      const slow = await makeCache!({ bookmarkIntervalMs: 60_000 });
      const t0 = Date.now();
      const d = record(slow, prefix, { resourceVersion: w.metadata.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: 3 });
      await d.waitFor(1, 3000);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
      expect(Date.now() - t0).toBeLessThan(2500);
      for (const x of [r, noBm, d]) x.watcher.stop();
    },
  },
  {
    name: 'cache: a watcher whose sink stays backed up is closed once its buffer overflows; others get every event',
    async run({ other, prefix, makeCache }) {
      const c = await makeCache!({ watcherBufferSize: 5 });
      const start = await other.create(`${prefix}a`, cm('a'));
      await c.getList(prefix);
      let offered = 0;
      const stuck = c.watch(prefix, { resourceVersion: start.metadata.resourceVersion }, () => {
        offered++;
        return false;
      });
      const fine = record(c, prefix, { resourceVersion: start.metadata.resourceVersion });
      for (let i = 0; i < 10; i++) await other.guaranteedUpdate(`${prefix}a`, undefined, (o) => ({ ...o, data: { i: String(i) } }));
      await fine.waitFor(10);
      await stuck.done;
      expect(offered).toBeGreaterThan(0);
      expect(fine.lines().every((l) => l.startsWith('MODIFIED a'))).toBe(true);
      fine.watcher.stop();
    },
  },
  {
    name: 'cache: before the first list, reads and watches are Initializing except limited lists without selectors',
    async run({ client, other, prefix }) {
      await other.create(`${prefix}a`, cm('a'));
      const cold = new WatchCache({ store: new EtcdStore({ client, codec }), prefix });
      try {
        const e = await storageErr(cold.getList(prefix));
        expect(e).toEqual({ code: 'Initializing', message: 'storage is (re)initializing' });
        expect(() => cold.watch(prefix, {}, () => {})).toThrow('storage is (re)initializing');
        expect(names((await cold.getList(prefix, { limit: 10 })).items)).toEqual(['a']);
        expect((await cold.get(`${prefix}a`, { resourceVersion: '0' })).metadata.name).toBe('a');
        await cold.start();
        expect(names((await cold.getList(prefix, { resourceVersion: '0' })).items)).toEqual(['a']);
      } finally {
        await cold.close();
      }
    },
  },
  {
    name: 'cache: a watch on one key or a narrower prefix sees only its scope',
    async run({ storage, other, prefix }) {
      const base = await other.create(`${prefix}ns1/a`, cm('a'));
      await storage.getList(prefix);
      const one = record(storage, `${prefix}ns1/a`, { resourceVersion: base.metadata.resourceVersion });
      const ns2 = record(storage, `${prefix}ns2/`, { resourceVersion: '0' });
      await other.create(`${prefix}ns1/ab`, cm('ab'));
      const b = await other.create(`${prefix}ns2/b`, cm('b'));
      const a2 = await other.guaranteedUpdate(`${prefix}ns1/a`, undefined, (o) => ({ ...o, data: { x: '1' } }));
      await one.waitFor(1);
      await ns2.waitFor(1);
      await sleep(200);
      expect(one.lines()).toEqual([`MODIFIED a ${a2.metadata.resourceVersion}`]);
      expect(ns2.lines()).toEqual([`ADDED b ${b.metadata.resourceVersion}`]);
      one.watcher.stop();
      ns2.watcher.stop();
    },
  },
];

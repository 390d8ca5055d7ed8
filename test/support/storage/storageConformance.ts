// One table of behaviours every Storage must show (kube's
// pkg/storage/testing/store_tests.go idea). `cases` hold for any Storage:
// the integration suite (test/integration/apiserver-storage/store.test.ts)
// runs them against the etcd store and the watch cache on a real 3-member
// cluster, and test/unit/apiserver/storage/memStorageConformance.test.ts
// against the in-memory store of the registry unit tests. `etcdCases` need
// the etcd underneath (compaction, leases), so only the integration suite
// runs them. Each case gets its own key prefix, a Storage over it, and a
// second writer ("another API server") for writes the Storage did not make.
// Over etcd, objects go through the real storage codec (protobuf "k8s\0" envelope).

import { expect } from 'vitest';
import type { KObject } from '../../../main/kube/object';
import type { EtcdClient } from '../../../main/client/etcd/etcdClient';
import type { EtcdStore } from '../../../main/apiserver/storage/etcdStore';
import type { WatchCache, WatchCacheOptions } from '../../../main/apiserver/storage/watchCache';
import { StorageError, type Storage, type StorageErrorCode } from '../../../main/apiserver/storage/interface';
import { record, sleep } from './watchRecorder';

/** What a case may use whatever the Storage is. */
export interface StorageHarness {
  kind: 'etcd' | 'cache' | 'memory';
  storage: Storage;
  /** Another writer over the same data: over etcd another client's store, in memory the store itself. */
  other: Storage;
  /** "/registry/<case>/", ends with '/'. */
  prefix: string;
}

/** Over a real etcd: the etcd store or the watch cache. */
export interface Harness extends StorageHarness {
  kind: 'etcd' | 'cache';
  other: EtcdStore;
  client: EtcdClient;
  /** Cache runs only: another started cache over the same prefix, closed after the case. */
  makeCache?: (more?: Partial<WatchCacheOptions>) => Promise<WatchCache>;
}

export interface Case<H extends StorageHarness = StorageHarness> {
  name: string;
  only?: 'etcd' | 'cache';
  run(h: H): Promise<void>;
}

export function cm(name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}): KObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', uid: `uid-${name}`, labels }, data };
}

export async function storageErr(p: Promise<unknown>): Promise<{ code: StorageErrorCode; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StorageError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected a StorageError, the call succeeded');
}

const rv = (o: KObject) => BigInt(o.metadata.resourceVersion!);
const names = (items: KObject[]) => items.map((i) => i.metadata.name);
const setData = (k: string, v: string) => (cur: KObject): KObject => ({ ...cur, data: { ...(cur.data as object), [k]: v } });

export const cases: Case[] = [
  {
    name: 'create returns the object at its mod_revision; a second create is KeyExists',
    async run({ storage, other, prefix }) {
      const created = await storage.create(`${prefix}a`, cm('a'));
      const before = await other.currentRevision();
      expect(created.metadata.resourceVersion).toBe(before.toString());
      expect((await other.get(`${prefix}a`)).metadata.resourceVersion).toBe(created.metadata.resourceVersion);
      const e = await storageErr(storage.create(`${prefix}a`, cm('a')));
      expect(e.code).toBe('KeyExists');
      expect(e.message).toBe(`StorageError: key exists, Code: 2, Key: ${prefix}a, ResourceVersion: 0, AdditionalErrorMsg: `);
      await expect(storage.create(`${prefix}b`, { ...cm('b'), metadata: { name: 'b', resourceVersion: '5' } })).rejects.toThrow(
        'resourceVersion should not be set on objects to be created',
      );
    },
  },
  {
    name: 'get of a missing key is KeyNotFound; RV "" reads what another client just wrote',
    async run({ storage, other, prefix }) {
      const e = await storageErr(storage.get(`${prefix}nope`));
      expect(e.code).toBe('KeyNotFound');
      const w = await other.create(`${prefix}x`, cm('x'));
      expect((await storage.get(`${prefix}x`)).metadata.resourceVersion).toBe(w.metadata.resourceVersion);
      expect((await storage.get(`${prefix}x`, { resourceVersion: w.metadata.resourceVersion })).metadata.name).toBe('x');
    },
  },
  {
    name: 'get with a resourceVersion beyond the current revision is TooLarge',
    async run({ storage, other, prefix }) {
      await storage.create(`${prefix}a`, cm('a'));
      const cur = await other.currentRevision();
      const e = await storageErr(storage.get(`${prefix}a`, { resourceVersion: String(cur + 1000n) }));
      expect(e.code).toBe('ResourceVersionTooLarge');
      expect(e.message).toMatch(new RegExp(`^Too large resource version: ${cur + 1000n}, current: \\d+$`));
    },
  },
  {
    name: 'guaranteedUpdate writes a new revision; an update that changes nothing keeps the RV and writes nothing',
    async run({ storage, other, prefix }) {
      const c = await storage.create(`${prefix}a`, cm('a'));
      const u = await storage.guaranteedUpdate(`${prefix}a`, undefined, setData('k', 'v'));
      expect(rv(u)).toBeGreaterThan(rv(c));
      expect(u.data).toEqual({ k: 'v' });
      const revBefore = await other.currentRevision();
      const same = await storage.guaranteedUpdate(`${prefix}a`, undefined, (cur) => ({ ...cur }));
      expect(same.metadata.resourceVersion).toBe(u.metadata.resourceVersion);
      expect(await other.currentRevision()).toBe(revBefore);
    },
  },
  {
    name: 'guaranteedUpdate that loses a race reruns tryUpdate on the winner\'s object',
    async run({ storage, other, prefix }) {
      await storage.create(`${prefix}a`, cm('a'));
      let calls = 0;
      const seen: string[] = [];
      const out = await storage.guaranteedUpdate(`${prefix}a`, undefined, async (cur) => {
        calls++;
        seen.push(JSON.stringify(cur.data ?? {}));
        if (calls === 1) await other.guaranteedUpdate(`${prefix}a`, undefined, setData('other', '1'));
        return setData('mine', '1')(cur);
      });
      expect(calls).toBe(2);
      expect(seen).toEqual(['{}', '{"other":"1"}']);
      expect(out.data).toEqual({ other: '1', mine: '1' });
      expect((await other.get(`${prefix}a`)).data).toEqual({ other: '1', mine: '1' });
    },
  },
  {
    name: 'preconditions: a wrong uid is InvalidObj, a wrong resourceVersion ResourceVersionConflicts, both with kube\'s text',
    async run({ storage, prefix }) {
      const c = await storage.create(`${prefix}a`, cm('a'));
      const key = `${prefix}a`;
      const e1 = await storageErr(storage.guaranteedUpdate(key, { uid: 'other' }, setData('k', 'v')));
      expect(e1).toEqual({
        code: 'InvalidObj',
        message: `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID in object meta: uid-a`,
      });
      const e2 = await storageErr(storage.delete(key, { resourceVersion: '1' }));
      expect(e2.code).toBe('ResourceVersionConflicts');
      expect(e2.message).toContain(`Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${c.metadata.resourceVersion}`);
      const ok = await storage.guaranteedUpdate(key, { uid: 'uid-a', resourceVersion: c.metadata.resourceVersion }, setData('k', 'v'));
      expect(ok.data).toEqual({ k: 'v' });
    },
  },
  {
    name: 'guaranteedUpdate and delete of a missing key are KeyNotFound',
    async run({ storage, prefix }) {
      expect((await storageErr(storage.guaranteedUpdate(`${prefix}gone`, undefined, (c) => c))).code).toBe('KeyNotFound');
      expect((await storageErr(storage.delete(`${prefix}gone`))).code).toBe('KeyNotFound');
    },
  },
  {
    name: 'delete returns the last stored object; validate can refuse; a lost race revalidates the fresh object',
    async run({ storage, other, prefix }) {
      const key = `${prefix}a`;
      await storage.create(key, cm('a'));
      await expect(storage.delete(key, undefined, () => { throw new Error('refused'); })).rejects.toThrow('refused');
      expect((await other.get(key)).metadata.name).toBe('a');
      let calls = 0;
      const last = await storage.delete(key, undefined, async (cur) => {
        calls++;
        if (calls === 1) await other.guaranteedUpdate(key, undefined, setData('late', 'yes'));
        else expect(cur.data).toEqual({ late: 'yes' });
      });
      expect(calls).toBe(2);
      expect(last.data).toEqual({ late: 'yes' });
      expect((await storageErr(other.get(key))).code).toBe('KeyNotFound');
    },
  },
  {
    name: 'list pages with limit/continue at one revision; remainingItemCount without selectors',
    async run({ storage, other, prefix }) {
      for (const n of ['a', 'b', 'c', 'd', 'e']) await other.create(`${prefix}${n}`, cm(n));
      await storage.getList(prefix); // the cache has caught up
      const p1 = await storage.getList(prefix, { limit: 2 });
      expect(names(p1.items)).toEqual(['a', 'b']);
      expect(p1.remainingItemCount).toBe(3);
      const token = JSON.parse(Buffer.from(p1.continue!, 'base64url').toString());
      expect(token).toEqual({ v: 'meta.k8s.io/v1', rv: Number(p1.resourceVersion), start: 'b\u0000' });
      // Writes after the first page do not show in later pages.
      await other.create(`${prefix}bb`, cm('bb'));
      await other.delete(`${prefix}e`);
      const p2 = await storage.getList(prefix, { limit: 2, continue: p1.continue });
      expect(names(p2.items)).toEqual(['c', 'd']);
      expect(p2.resourceVersion).toBe(p1.resourceVersion);
      const p3 = await storage.getList(prefix, { limit: 2, continue: p2.continue });
      expect(names(p3.items)).toEqual(['e']);
      expect(p3.continue).toBeUndefined();
      const fresh = await storage.getList(prefix);
      expect(names(fresh.items)).toEqual(['a', 'b', 'bb', 'c', 'd']);
    },
  },
  {
    name: 'list with a predicate fills pages past filtered-out objects and gives no remainingItemCount',
    async run({ storage, other, prefix }) {
      for (let i = 0; i < 12; i++) await other.create(`${prefix}o${String(i).padStart(2, '0')}`, cm(`o${String(i).padStart(2, '0')}`, { even: String(i % 2 === 0) }));
      const even = (o: KObject) => o.metadata.labels?.even === 'true';
      const p1 = await storage.getList(prefix, { limit: 3, predicate: even });
      expect(names(p1.items)).toEqual(['o00', 'o02', 'o04']);
      expect(p1.remainingItemCount).toBeUndefined();
      const p2 = await storage.getList(prefix, { limit: 3, predicate: even, continue: p1.continue });
      expect(names(p2.items)).toEqual(['o06', 'o08', 'o10']);
      const exact = await storage.getList(prefix, { exactKey: `${prefix}o05` });
      expect(names(exact.items)).toEqual(['o05']);
    },
  },
  {
    name: 'list rejects bad continue tokens and RV with continue as kube does',
    async run({ storage, other, prefix }) {
      await other.create(`${prefix}a`, cm('a'));
      await expect(storage.getList(prefix, { continue: 'not base64!' })).rejects.toThrow(/^invalid continue token: continue key is not valid/);
      const bad = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 5, start: '../secrets/x' })).toString('base64url');
      await expect(storage.getList(prefix, { continue: bad })).rejects.toThrow('invalid continue token: continue key is not valid: ../secrets/x');
      await other.create(`${prefix}b`, cm('b'));
      const p = await other.getList(prefix, { limit: 1 });
      await expect(storage.getList(prefix, { resourceVersion: p.resourceVersion, continue: p.continue })).rejects.toThrow(
        'specifying resource version is not allowed when using continue',
      );
      const page = await storage.getList(prefix, { limit: 1, continue: p.continue });
      expect(names(page.items)).toEqual(['b']);
    },
  },
  {
    name: 'list Exact reads the past; NotOlderThan beyond now is TooLarge; the list RV is the current revision',
    async run({ storage, other, prefix }) {
      const a = await other.create(`${prefix}a`, cm('a'));
      const b = await other.create(`${prefix}b`, cm('b'));
      const past = await storage.getList(prefix, { resourceVersion: a.metadata.resourceVersion, resourceVersionMatch: 'Exact' });
      expect(names(past.items)).toEqual(['a']);
      expect(past.resourceVersion).toBe(a.metadata.resourceVersion);
      const legacyExact = await storage.getList(prefix, { resourceVersion: a.metadata.resourceVersion, limit: 10 });
      expect(names(legacyExact.items)).toEqual(['a']);
      const now = await storage.getList(prefix);
      expect(now.resourceVersion).toBe((await other.currentRevision()).toString());
      // Not older than b: b must be there (not older than a could be served before b arrived).
      const notOlder = await storage.getList(prefix, { resourceVersion: b.metadata.resourceVersion, resourceVersionMatch: 'NotOlderThan' });
      expect(names(notOlder.items)).toEqual(['a', 'b']);
      const cur = await other.currentRevision();
      const e = await storageErr(storage.getList(prefix, { resourceVersion: String(cur + 100n), resourceVersionMatch: 'NotOlderThan' }));
      expect(e.code).toBe('ResourceVersionTooLarge');
    },
  },
  {
    name: 'a list with RV "" right after another client\'s write includes it (consistent read)',
    async run({ storage, other, prefix }) {
      await storage.getList(prefix);
      for (let i = 0; i < 5; i++) {
        const w = await other.create(`${prefix}w${i}`, cm(`w${i}`));
        const l = await storage.getList(prefix);
        expect(names(l.items)).toContain(`w${i}`);
        expect(BigInt(l.resourceVersion)).toBeGreaterThanOrEqual(rv(w));
      }
    },
  },
  {
    name: 'watch RV "" and "0": current state as ADDED, then changes; RV N: only changes after N',
    async run({ storage, other, prefix }) {
      const a = await other.create(`${prefix}a`, cm('a'));
      await storage.getList(prefix);
      const fromNow = record(storage, prefix, {});
      const fromZero = record(storage, prefix, { resourceVersion: '0' });
      const fromA = record(storage, prefix, { resourceVersion: a.metadata.resourceVersion });
      await fromNow.waitFor(1);
      await fromZero.waitFor(1);
      const b = await other.create(`${prefix}b`, cm('b'));
      const a2 = await other.guaranteedUpdate(`${prefix}a`, undefined, setData('k', 'v'));
      const del = await other.delete(`${prefix}b`);
      void del;
      const cur = await other.currentRevision();
      const live = [`ADDED b ${b.metadata.resourceVersion}`, `MODIFIED a ${a2.metadata.resourceVersion}`, `DELETED b ${cur}`];
      await fromNow.waitFor(4);
      await fromZero.waitFor(4);
      await fromA.waitFor(3);
      expect(fromNow.lines()).toEqual([`ADDED a ${a.metadata.resourceVersion}`, ...live]);
      expect(fromZero.lines()).toEqual([`ADDED a ${a.metadata.resourceVersion}`, ...live]);
      expect(fromA.lines()).toEqual(live);
      for (const r of [fromNow, fromZero, fromA]) r.watcher.stop();
      await Promise.all([fromNow.watcher.done, fromZero.watcher.done, fromA.watcher.done]);
    },
  },
  {
    name: 'a watch with a predicate sees objects enter as ADDED and leave as DELETED',
    async run({ storage, other, prefix }) {
      const start = await other.create(`${prefix}p`, cm('p', { app: 'x' }));
      const sel = (o: KObject) => o.metadata.labels?.app === 'y';
      const r = record(storage, prefix, { resourceVersion: start.metadata.resourceVersion, predicate: sel });
      await sleep(100);
      const enter = await other.guaranteedUpdate(`${prefix}p`, undefined, (c) => ({ ...c, metadata: { ...c.metadata, labels: { app: 'y' } } }));
      const stay = await other.guaranteedUpdate(`${prefix}p`, undefined, setData('k', '1'));
      const leave = await other.guaranteedUpdate(`${prefix}p`, undefined, (c) => ({ ...c, metadata: { ...c.metadata, labels: { app: 'z' } } }));
      await other.guaranteedUpdate(`${prefix}p`, undefined, setData('k', '2'));
      const q = await other.create(`${prefix}q`, cm('q', { app: 'y' }));
      await r.waitFor(4);
      await sleep(100);
      expect(r.lines()).toEqual([
        `ADDED p ${enter.metadata.resourceVersion}`,
        `MODIFIED p ${stay.metadata.resourceVersion}`,
        `DELETED p ${leave.metadata.resourceVersion}`,
        `ADDED q ${q.metadata.resourceVersion}`,
      ]);
      // The DELETED object is the last state that matched.
      expect((r.events[2].object as KObject).metadata.labels).toEqual({ app: 'y' });
      r.watcher.stop();
    },
  },
  {
    name: 'sendInitialEvents: initial ADDED events, then a BOOKMARK annotated k8s.io/initial-events-end, then changes',
    async run({ storage, other, prefix }) {
      await other.create(`${prefix}a`, cm('a'));
      const b = await other.create(`${prefix}b`, cm('b'));
      const r = record(storage, prefix, { sendInitialEvents: true, allowWatchBookmarks: true, bookmarkType: { apiVersion: 'v1', kind: 'ConfigMap' } });
      await r.waitFor(3);
      expect(r.lines().slice(0, 2).map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual(['ADDED a', 'ADDED b']);
      const bm = r.events[2];
      expect(bm.type).toBe('BOOKMARK');
      expect(bm.object).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: expect.any(String), annotations: { 'k8s.io/initial-events-end': 'true' } } });
      expect(BigInt((bm.object as KObject).metadata.resourceVersion!)).toBeGreaterThanOrEqual(rv(b));
      const c = await other.create(`${prefix}c`, cm('c'));
      await r.waitFor(4);
      expect(r.lines()[3]).toBe(`ADDED c ${c.metadata.resourceVersion}`);
      r.watcher.stop();
    },
  },
];

export const etcdCases: Case<Harness>[] = [
  {
    name: 'etcd: a watch from a compacted revision ends with ERROR 410 "The resourceVersion for the provided watch is too old."',
    only: 'etcd',
    async run({ storage, other, client, prefix }) {
      const a = await other.create(`${prefix}a`, cm('a'));
      await other.guaranteedUpdate(`${prefix}a`, undefined, setData('k', '1'));
      await other.guaranteedUpdate(`${prefix}a`, undefined, setData('k', '2'));
      await client.compact(await other.currentRevision());
      const r = record(storage, prefix, { resourceVersion: a.metadata.resourceVersion });
      await r.waitFor(1);
      await r.watcher.done;
      expect(r.events[0]).toEqual({
        type: 'ERROR',
        object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'The resourceVersion for the provided watch is too old.', reason: 'Expired', code: 410 },
      });
      const e = await storageErr(storage.getList(prefix, { resourceVersion: a.metadata.resourceVersion, resourceVersionMatch: 'Exact' }));
      expect(e).toEqual({ code: 'Expired', message: 'The resourceVersion for the provided list is too old.' });
    },
  },
  {
    name: 'create with a TTL puts the key on an etcd lease',
    async run({ storage, other, client, prefix }) {
      const e = await storage.create(`${prefix}ev`, cm('ev'), { ttlSeconds: 3600 });
      const res = await client.range({ key: other.pathPrefix + `${prefix}ev` });
      expect(res.kvs[0].lease).not.toBe(0n);
      expect(res.kvs[0].modRevision.toString()).toBe(e.metadata.resourceVersion);
      const e2 = await storage.create(`${prefix}ev2`, cm('ev2'), { ttlSeconds: 3600 });
      const res2 = await client.range({ key: `${prefix}ev2` });
      expect(res2.kvs[0].lease).toBe(res.kvs[0].lease);
      void e2;
    },
  },
];

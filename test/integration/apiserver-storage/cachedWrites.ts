// Updates and deletes that start from the watch cache's copy (kube's cacher
// passes it to store.go as cachedExistingObject): the store tries the copy
// first and reads etcd only when the copy may be stale. Each case counts the
// etcd calls one store makes, so "no read when the copy is current" and
// "a stale copy still ends on the live object" are both checked.

import { expect } from 'vitest';
import type { KObject } from '../../../main/kube/object';
import { EtcdClient } from '../../../main/client/etcd/etcdClient';
import type { ChannelTransport } from '../../../main/client/etcd/etcdChannel';
import { EtcdStore } from '../../../main/apiserver/storage/etcdStore';
import { protobufCodec } from '../../../main/kube/codec';
import { WatchCache } from '../../../main/apiserver/storage/watchCache';
import { cm, storageErr } from '../../support/storage/storageConformance';
import { record } from '../../support/storage/watchRecorder';

export interface CachedWriteHarness {
  /** Another client's store over the same etcd, for writes the store under test did not make. */
  other: EtcdStore;
  prefix: string;
}

export interface CachedWriteCase {
  name: string;
  run(h: CachedWriteHarness, counted: CountedStore): Promise<void>;
}

export interface CountedStore {
  store: EtcdStore;
  calls: { range: number; txn: number };
  reset(): void;
  close(): void;
}

/** An EtcdStore whose client counts its Range and Txn calls. */
export function countedStore(endpoints: string[], transport?: ChannelTransport): CountedStore {
  const client = new EtcdClient({ endpoints, transport });
  const calls = { range: 0, txn: 0 };
  const range = client.range.bind(client);
  const txn = client.txn.bind(client);
  client.range = (r) => (calls.range++, range(r));
  client.txn = (c, s, f) => (calls.txn++, txn(c, s, f));
  const store = new EtcdStore({ client, codec: protobufCodec() });
  return {
    store,
    calls,
    reset: () => Object.assign(calls, { range: 0, txn: 0 }),
    close: () => client.close(),
  };
}

const setData = (k: string, v: string) => (cur: KObject): KObject => ({ ...cur, data: { ...(cur.data as object), [k]: v } });

export const cachedWriteCases: CachedWriteCase[] = [
  {
    name: 'an update from a current cached copy is one txn and no read',
    async run({ other, prefix }, { store, calls, reset }) {
      const v1 = await other.create(`${prefix}a`, cm('a', {}, { x: '1' }));
      reset();
      const seen: KObject[] = [];
      const got = await store.guaranteedUpdate(`${prefix}a`, undefined, (cur) => (seen.push(cur), setData('x', '2')(cur)), undefined, v1);
      expect(calls).toEqual({ range: 0, txn: 1 });
      expect(got.data).toEqual({ x: '2' });
      expect((await other.get(`${prefix}a`)).metadata.resourceVersion).toBe(got.metadata.resourceVersion);
      // tryUpdate got a copy: changing it cannot reach the cache's object.
      expect(seen[0]).not.toBe(v1);
    },
  },
  {
    name: 'a stale cached copy loses the compare; the retry starts from the live value the txn returned (no extra read)',
    async run({ other, prefix }, { store, calls, reset }) {
      const v1 = await other.create(`${prefix}a`, cm('a', {}, { x: '1' }));
      await other.guaranteedUpdate(`${prefix}a`, undefined, setData('y', 'live'));
      reset();
      const seen: string[] = [];
      const got = await store.guaranteedUpdate(`${prefix}a`, undefined, (cur) => (seen.push(JSON.stringify(cur.data)), setData('x', '2')(cur)), undefined, v1);
      expect(calls).toEqual({ range: 0, txn: 2 });
      expect(seen).toEqual(['{"x":"1"}', '{"x":"1","y":"live"}']);
      expect((await other.get(`${prefix}a`)).data).toEqual({ x: '2', y: 'live' });
      expect(got.data).toEqual({ x: '2', y: 'live' });
    },
  },
  {
    name: 'a precondition or tryUpdate failing on a stale copy is retried on the live object; on a current copy it fails after one read',
    async run({ other, prefix }, { store, calls, reset }) {
      // Deleted and made again: the cached copy has the old uid.
      const old = await other.create(`${prefix}a`, cm('a'));
      await other.delete(`${prefix}a`);
      await other.create(`${prefix}a`, { ...cm('a'), metadata: { ...cm('a').metadata, uid: 'uid-new' } });
      reset();
      const got = await store.guaranteedUpdate(`${prefix}a`, { uid: 'uid-new' }, setData('x', '1'), undefined, old);
      expect(got.metadata.uid).toBe('uid-new');
      expect(calls).toEqual({ range: 1, txn: 1 });

      // tryUpdate refuses what it sees in the stale copy; the live one passes.
      const stale = await other.get(`${prefix}a`);
      await other.guaranteedUpdate(`${prefix}a`, undefined, setData('ready', 'yes'));
      reset();
      const needsReady = (cur: KObject) => {
        if ((cur.data as Record<string, string>).ready !== 'yes') throw new Error('not ready');
        return setData('x', '2')(cur);
      };
      expect((await store.guaranteedUpdate(`${prefix}a`, undefined, needsReady, undefined, stale)).data).toMatchObject({ x: '2', ready: 'yes' });
      expect(calls).toEqual({ range: 1, txn: 1 });

      // On a copy that is in fact current the error stands, after one read to be sure; nothing is written.
      const current = await other.get(`${prefix}a`);
      reset();
      await expect(store.guaranteedUpdate(`${prefix}a`, undefined, () => { throw new Error('refused'); }, undefined, current)).rejects.toThrow('refused');
      expect(calls).toEqual({ range: 1, txn: 0 });
      const e = await storageErr(store.guaranteedUpdate(`${prefix}a`, { uid: 'uid-other' }, setData('x', '3'), undefined, current));
      expect(e.code).toBe('InvalidObj');
      expect((await other.get(`${prefix}a`)).metadata.resourceVersion).toBe(current.metadata.resourceVersion);
    },
  },
  {
    name: 'an update that changes nothing in the cached copy is confirmed against etcd: no write if etcd agrees, a write if etcd moved on',
    async run({ other, prefix }, { store, calls, reset }) {
      const v1 = await other.create(`${prefix}a`, cm('a', {}, { x: '1' }));
      reset();
      const same = await store.guaranteedUpdate(`${prefix}a`, undefined, (cur) => cur, undefined, v1);
      expect(calls).toEqual({ range: 1, txn: 0 });
      expect(same.metadata.resourceVersion).toBe(v1.metadata.resourceVersion);

      // The copy says x=1 and the update sets x=1; etcd has x=2 meanwhile, so x=1 must be written.
      await other.guaranteedUpdate(`${prefix}a`, undefined, setData('x', '2'));
      reset();
      const back = await store.guaranteedUpdate(`${prefix}a`, undefined, setData('x', '1'), undefined, v1);
      expect(calls).toEqual({ range: 1, txn: 1 });
      expect((await other.get(`${prefix}a`)).data).toEqual({ x: '1' });
      expect(BigInt(back.metadata.resourceVersion!)).toBeGreaterThan(BigInt(v1.metadata.resourceVersion!));
    },
  },
  {
    name: 'a delete from a cached copy is one txn; a stale copy or a failed precondition on it is rechecked against etcd',
    async run({ other, prefix }, { store, calls, reset }) {
      const a = await other.create(`${prefix}a`, cm('a'));
      reset();
      const gone = await store.delete(`${prefix}a`, undefined, undefined, a);
      expect(calls).toEqual({ range: 0, txn: 1 });
      expect(gone.metadata.name).toBe('a');
      expect((await storageErr(other.get(`${prefix}a`))).code).toBe('KeyNotFound');

      const b1 = await other.create(`${prefix}b`, cm('b', {}, { x: '1' }));
      await other.guaranteedUpdate(`${prefix}b`, undefined, setData('x', '2'));
      reset();
      const validated: string[] = [];
      const last = await store.delete(`${prefix}b`, undefined, (cur) => void validated.push((cur.data as Record<string, string>).x), b1);
      // The stale copy validated, lost the compare, the live value validated and was deleted.
      expect(validated).toEqual(['1', '2']);
      expect(calls).toEqual({ range: 0, txn: 2 });
      expect(last.data).toEqual({ x: '2' });

      // Recreated with another uid: a uid precondition that fails on the old copy is read again and holds.
      const c1 = await other.create(`${prefix}c`, cm('c'));
      await other.delete(`${prefix}c`);
      await other.create(`${prefix}c`, { ...cm('c'), metadata: { ...cm('c').metadata, uid: 'uid-c2' } });
      reset();
      await store.delete(`${prefix}c`, { uid: 'uid-c2' }, undefined, c1);
      expect(calls).toEqual({ range: 1, txn: 1 });
      // Gone in etcd, still in the copy: NotFound, as without a copy.
      expect((await storageErr(store.delete(`${prefix}c`, undefined, undefined, c1))).code).toBe('KeyNotFound');
    },
  },
  {
    name: 'through the watch cache: updates and deletes make no etcd reads once the cache holds the object, and selective watchers still see the right transitions',
    async run({ other, prefix }, counted) {
      const cache = new WatchCache({ store: counted.store, prefix, blockTimeoutMs: 1000 });
      await cache.start();
      try {
        const a = await cache.create(`${prefix}a`, cm('a', { tier: 'web' }));
        const web = record(cache, prefix, { resourceVersion: a.metadata.resourceVersion, predicate: (o) => o.metadata.labels?.tier === 'web' });
        await cache.get(`${prefix}a`, { resourceVersion: a.metadata.resourceVersion }); // the cache holds it
        counted.reset();
        const moved = await cache.guaranteedUpdate(`${prefix}a`, undefined, (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { tier: 'db' } } }));
        expect(counted.calls).toEqual({ range: 0, txn: 1 });
        // Leaving the selector: DELETED carrying the object as it was before, stamped with the event's revision.
        const [left] = await web.waitFor(1);
        expect(web.lines()).toEqual([`DELETED a ${moved.metadata.resourceVersion}`]);
        expect((left.object as KObject).metadata.labels).toEqual({ tier: 'web' });
        counted.reset();
        await cache.delete(`${prefix}a`);
        expect(counted.calls).toEqual({ range: 0, txn: 1 });
        expect((await storageErr(other.get(`${prefix}a`))).code).toBe('KeyNotFound');
        web.watcher.stop();
      } finally {
        await cache.close();
      }
    },
  },
];

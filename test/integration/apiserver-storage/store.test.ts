// The storage conformance table (test/support/storage/storageConformance.ts) against the etcd
// store and the watch cache (plus the cache's own cases, watchCacheCases.ts), on a real 3-member cluster (Pilothouse members;
// PILOTHOUSE_TEST_IMPL=etcd runs Debian's etcd 3.4), once over each etcd
// client transport (--etcd-client-transport: builtin, grpc-js). Ports 28000-28005.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KObject } from '../../../main/kube/object';
import type { ObjectEvent } from '../../../main/apiserver/storage/watchEvents';
import { EtcdClient } from '../../../main/client/etcd/etcdClient';
import { CHANNEL_TRANSPORTS } from '../../../main/client/etcd/etcdChannel';
import { EtcdStore } from '../../../main/apiserver/storage/etcdStore';
import { WatchCache, type WatchCacheOptions } from '../../../main/apiserver/storage/watchCache';
import { reapClusters, startTestCluster, TARGET, type TestCluster } from '../../support/cluster';
import { protobufCodec } from '../../../main/kube/codec';

const codec = protobufCodec();
import { cacheCases } from './watchCacheCases';
import { cases, cm, etcdCases, type Case, type Harness } from '../../support/storage/storageConformance';
import { cachedWriteCases, countedStore } from './cachedWrites';

const PORT_BASE = 28000;

let tc: TestCluster;
let n = 0;

beforeAll(async () => {
  tc = await startTestCluster(TARGET, PORT_BASE, 60_000);
});

afterAll(async () => {
  await reapClusters();
});

const table: Case<Harness>[] = [...cases, ...etcdCases];

describe.each(CHANNEL_TRANSPORTS)('over the %s transport', (transport) => {
  let client: EtcdClient;
  let otherClient: EtcdClient;
  let other: EtcdStore;

  beforeAll(() => {
    client = new EtcdClient({ endpoints: tc.endpoints, transport });
    otherClient = new EtcdClient({ endpoints: [...tc.endpoints].reverse(), transport });
    other = new EtcdStore({ client: otherClient, codec });
  });

  afterAll(() => {
    client?.close();
    otherClient?.close();
  });

  describe('etcd store', () => {
    for (const c of table.filter((c) => c.only !== 'cache')) {
      it(c.name, async () => {
        const storage = new EtcdStore({ client, codec });
        const h: Harness = { kind: 'etcd', storage, other, client, prefix: `/registry/etcd-${++n}/` };
        try {
          await c.run(h);
        } finally {
          await storage.close();
        }
      });
    }
  });

  describe('watch cache', () => {
    for (const c of [...table.filter((c) => c.only !== 'etcd'), ...cacheCases]) {
      it(c.name, async () => {
        const prefix = `/registry/cache-${++n}/`;
        const made: WatchCache[] = [];
        const makeCache = async (more: Partial<WatchCacheOptions> = {}) => {
          const cache = new WatchCache({ store: new EtcdStore({ client, codec }), prefix, blockTimeoutMs: 1000, ...more });
          made.push(cache);
          await cache.start();
          return cache;
        };
        const storage = await makeCache();
        const h: Harness = { kind: 'cache', storage, other, client, prefix, makeCache };
        try {
          await c.run(h);
        } finally {
          for (const m of made) await m.close();
        }
      });
    }
  });

  describe('updates and deletes from a cached copy', () => {
    for (const c of cachedWriteCases) {
      it(c.name, async () => {
        const counted = countedStore(tc.endpoints, transport);
        try {
          await c.run({ other, prefix: `/registry/cached-${++n}/` }, counted);
        } finally {
          counted.close();
        }
      });
    }
  });

  describe("a store's own writes and their watch events", () => {
    it('the event of a create or update this store made carries a separate copy of the object it decoded; others are decoded', async () => {
      let decodes = 0;
      const counting = { mediaType: codec.mediaType, encode: (o: KObject) => codec.encode(o), decode: (d: Uint8Array) => (decodes++, codec.decode(d)) };
      const store = new EtcdStore({ client, codec: counting });
      const prefix = `/registry/own-${++n}/`;
      const events: ObjectEvent[] = [];
      // holdsPrevious, as the watch cache: previous objects are decoded only when asked for, so the counts are the events' own.
      const w = store.watchRaw(prefix, (await store.currentRevision()) + 1n, { onEvents: (evs) => events.push(...evs), onProgress() {}, onCompacted() {}, onError() {}, holdsPrevious: true });
      const eventCount = async (want: number) => {
        for (let i = 0; i < 200 && events.length < want; i++) await new Promise((r) => setTimeout(r, 25));
        expect(events).toHaveLength(want);
      };
      try {
        const created = await store.create(`${prefix}a`, cm('a', {}, { x: '1' }));
        expect(decodes).toBe(1);
        await eventCount(1);
        expect(decodes).toBe(1);
        expect(events[0]!.obj).toEqual(created);
        expect(events[0]!.obj).not.toBe(created);
        created.data = { x: 'changed by the caller' };
        expect(events[0]!.obj!.data).toEqual({ x: '1' });

        // Another client's write: its event is decoded.
        await other.guaranteedUpdate(`${prefix}a`, undefined, (cur) => ({ ...cur, data: { x: '2' } }));
        await eventCount(2);
        expect(decodes).toBe(2);
        expect(events[1]!.obj!.data).toEqual({ x: '2' });

        // This store's update: a read and its decode, the written object's decode, none for the event.
        const updated = await store.guaranteedUpdate(`${prefix}a`, undefined, (cur) => ({ ...cur, data: { x: '3' } }));
        expect(decodes).toBe(4);
        await eventCount(3);
        expect(decodes).toBe(4);
        expect(events[2]!.obj).toEqual(updated);
        expect(events[2]!.obj!.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
      } finally {
        w.cancel();
        await store.close();
      }
    });
  });
});

// The storage conformance table (storageConformance.ts) against the etcd
// store and the watch cache (plus the cache's own cases, watchCacheCases.ts), on a real 3-member cluster (Pilothouse members;
// PILOTHOUSE_TEST_IMPL=etcd runs Debian's etcd 3.4). Ports 28000-28005.

import { afterAll, beforeAll, describe, it } from 'vitest';
import { EtcdClient } from '../../../main/apiserver/storage/etcdClient';
import { EtcdStore } from '../../../main/apiserver/storage/etcdStore';
import { WatchCache, type WatchCacheOptions } from '../../../main/apiserver/storage/watchCache';
import { reapClusters, startTestCluster, TARGET, type TestCluster } from '../harness/cluster';
import { protobufCodec } from '../../../main/apiserver/storage/codec';

const codec = protobufCodec();
import { cacheCases } from './watchCacheCases';
import { cases, type Harness } from './storageConformance';
import { cachedWriteCases, countedStore } from './cachedWrites';

const PORT_BASE = 28000;

let tc: TestCluster;
let client: EtcdClient;
let otherClient: EtcdClient;
let other: EtcdStore;
let n = 0;

beforeAll(async () => {
  tc = await startTestCluster(TARGET, PORT_BASE, 60_000);
  client = new EtcdClient({ endpoints: tc.endpoints });
  otherClient = new EtcdClient({ endpoints: [...tc.endpoints].reverse() });
  other = new EtcdStore({ client: otherClient, codec });
});

afterAll(async () => {
  client?.close();
  otherClient?.close();
  await reapClusters();
});

describe('etcd store', () => {
  for (const c of cases.filter((c) => c.only !== 'cache')) {
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
  for (const c of [...cases.filter((c) => c.only !== 'etcd'), ...cacheCases]) {
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
      const counted = countedStore(tc.endpoints);
      try {
        await c.run({ other, prefix: `/registry/cached-${++n}/` }, counted);
      } finally {
        counted.close();
      }
    });
  }
});

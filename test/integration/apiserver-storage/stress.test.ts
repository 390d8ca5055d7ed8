// 10,000 objects through the watch cache (correctness, not timing): the
// cache's list from memory equals etcd's, a paged walk (first page from the
// cache, the rest from etcd at the same revision) sees each object once, and
// a watch from "0" replays all of them. Ports 28030-28035.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { protobufCodec } from '../../../main/kube/codec';
import { EtcdClient } from '../../../main/client/etcd/etcdClient';
import { EtcdStore } from '../../../main/apiserver/storage/etcdStore';
import { WatchCache } from '../../../main/apiserver/storage/watchCache';
import { reapClusters, startTestCluster, TARGET, type TestCluster } from '../../support/cluster';
import { cm } from '../../support/storage/storageConformance';
import { record } from '../../support/storage/watchRecorder';

const PORT_BASE = 28030;
const N = 10_000;
/** etcd's default --max-txn-ops is 128. */
const PER_TXN = 100;

let tc: TestCluster;
let client: EtcdClient;

beforeAll(async () => {
  tc = await startTestCluster(TARGET, PORT_BASE, 60_000);
  client = new EtcdClient({ endpoints: tc.endpoints, callTimeoutMs: 30_000 });
});

afterAll(async () => {
  client?.close();
  await reapClusters();
});

it(`lists ${N.toLocaleString('en')} objects from the cache as etcd has them`, { timeout: 240_000 }, async () => {
  const codec = protobufCodec();
  const store = new EtcdStore({ client, codec });
  const prefix = '/registry/configmaps/';
  const name = (i: number) => `cm-${String(i).padStart(5, '0')}`;
  for (let i = 0; i < N; i += PER_TXN) {
    const puts = [];
    for (let j = i; j < Math.min(N, i + PER_TXN); j++) {
      const ns = `ns${j % 10}`;
      puts.push({ put: { key: `${prefix}${ns}/${name(j)}`, value: codec.encode({ ...cm(name(j), { n: String(j % 7) }), metadata: { name: name(j), namespace: ns, labels: { n: String(j % 7) } } }) } });
    }
    await client.txn([], puts, []);
  }
  const cache = new WatchCache({ store, prefix });
  await cache.start();
  try {
    const fromEtcd = await store.getList(prefix);
    const fromCache = await cache.getList(prefix);
    expect(fromEtcd.items.length).toBe(N);
    expect(fromCache.resourceVersion).toBe(fromEtcd.resourceVersion);
    expect(fromCache.items).toEqual(fromEtcd.items);

    const ns3 = await cache.getList(`${prefix}ns3/`, { resourceVersion: '0', predicate: (o) => o.metadata.labels?.n === '0' });
    expect(ns3.items.map((o) => o.metadata.name)).toEqual(
      fromEtcd.items.filter((o) => o.metadata.namespace === 'ns3' && o.metadata.labels?.n === '0').map((o) => o.metadata.name),
    );

    const seen: string[] = [];
    let page = await cache.getList(prefix, { limit: 500 });
    expect(page.remainingItemCount).toBe(N - 500);
    const rv = page.resourceVersion;
    for (let i = 0; i < N / 500 + 1; i++) {
      seen.push(...page.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`));
      if (!page.continue) break;
      expect(page.resourceVersion).toBe(rv);
      page = await cache.getList(prefix, { limit: 500, continue: page.continue });
    }
    expect(seen.length).toBe(N);
    expect(new Set(seen).size).toBe(N);

    const r = record(cache, prefix, { resourceVersion: '0' });
    await r.waitFor(N, 30_000);
    expect(r.events.every((e) => e.type === 'ADDED')).toBe(true);
    r.watcher.stop();
  } finally {
    await cache.close();
  }
});

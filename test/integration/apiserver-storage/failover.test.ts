// Member loss under the API server's storage: the member the etcd client
// (and so every watch) is connected to is killed with SIGKILL mid-stream.
// The etcd store's direct watch and the watch cache's watchers must resume on
// another member and deliver every change exactly once, in order; reads and
// writes move to the surviving members. Ports 28010-28015.

import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KObject } from '../../../main/kube/object';
import { protobufCodec } from '../../../main/kube/codec';
import { EtcdClient } from '../../../main/client/etcd/etcdClient';
import { EtcdStore } from '../../../main/apiserver/storage/etcdStore';
import { WatchCache } from '../../../main/apiserver/storage/watchCache';
import { reapClusters, startTestCluster, TARGET, type TestCluster } from '../../support/cluster';
import { cm } from '../../support/storage/storageConformance';
import { record, sleep } from '../../support/storage/watchRecorder';

const PORT_BASE = 28010;
const codec = protobufCodec();
const WRITES = 30;
const KILL_AFTER = 10;

let tc: TestCluster;
const clients: EtcdClient[] = [];

beforeAll(async () => {
  tc = await startTestCluster(TARGET, PORT_BASE, 60_000);
});

afterAll(async () => {
  for (const c of clients) c.close();
  await reapClusters();
});

/** A write that is retried until it lands; re-running it after a commit changes nothing (same bytes). */
async function setStep(store: EtcdStore, key: string, i: number): Promise<KObject> {
  let last: unknown;
  for (let attempt = 0; attempt < 60; attempt++) {
    try {
      return await store.guaranteedUpdate(key, undefined, (c) => ({ ...c, data: { i: String(i) } }));
    } catch (e) {
      last = e;
      await sleep(250);
    }
  }
  throw last;
}

it('watches of the etcd store and the cache survive kill -9 of their member: every change once, in order', async () => {
  const [m1, m2, m3] = tc.endpoints;
  const client = new EtcdClient({ endpoints: [m1, m2, m3], callTimeoutMs: 3000 });
  const writerClient = new EtcdClient({ endpoints: [m2, m3], callTimeoutMs: 3000 });
  clients.push(client, writerClient);
  const store = new EtcdStore({ client, codec });
  const writer = new EtcdStore({ client: writerClient, codec });
  const prefix = '/registry/failover/';
  const key = `${prefix}default/x`;
  const start = await writer.create(key, cm('x'));
  const cache = new WatchCache({ store, prefix });
  await cache.start();
  expect(client.currentEndpoint().target).toBe(m1);

  const direct = record(store, prefix, { resourceVersion: start.metadata.resourceVersion });
  const cached = record(cache, prefix, { resourceVersion: start.metadata.resourceVersion });
  const written: string[] = [];
  for (let i = 0; i < WRITES; i++) {
    if (i === KILL_AFTER) {
      await direct.waitFor(KILL_AFTER);
      tc.cluster.member('m1').kill('SIGKILL');
      await tc.cluster.member('m1').waitExit();
    }
    written.push((await setStep(writer, key, i)).metadata.resourceVersion!);
  }
  const want = written.map((rv, i) => `MODIFIED x ${rv} i=${i}`);
  const show = (r: ReturnType<typeof record>) =>
    r.events.map((e) => `${e.type} ${(e.object as KObject).metadata.name} ${(e.object as KObject).metadata.resourceVersion} i=${((e.object as KObject).data as Record<string, string>)?.i}`);
  await direct.waitFor(WRITES, 20_000);
  await cached.waitFor(WRITES, 20_000);
  await sleep(300); // nothing extra (no duplicates) arrives afterwards
  expect(show(direct)).toEqual(want);
  expect(show(cached)).toEqual(want);
  expect(client.currentEndpoint().target).not.toBe(m1);

  // Reads and writes through the first client moved on too.
  expect((await store.get(key)).metadata.resourceVersion).toBe(written[WRITES - 1]);
  const l = await cache.getList(prefix);
  expect(l.items.map((o) => (o.data as Record<string, string>).i)).toEqual([String(WRITES - 1)]);
  await store.guaranteedUpdate(key, undefined, (c) => ({ ...c, data: { i: 'after' } }));
  await cached.waitFor(WRITES + 1);
  direct.watcher.stop();
  cached.watcher.stop();
  await cache.close();
});

it('an endpoint that is down from the start is skipped for calls and watches', async () => {
  // 28099: inside this suite's port range, never listened on.
  const client = new EtcdClient({ endpoints: ['127.0.0.1:28099', ...tc.endpoints.slice(1)], callTimeoutMs: 3000 });
  clients.push(client);
  const store = new EtcdStore({ client, codec });
  const rev = await store.currentRevision();
  expect(rev).toBeGreaterThan(0n);
  expect(client.currentEndpoint().target).not.toBe('127.0.0.1:28099');
  const fresh = new EtcdClient({ endpoints: ['127.0.0.1:28099', ...tc.endpoints.slice(1)] });
  clients.push(fresh);
  const r = record(new EtcdStore({ client: fresh, codec }), '/registry/deadfirst/', { resourceVersion: '0' });
  const created = await store.create('/registry/deadfirst/default/a', cm('a'));
  await r.waitFor(1, 10_000);
  expect(r.lines()).toEqual([`ADDED a ${created.metadata.resourceVersion}`]);
  r.watcher.stop();
});

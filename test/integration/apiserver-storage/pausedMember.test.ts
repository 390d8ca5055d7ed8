// A paused member (SIGSTOP: the console's "pause" action, or a member stuck
// in a long GC or fsync) keeps its TCP connections open and answers nothing.
// The API server's etcd client must notice with keepalive pings, and its
// watches must resume on another member: every change once, in order.
// Ports 28050-28055.

import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KObject } from '../../../main/kube/object';
import { protobufCodec } from '../../../main/kube/codec';
import { EtcdClient } from '../../../main/client/etcd/etcdClient';
import { EtcdStore } from '../../../main/apiserver/storage/etcdStore';
import { WatchCache } from '../../../main/apiserver/storage/watchCache';
import { reapClusters, startTestCluster, TARGET, type TestCluster } from '../../support/cluster';
import { cm } from '../../support/storage/storageConformance';
import { record } from '../../support/storage/watchRecorder';

const PORT_BASE = 28050;
const codec = protobufCodec();

let tc: TestCluster;
const clients: EtcdClient[] = [];
let pausedPid: number | undefined;

beforeAll(async () => {
  tc = await startTestCluster(TARGET, PORT_BASE, 60_000);
});

afterAll(async () => {
  if (pausedPid) process.kill(pausedPid, 'SIGCONT');
  for (const c of clients) c.close();
  await reapClusters();
});

it('watches of the etcd store and the cache move off a paused member', async () => {
  const [m1, m2, m3] = tc.endpoints;
  const client = new EtcdClient({ endpoints: [m1, m2, m3], callTimeoutMs: 3000 });
  const writerClient = new EtcdClient({ endpoints: [m2, m3], callTimeoutMs: 3000 });
  clients.push(client, writerClient);
  const store = new EtcdStore({ client, codec });
  const writer = new EtcdStore({ client: writerClient, codec });
  const prefix = '/registry/paused/';
  const key = `${prefix}default/x`;
  const start = await writer.create(key, cm('x'));
  const cache = new WatchCache({ store, prefix });
  await cache.start();
  expect(client.currentEndpoint().target).toBe(m1);
  const direct = record(store, prefix, { resourceVersion: start.metadata.resourceVersion });
  const cached = record(cache, prefix, { resourceVersion: start.metadata.resourceVersion });

  const written: string[] = [];
  const step = async (i: number) => written.push((await writer.guaranteedUpdate(key, undefined, (c) => ({ ...c, data: { i: String(i) } }))).metadata.resourceVersion!);
  for (let i = 0; i < 3; i++) await step(i);
  await direct.waitFor(3);
  pausedPid = tc.cluster.member('m1').pid!;
  process.kill(pausedPid, 'SIGSTOP');
  for (let i = 3; i < 6; i++) await step(i);

  const want = written.map((rv, i) => `MODIFIED x ${rv} i=${i}`);
  const show = (r: ReturnType<typeof record>) =>
    r.events.map((e) => `${e.type} ${(e.object as KObject).metadata.name} ${(e.object as KObject).metadata.resourceVersion} i=${((e.object as KObject).data as Record<string, string>)?.i}`);
  await direct.waitFor(6, 30_000);
  await cached.waitFor(6, 30_000);
  expect(show(direct)).toEqual(want);
  expect(show(cached)).toEqual(want);
  expect(client.currentEndpoint().target).not.toBe(m1);
  direct.watcher.stop();
  cached.watcher.stop();
  await cache.close();
}, 90_000);

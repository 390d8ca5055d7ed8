// The storage over mutual TLS, as kube-apiserver runs it with --etcd-cafile,
// --etcd-certfile and --etcd-keyfile against https members (ports 28020-28025).

import { afterAll, beforeAll, expect, it } from 'vitest';
import { protobufCodec } from '../../../main/kube/codec';
import { EtcdClient } from '../../../main/client/etcd/etcdClient';
import { EtcdStore } from '../../../main/apiserver/storage/etcdStore';
import { WatchCache } from '../../../main/apiserver/storage/watchCache';
import { reapClusters, startTestCluster, TARGET, type TestCluster } from '../../support/cluster';
import { cm } from '../../support/storage/storageConformance';
import { record } from '../../support/storage/watchRecorder';

const PORT_BASE = 28020;
let tc: TestCluster;
const clients: EtcdClient[] = [];

beforeAll(async () => {
  tc = await startTestCluster(TARGET, PORT_BASE, 60_000, { tls: true });
});

afterAll(async () => {
  for (const c of clients) c.close();
  await reapClusters();
});

it('reads, writes and watches over https with a client certificate', async () => {
  const pki = tc.cluster.pki!;
  const urls = tc.cluster.layout.map((m) => m.clientUrl);
  expect(urls[0]).toMatch(/^https:\/\/127\.0\.0\.1:/);
  const client = new EtcdClient({ endpoints: urls, tls: { caFile: pki.ca.cert, certFile: pki.client.cert, keyFile: pki.client.key } });
  clients.push(client);
  const store = new EtcdStore({ client, codec: protobufCodec() });
  const cache = new WatchCache({ store, prefix: '/registry/configmaps/' });
  await cache.start();
  const r = record(cache, '/registry/configmaps/', { resourceVersion: '0' });
  const created = await store.create('/registry/configmaps/default/tls', cm('tls'));
  await r.waitFor(1);
  expect(r.lines()).toEqual([`ADDED tls ${created.metadata.resourceVersion}`]);
  expect((await cache.getList('/registry/configmaps/')).items.map((o) => o.metadata.name)).toEqual(['tls']);
  r.watcher.stop();
  await cache.close();
});

it('https endpoints without a client certificate are refused up front; a wrong CA fails the call', async () => {
  const urls = tc.cluster.layout.map((m) => m.clientUrl);
  expect(() => new EtcdClient({ endpoints: urls })).toThrow(`etcd endpoint ${urls[0]}: https needs --etcd-certfile and --etcd-keyfile`);
  const pki = tc.cluster.pki!;
  // The member's own server certificate is not a CA for the member's chain.
  const wrongCa = new EtcdClient({
    endpoints: urls.slice(0, 1),
    tls: { caFile: pki.client.cert, certFile: pki.client.cert, keyFile: pki.client.key },
    callTimeoutMs: 2000,
  });
  clients.push(wrongCa);
  await expect(new EtcdStore({ client: wrongCa, codec: protobufCodec() }).currentRevision()).rejects.toThrow(/UNAVAILABLE|DEADLINE_EXCEEDED/);
});

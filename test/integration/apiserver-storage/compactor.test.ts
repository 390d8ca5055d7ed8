// kube's etcd compactor on a real cluster (ports 28040-28045): rounds claim
// compact_rev_key by its version, compact to the previous round's revision,
// and two API servers racing for one round compact once.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { compactOnce, COMPACT_REV_KEY, startCompactor } from '../../../main/apiserver/storage/compactor';
import { EtcdClient, EtcdError } from '../../../main/client/etcd/etcdClient';
import { reapClusters, startTestCluster, TARGET, type TestCluster } from '../../support/cluster';
import { sleep } from '../../support/storage/watchRecorder';

const PORT_BASE = 28040;
let tc: TestCluster;
const clients: EtcdClient[] = [];

beforeAll(async () => {
  tc = await startTestCluster(TARGET, PORT_BASE, 60_000);
});

afterAll(async () => {
  for (const c of clients) c.close();
  await reapClusters();
});

const put = (c: EtcdClient, key: string) => c.txn([], [{ put: { key, value: Buffer.from('v') } }], []);

it('two API servers racing for a round: one compacts, the other adopts the new version', async () => {
  const a = new EtcdClient({ endpoints: tc.endpoints });
  const b = new EtcdClient({ endpoints: [...tc.endpoints].reverse() });
  clients.push(a, b);
  const first = await compactOnce(a, 0n, 0n);
  expect(first).toEqual({ version: 1n, revision: expect.any(BigInt) });
  await put(a, '/registry/x/1');
  const [ra, rb] = await Promise.all([compactOnce(a, 1n, first.revision), compactOnce(b, 1n, first.revision)]);
  expect([ra.compacted, rb.compacted].filter((x) => x !== undefined)).toEqual([first.revision]);
  expect(ra.version).toBe(2n);
  expect(rb.version).toBe(2n);
  const key = await a.range({ key: COMPACT_REV_KEY });
  expect(key.kvs[0].value.toString()).toBe(first.revision.toString());
  expect(key.kvs[0].version).toBe(2n);
  const old = await a.range({ key: '/registry/x/1', revision: first.revision - 1n }).catch((e) => e);
  expect(old).toBeInstanceOf(EtcdError);
  expect((old as EtcdError).details).toBe('etcdserver: mvcc: required revision has been compacted');
});

it('the background compactor keeps one interval of history', async () => {
  const c = new EtcdClient({ endpoints: tc.endpoints });
  clients.push(c);
  const start = (await c.range({ key: COMPACT_REV_KEY })).kvs[0].version;
  const errors: unknown[] = [];
  const compactor = startCompactor(c, 200, (e) => errors.push(e));
  try {
    for (let i = 0; i < 8; i++) {
      await put(c, `/registry/y/${i}`);
      await sleep(100);
    }
    await sleep(300);
  } finally {
    compactor.stop();
  }
  const rounds = compactor.rounds();
  expect(errors).toEqual([]);
  expect(rounds.length).toBeGreaterThanOrEqual(3);
  // The first round only adopts the shared version (another "server" ran rounds before).
  expect(rounds[0].compacted).toBeUndefined();
  for (let i = 1; i < rounds.length; i++) expect(rounds[i].compacted).toBe(rounds[i - 1].revision);
  expect((await c.range({ key: COMPACT_REV_KEY })).kvs[0].version).toBeGreaterThan(start);
});

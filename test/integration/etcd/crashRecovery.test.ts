// Kill -9 of all three members during a stream of writes, then a
// restart: every write the cluster acknowledged is there, with its value.
// (Unacknowledged writes may or may not be there; both are correct.)

import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PORTS, reapClusters, startTestCluster, TARGET, type TestCluster } from '../../support/cluster';
import { etcdctl } from '../../support/etcdctl';

const WRITERS = 8;
const STREAM_MS = 1_500;

describe(`kill -9 of every member during writes (${TARGET})`, () => {
  let tc: TestCluster;
  let client: Etcd3 | undefined;
  beforeAll(async () => {
    tc = await startTestCluster(TARGET, PORTS.crash);
  });
  afterAll(async () => {
    client?.close();
    await reapClusters();
  });

  it('keeps every acknowledged write across a full crash', async () => {
    client = new Etcd3({ hosts: tc.endpoints.map((e) => `http://${e}`), dialTimeout: 1_000 });
    const acked = new Map<string, string>();
    let stop = false;
    let seq = 0;
    const writer = async (w: number): Promise<void> => {
      // Bounded: at most STREAM_MS of writing plus the in-flight request.
      while (!stop) {
        const key = `crash/${w}/${seq++}`;
        const value = `value-${key}`;
        try {
          await client!.put(key).value(value);
          acked.set(key, value);
        } catch {
          return;
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
    await new Promise((r) => setTimeout(r, STREAM_MS));
    for (const m of tc.cluster.members.values()) m.kill('SIGKILL');
    stop = true;
    await Promise.all([...tc.cluster.members.values()].map((m) => m.waitExit()));
    client.close();
    client = undefined;
    await Promise.race([Promise.all(writers), new Promise((r) => setTimeout(r, 5_000))]);
    expect(acked.size, 'the stream acknowledged writes before the crash').toBeGreaterThan(20);

    await tc.cluster.start();
    const ready = await tc.cluster.waitReady(20_000);
    expect(ready.ok, [...ready.lastErrors.values()].join('; ')).toBe(true);

    const r = await etcdctl(['get', 'crash/', '--prefix', '-w', 'json'], { endpoints: tc.endpoints, timeoutMs: 20_000 });
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as { kvs?: { key: string; value: string }[] };
    const stored = new Map((body.kvs ?? []).map((kv) => [Buffer.from(kv.key, 'base64').toString(), Buffer.from(kv.value, 'base64').toString()]));
    const missing = [...acked].filter(([k, v]) => stored.get(k) !== v).map(([k]) => k);
    expect(missing, `${missing.length} of ${acked.size} acknowledged writes lost`).toEqual([]);
  });
});

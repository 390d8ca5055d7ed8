// The console's watch feed against a real 3-member Pilothouse cluster with
// mutual TLS: batches, the bounded ring, details with the previous version
// (from memory and, past the value budget, read back from etcd), and a feed
// that keeps going when a member dies. Ports 28950–28959.
// The member-killing case runs last (it leaves m1 down).

import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Etcd3 } from 'etcd3';
import type { BridgeEventName, BridgeEvents, EventSink, WatchEventRecord } from '../../../preload/contract';
import { WatchFeed } from '../../../main/console/watchFeed';
import { reapClusters, startTestCluster, type TestCluster } from '../../support/cluster';
import { eventually } from '../../support/waitFor';

const PORT_BASE = 28950;

class CollectingSink implements EventSink {
  readonly batches: WatchEventRecord[][] = [];
  emit<E extends BridgeEventName>(event: E, payload: BridgeEvents[E]): void {
    if (event === 'watchEvents') this.batches.push(payload as WatchEventRecord[]);
  }
  get all(): WatchEventRecord[] {
    return this.batches.flat();
  }
}

let tc: TestCluster;
let client: Etcd3;
const tlsFiles = () => ({ caFile: join(tc.dir, 'pki', 'ca.crt'), certFile: join(tc.dir, 'pki', 'client.crt'), keyFile: join(tc.dir, 'pki', 'client.key') });

beforeAll(async () => {
  tc = await startTestCluster('pilothouse', PORT_BASE, 30_000, { tls: true });
  const t = tlsFiles();
  client = new Etcd3({
    hosts: tc.cluster.layout.map((m) => m.clientUrl),
    credentials: { rootCertificate: readFileSync(t.caFile), certChain: readFileSync(t.certFile), privateKey: readFileSync(t.keyFile) },
  });
});

afterAll(async () => {
  client?.close();
  await reapClusters();
});

describe('WatchFeed', () => {
  it('streams puts and deletes in batches, parses registry keys and keeps the previous version', async () => {
    const sink = new CollectingSink();
    const feed = new WatchFeed({ endpoints: tc.cluster.layout.map((m) => m.clientUrl), tls: tlsFiles(), events: sink });
    await feed.start();
    try {
      const cm = (v: string) => JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'cfg', namespace: 'default' }, data: { v } });
      await client.put('/registry/configmaps/default/cfg').value(cm('one'));
      await client.put('/registry/configmaps/default/cfg').value(cm('two'));
      await client.put('plain-key').value('hello');
      await client.delete().key('/registry/configmaps/default/cfg');
      const all = await eventually('four events', () => (sink.all.length >= 4 ? sink.all : undefined), { timeoutMs: 10_000, intervalMs: 25 });
      expect(all.map((e) => [e.type, e.key])).toEqual([
        ['PUT', '/registry/configmaps/default/cfg'],
        ['PUT', '/registry/configmaps/default/cfg'],
        ['PUT', 'plain-key'],
        ['DELETE', '/registry/configmaps/default/cfg'],
      ]);
      expect(all[0]).toMatchObject({ resource: 'configmaps', namespace: 'default', name: 'cfg', kind: 'ConfigMap', source: 'etcd' });
      expect(BigInt(all[1].revision)).toBeGreaterThan(BigInt(all[0].revision));
      // Batched: fewer emits than events is the point, but never an empty batch.
      expect(sink.batches.every((b) => b.length > 0)).toBe(true);
      expect(feed.recent({ limit: 2 }).map((e) => e.seq)).toEqual([all[2].seq, all[3].seq]);

      const second = await feed.detail({ seq: all[1].seq });
      expect(second?.encoding).toBe('json');
      expect(second?.yaml).toContain('v: two');
      expect(second?.previousYaml).toContain('v: one');
      const deleted = await feed.detail({ seq: all[3].seq });
      expect(deleted?.yaml).toBe('');
      expect(deleted?.previousYaml).toContain('v: two');
      expect(await feed.detail({ seq: 999_999 })).toBeNull();
    } finally {
      feed.dispose();
    }
  });

  it('bounds the ring and reads values past the byte budget back from etcd', async () => {
    const sink = new CollectingSink();
    const feed = new WatchFeed({ endpoints: tc.cluster.layout.map((m) => m.clientUrl), tls: tlsFiles(), events: sink, prefix: '/ring/', capacity: 5, valueBudgetBytes: 64 });
    await feed.start();
    try {
      for (let i = 0; i < 8; i++) await client.put(`/ring/k`).value(`value-${i}-${'x'.repeat(20)}`);
      await eventually('eight events', () => sink.all.length >= 8, { timeoutMs: 10_000, intervalMs: 25 });
      const recent = feed.recent({ limit: 100 });
      expect(recent.map((e) => e.seq)).toEqual([4, 5, 6, 7, 8]);
      // The oldest kept record lost its cached value (budget 64 bytes) and is read back at its revision.
      const d = await feed.detail({ seq: 4 });
      expect(d?.yaml).toBe(`value-3-${'x'.repeat(20)}`);
      expect(d?.previousYaml).toBe(`value-2-${'x'.repeat(20)}`);
      expect(await feed.detail({ seq: 3 })).toBeNull();
    } finally {
      feed.dispose();
    }
  });

  it('moves off a paused member (SIGSTOP keeps the connection open and silent)', async () => {
    const sink = new CollectingSink();
    const two = tc.cluster.layout.filter((m) => m.name !== 'm3').map((m) => m.clientUrl);
    const feed = new WatchFeed({ endpoints: two, tls: tlsFiles(), events: sink, prefix: '/paused/' });
    const t = tlsFiles();
    const viaM3 = new Etcd3({
      hosts: [tc.cluster.layout[2].clientUrl],
      credentials: { rootCertificate: readFileSync(t.caFile), certChain: readFileSync(t.certFile), privateKey: readFileSync(t.keyFile) },
    });
    await feed.start();
    try {
      await client.put('/paused/start').value('0');
      await eventually('first event', () => sink.all.length >= 1, { timeoutMs: 10_000, intervalMs: 25 });
      // The watch is on m1 or m2: pausing each in turn pauses it once. Writes
      // go through m3 only (a client of a paused member would wait too).
      for (const name of ['m1', 'm2']) {
        const pid = tc.cluster.member(name).pid!;
        process.kill(pid, 'SIGSTOP');
        try {
          await viaM3.put(`/paused/while-${name}`).value('1');
          await eventually(`the write made while ${name} was paused`, () => sink.all.some((e) => e.key === `/paused/while-${name}`), { timeoutMs: 60_000, intervalMs: 25 });
        } finally {
          process.kill(pid, 'SIGCONT');
        }
      }
    } finally {
      feed.dispose();
      viaM3.close();
    }
  }, 150_000);

  it('keeps streaming after a member is killed', async () => {
    const sink = new CollectingSink();
    const feed = new WatchFeed({ endpoints: tc.cluster.layout.map((m) => m.clientUrl), tls: tlsFiles(), events: sink, prefix: '/survive/' });
    await feed.start();
    try {
      await client.put('/survive/a').value('1');
      await eventually('first event', () => sink.all.length >= 1, { timeoutMs: 10_000, intervalMs: 25 });
      tc.cluster.member('m1').kill('SIGKILL');
      for (let i = 0; i < 5; i++) await client.put(`/survive/b${i}`).value(String(i));
      const all = await eventually('the last put', () => (sink.all.some((e) => e.key === '/survive/b4') ? sink.all : undefined), { timeoutMs: 20_000, intervalMs: 25 });
      // Every write is there, in revision order, none twice. (A client whose
      // member died may retry a put; that is a second write at a new revision.)
      expect([...new Set(all.map((e) => e.key))]).toEqual(['/survive/a', '/survive/b0', '/survive/b1', '/survive/b2', '/survive/b3', '/survive/b4']);
      const revs = all.map((e) => BigInt(e.revision));
      for (let i = 1; i < revs.length; i++) expect(revs[i]).toBeGreaterThan(revs[i - 1]);
    } finally {
      feed.dispose();
    }
  }, 40_000);

});

// Watch against real processes, through Debian's etcdctl 3.4, the etcd3
// npm client and a raw gRPC client. Every expected output was first checked
// against Debian's etcd (PILOTHOUSE_TEST_IMPL=etcd). Ports 24700–24799.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials, Metadata } from '@grpc/grpc-js';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etcdGrpcPackage } from '../../support/etcdGrpc';
import { LocalCluster } from '../../../main/controlplane/localCluster';
import { memberNameForEndpoint, programFor, reapClusters, startTestCluster, TARGET, waitForLeader, type TestCluster } from '../../support/cluster';
import { ETCDCTL, etcdctl } from '../../support/etcdctl';
import { eventually } from '../../support/waitFor';

/** This file's port range (24700–24799): the 3-member cluster, then the single member. */
const PORT_BASE = 24700;
const SINGLE_PORT_BASE = 24720;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A long-running etcdctl (watch) whose output is read as it arrives. */
class LiveCtl {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(args: string[], endpoints: string[]) {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ETCDCTL_')));
    this.child = spawn(ETCDCTL, [`--endpoints=${endpoints.join(',')}`, ...args], { env: { ...env, ETCDCTL_API: '3' } });
    this.child.stdout.setEncoding('utf8').on('data', (d: string) => (this.stdout += d));
    this.child.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.child.stdin.on('error', () => {});
    this.exited = new Promise((resolve) => this.child.once('close', (code) => resolve(code)));
    live.push(this);
  }

  /** Waits (bounded) until stdout contains `text`. */
  async waitFor(text: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.stdout.includes(text)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${JSON.stringify(text)}; stdout=${JSON.stringify(this.stdout)} stderr=${this.stderr}`);
      await sleep(25);
    }
  }

  write(line: string): void {
    this.child.stdin.write(line);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}
const live: LiveCtl[] = [];

async function revisionOf(endpoints: string[]): Promise<number> {
  const r = await etcdctl(['get', 'no-such-key', '-w', 'json'], { endpoints });
  return Number(/"revision":(\d+)/.exec(r.stdout)![1]);
}

async function put(endpoints: string[], key: string, value: string): Promise<void> {
  const r = await etcdctl(['put', key, value], { endpoints });
  expect(r.stdout, r.stderr).toBe('OK\n');
}

describe(`watch through etcdctl and clients (${TARGET})`, () => {
  let tc: TestCluster;
  let follower: string;
  let all: string[];

  beforeAll(async () => {
    tc = await startTestCluster(TARGET, PORT_BASE);
    all = tc.endpoints;
    const leader = await waitForLeader(all, 10_000);
    follower = all.find((e) => e !== leader.endpoint)!;
  });
  afterAll(async () => {
    for (const c of live.splice(0)) await c.stop();
    await reapClusters();
  });

  it('watch --prefix on a follower prints every PUT and DELETE as etcdctl does', async () => {
    const w = new LiveCtl(['watch', '--prefix', 'w/'], [follower]);
    // the watch is live once a put shows up (etcdctl prints nothing on creation)
    for (let i = 0; i < 100 && !w.stdout.includes('w/ready'); i++) {
      await put(all, 'w/ready', 'yes');
      await sleep(100);
    }
    await w.waitFor('w/ready');
    const readyLines = w.stdout;
    await put(all, 'w/a', '1');
    await put(all, 'w/b', 'two words');
    await put(all, 'other', 'not watched');
    expect((await etcdctl(['del', 'w/a'], { endpoints: all })).stdout).toBe('1\n');
    await put(all, 'w/c', '3');
    await w.waitFor('w/c\n3\n');
    await w.stop();
    expect(w.stdout.slice(readyLines.length)).toBe('PUT\nw/a\n1\nPUT\nw/b\ntwo words\nDELETE\nw/a\n\nPUT\nw/c\n3\n');
  });

  it('watch --rev replays history, then follows live events; --prev-kv adds the previous value', async () => {
    const start = (await revisionOf(all)) + 1;
    await put(all, 'r', 'v1');
    await put(all, 'r', 'v2');
    expect((await etcdctl(['del', 'r'], { endpoints: all })).stdout).toBe('1\n');
    const plain = new LiveCtl(['watch', '--rev', String(start), 'r'], [follower]);
    const prev = new LiveCtl(['watch', '--rev', String(start), '--prev-kv', 'r'], [follower]);
    await plain.waitFor('DELETE\nr\n\n');
    await prev.waitFor('DELETE\nr\nv2\nr\n\n');
    await put(all, 'r', 'v3');
    await plain.waitFor('v3\n');
    await prev.waitFor('v3\n');
    await plain.stop();
    await prev.stop();
    expect(plain.stdout).toBe('PUT\nr\nv1\nPUT\nr\nv2\nDELETE\nr\n\nPUT\nr\nv3\n');
    expect(prev.stdout).toBe('PUT\nr\nv1\nPUT\nr\nv1\nr\nv2\nDELETE\nr\nv2\nr\n\nPUT\nr\nv3\n');
  });

  it('watch -i: `progress` prints the current revision', async () => {
    const w = new LiveCtl(['watch', '-i'], [follower]);
    w.write('watch p\n');
    for (let i = 0; i < 100 && !w.stdout.includes('PUT'); i++) {
      await put(all, 'p', 'x');
      await sleep(100);
    }
    await w.waitFor('PUT\np\nx\n');
    const rev = await revisionOf(all);
    w.write('progress\n');
    await w.waitFor('progress notify:');
    await sleep(100);
    await w.stop();
    const lines = w.stdout.split('\n');
    expect(lines.filter((l) => l.startsWith('progress notify:'))).toEqual([`progress notify: ${rev}`]);
  });

  it('a watch from a compacted revision fails with etcd\'s compacted error', async () => {
    const first = (await revisionOf(all)) + 1;
    await put(all, 'c', '1');
    await put(all, 'c', '2');
    const now = await revisionOf(all);
    // compacted through the member that is then watched: Compact returns once that member applied it
    expect((await etcdctl(['compact', String(now)], { endpoints: [follower] })).stdout).toBe(`compacted revision ${now}\n`);
    const r = await etcdctl(['watch', '--rev', String(first), 'c'], { endpoints: [follower], timeoutMs: 10_000 });
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('watch was canceled (etcdserver: mvcc: required revision has been compacted)\nError: watch is canceled by the server\n');
    expect(r.code).toBe(5);
  });

  it('the etcd3 client watcher resumes across kill -9 of its member without missing or repeating events', async () => {
    const leader = await waitForLeader(all, 10_000);
    const others = all.filter((e) => e !== leader.endpoint);
    const client = new Etcd3({ hosts: leader.endpoint, dialTimeout: 2000 });
    const writer = new Etcd3({ hosts: others, dialTimeout: 2000 });
    try {
      const seen: { key: string; rev: number; type: string }[] = [];
      const watcher = await client.watch().prefix('res/').create();
      watcher.on('put', (kv) => seen.push({ key: kv.key.toString(), rev: Number(kv.mod_revision), type: 'put' }));
      watcher.on('delete', (kv) => seen.push({ key: kv.key.toString(), rev: Number(kv.mod_revision), type: 'delete' }));
      const written: { key: string; rev: number; type: string }[] = [];
      // Each write is a txn guarded by a marker key outside the watched
      // prefix, so a retry after an ambiguous failure (a request cut by the
      // kill may still commit) never applies twice; the marker's revision is
      // the write's revision.
      const write = async (i: number) => {
        const key = `res/${i % 4}`;
        const marker = `res-log/${i}`;
        const del = i % 5 === 4;
        for (let attempt = 0; attempt < 50; attempt++) {
          try {
            let txn = writer.if(marker, 'Version', '==', 0);
            if (del) txn = txn.and(key, 'Version', '>', 0);
            await txn.then(del ? writer.delete().key(key) : writer.put(key).value(String(i)), writer.put(marker).value('1')).commit();
            const m = await writer.get(marker).exec();
            if (m.kvs.length === 1) written.push({ key, rev: Number(m.kvs[0]!.mod_revision), type: del ? 'delete' : 'put' });
            return;
          } catch {
            await sleep(200);
          }
        }
        throw new Error(`write ${i} never succeeded`);
      };
      for (let i = 0; i < 20; i++) await write(i);
      const leaderName = memberNameForEndpoint(tc, leader.endpoint);
      tc.cluster.member(leaderName).kill('SIGKILL');
      await tc.cluster.member(leaderName).waitExit();
      for (let i = 20; i < 40; i++) await write(i);
      tc.cluster.member(leaderName).start();
      for (let i = 40; i < 50; i++) await write(i);
      const lastRev = written[written.length - 1]!.rev;
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && (seen.length === 0 || seen[seen.length - 1]!.rev < lastRev)) await sleep(100);
      expect(seen).toEqual(written);
      // (no watcher.cancel(): client.close() ends the stream; cancel replies are tested over raw gRPC below)
    } finally {
      client.close();
      writer.close();
    }
  }, 90_000);

  // Last: it leaves the cluster without a quorum.
  it('a stream opened with hasleader ends with "etcdserver: no leader" once the member loses its leader', async () => {
    const etcdserverpb = etcdGrpcPackage();
    const target = all[2]!;
    const client = new etcdserverpb.Watch(target.replace(/^http:\/\//, ''), credentials.createInsecure());
    try {
      const md = new Metadata();
      md.set('hasleader', 'true');
      const stream = client.Watch(md);
      const responses: any[] = [];
      const ended = new Promise<{ code: number; details: string }>((resolve) => {
        stream.on('error', (err: any) => resolve({ code: err.code, details: err.details }));
        stream.on('end', () => resolve({ code: 0, details: 'ended' }));
      });
      stream.on('data', (r: any) => responses.push(r));
      stream.write({ create_request: { key: Buffer.from('hl') } });
      for (let i = 0; i < 200 && responses.length === 0; i++) await sleep(25);
      expect(responses[0]).toMatchObject({ created: true, watch_id: '0' });
      for (const ep of all.slice(0, 2)) {
        const name = memberNameForEndpoint(tc, ep);
        tc.cluster.member(name).kill('SIGKILL');
        await tc.cluster.member(name).waitExit();
      }
      const killedAt = Date.now();
      const outcome = await Promise.race([ended, sleep(20_000).then(() => ({ code: -1, details: 'still open after 20 s' }))]);
      expect(outcome).toEqual({ code: 14, details: 'etcdserver: no leader' });
      expect(Date.now() - killedAt).toBeLessThan(15_000);
    } finally {
      client.close();
    }
  }, 40_000);
});

// Raw gRPC on one member with a 1 s progress interval and a small
// max-request-bytes: periodic progress notifications and fragmentation.
describe(`watch progress notifications and fragments (${TARGET})`, () => {
  let cluster: LocalCluster;
  let dir: string;
  let watch: any;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `pilothouse-it-watch-${TARGET}-`));
    cluster = new LocalCluster({
      dataDir: dir,
      members: 1,
      portBase: SINGLE_PORT_BASE,
      program: programFor(TARGET),
      clusterToken: `it-${SINGLE_PORT_BASE}`,
      extraFlags: ['--experimental-watch-progress-notify-interval=1s', '--max-request-bytes=2048'],
    });
    await cluster.start();
    const ready = await cluster.waitReady(20_000);
    if (!ready.ok) throw new Error(`single member not ready: ${[...ready.lastErrors.values()].join('; ')}`);
    const etcdserverpb = etcdGrpcPackage();
    watch = new etcdserverpb.Watch(cluster.endpoints[0]!.replace(/^http:\/\//, ''), credentials.createInsecure());
  }, 30_000);
  afterAll(async () => {
    watch?.close();
    cluster.killAll();
    await Promise.all([...cluster.members.values()].map((m) => m.waitExit()));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Opens a stream with one create request and collects every response. */
  function openWatch(create: object) {
    const md = new Metadata();
    md.set('hasleader', 'true');
    const stream = watch.Watch(md);
    const responses: any[] = [];
    stream.on('data', (r: any) => responses.push(r));
    stream.on('error', () => {});
    stream.write({ create_request: create });
    return { stream, responses };
  }

  it('answers duplicate ids, empty ranges, cancels and progress requests as etcd does', async () => {
    const rev = await revisionOf(cluster.endpoints);
    const { stream, responses } = openWatch({ key: Buffer.from('d'), watch_id: 7 });
    stream.write({ create_request: { key: Buffer.from('d') } });
    stream.write({ create_request: { key: Buffer.from('e'), watch_id: 7 } });
    stream.write({ create_request: { key: Buffer.from('b'), range_end: Buffer.from('a') } });
    stream.write({ cancel_request: { watch_id: 7 } });
    stream.write({ cancel_request: { watch_id: 99 } });
    stream.write({ progress_request: {} });
    await eventually('the watch responses', () => responses.length >= 6, { timeoutMs: 10_000, intervalMs: 25 });
    await sleep(200);
    stream.cancel();
    const summary = responses.map((r) => ({
      id: r.watch_id,
      rev: Number(r.header.revision),
      created: r.created,
      canceled: r.canceled,
      reason: r.cancel_reason,
    }));
    expect(summary).toEqual([
      { id: '7', rev, created: true, canceled: false, reason: '' },
      { id: '0', rev, created: true, canceled: false, reason: '' },
      { id: '-1', rev, created: true, canceled: true, reason: 'mvcc: duplicate watch ID provided on the WatchStream' },
      { id: '-1', rev, created: true, canceled: true, reason: 'mvcc: watcher range is empty' },
      { id: '7', rev, created: false, canceled: true, reason: '' },
      { id: '-1', rev, created: false, canceled: false, reason: '' },
    ]);
  });

  it('a client that stops reading holds up no write and later gets every event once, in order', async () => {
    const ep = cluster.endpoints;
    const start = (await revisionOf(ep)) + 1;
    const stream = watch.Watch(new Metadata());
    stream.on('error', () => {});
    const revisions: number[] = [];
    let created = false;
    stream.on('data', (r: any) => {
      created ||= r.created;
      for (const ev of r.events) revisions.push(Number(ev.kv.mod_revision));
    });
    stream.write({ create_request: { key: Buffer.from('slow/'), range_end: Buffer.from('slow0') } });
    await eventually('the watch responses', () => created, { timeoutMs: 10_000, intervalMs: 25 });
    // Stop reading: grpc-js stops taking HTTP/2 data, flow control backs the server up.
    stream.pause();
    const client = new Etcd3({ hosts: ep });
    const N = 1000;
    const began = Date.now();
    try {
      for (let i = 0; i < N; i++) await client.put(`slow/${i % 10}`).value('y'.repeat(1500));
    } finally {
      client.close();
    }
    const writeMs = Date.now() - began;
    await sleep(300);
    expect(revisions.length).toBeLessThan(N);
    stream.resume();
    await eventually('the watch responses', () => revisions.length >= N, { timeoutMs: 20_000, intervalMs: 25 });
    await sleep(200);
    stream.cancel();
    expect(revisions).toEqual(Array.from({ length: N }, (_, i) => start + i));
    expect(writeMs).toBeLessThan(20_000);
  }, 60_000);

  it('delivers all events of one txn in one response, with prev_kv when asked', async () => {
    const ep = cluster.endpoints;
    await put(ep, 'at/a', 'old');
    await put(ep, 'at/c', 'c-old');
    const { stream, responses } = openWatch({ key: Buffer.from('at/'), range_end: Buffer.from('at0'), prev_kv: true });
    await eventually('the watch responses', () => responses.length >= 1, { timeoutMs: 10_000, intervalMs: 25 });
    const r = await etcdctl(['txn'], { endpoints: ep, stdin: '\nput at/a new\nput at/b 1\ndel at/c\n\n\n' });
    expect(r.stdout, r.stderr).toBe('SUCCESS\n\nOK\n\nOK\n\n1\n');
    await eventually('the watch responses', () => responses.length >= 2, { timeoutMs: 10_000, intervalMs: 25 });
    await sleep(200);
    stream.cancel();
    expect(responses.length).toBe(2);
    const events = responses[1].events.map((e: any) => [e.type, e.kv.key.toString(), e.kv.value.toString(), e.prev_kv?.value.toString() ?? null]);
    expect(events).toEqual([
      [0, 'at/a', 'new', 'old'], // PUT
      [0, 'at/b', '1', null],
      [1, 'at/c', '', 'c-old'], // DELETE
    ]);
    const mods = new Set(responses[1].events.map((e: any) => e.kv.mod_revision));
    expect(mods.size).toBe(1);
    expect([...mods][0]).toBe(responses[1].header.revision);
  });

  it('sends periodic progress notifications to a quiet progress_notify watcher', async () => {
    const ep = cluster.endpoints;
    const rev = await revisionOf(ep);
    const { stream, responses } = openWatch({ key: Buffer.from('quiet'), progress_notify: true });
    await eventually('the watch responses', () => responses.length >= 3, { timeoutMs: 8_000, intervalMs: 25 });
    stream.cancel();
    expect(responses[0]).toMatchObject({ created: true, watch_id: '0' });
    for (const r of responses.slice(1, 3)) {
      expect(r).toMatchObject({ watch_id: '0', created: false, canceled: false, events: [] });
      expect(Number(r.header.revision)).toBe(rev);
    }
  });

  it('splits a large response into fragments when asked, and only then', async () => {
    const N = 300;
    const ep = cluster.endpoints;
    const start = (await revisionOf(ep)) + 1;
    // 300 puts of 1900 bytes (each below the 2048-byte request limit), replayed
    // as one batch of ~580 KB: above etcd's threshold of max-request-bytes + 512 KiB
    const client = new Etcd3({ hosts: ep });
    try {
      for (let i = 0; i < N; i++) await client.put(`big/${String(i).padStart(3, '0')}`).value('x'.repeat(1900));
    } finally {
      client.close();
    }
    const frag = openWatch({ key: Buffer.from('big/'), range_end: Buffer.from('big0'), start_revision: start, fragment: true });
    const whole = openWatch({ key: Buffer.from('big/'), range_end: Buffer.from('big0'), start_revision: start });
    const count = (rs: any[]) => rs.reduce((n, x) => n + x.events.length, 0);
    await eventually('the watch responses', () => count(frag.responses) === N && count(whole.responses) === N, { timeoutMs: 10_000, intervalMs: 25 });
    frag.stream.cancel();
    whole.stream.cancel();
    const parts = frag.responses.slice(1);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.map((p) => p.fragment)).toEqual([...parts.slice(1).map(() => true), false]);
    expect(parts.flatMap((p) => p.events.map((e: any) => e.kv.key.toString()))).toEqual(
      Array.from({ length: N }, (_, i) => `big/${String(i).padStart(3, '0')}`),
    );
    expect(whole.responses.slice(1).map((p) => [p.fragment, p.events.length])).toEqual([[false, N]]);
  });
});

// Watch guarantees under chaos. Three members of real
// processes; writers issue multi-key txns and single puts/deletes under a
// prefix through any live member while a random member is SIGKILLed and
// restarted (never more than one down, so a quorum stays). Watchers on every
// member — the etcd3 client, which resumes itself, and raw gRPC streams that
// resume from the last seen revision + 1 on the next member — must each see
// every revision once, in order, with all events of a revision in one
// response. Seeded: WATCH_CHAOS_SEED=<n> replays a run's choices.

import { credentials, Metadata } from '@grpc/grpc-js';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etcdGrpcPackage } from '../../support/etcdGrpc';
import { memberLogTails, reapClusters, startTestCluster, TARGET, waitForLeader, type TestCluster } from '../../support/cluster';

/** This file's port range: 26100–26199. */
const PORT_BASE = 26100;
const PREFIX = 'wc/';
const PREFIX_END = 'wc0';
const WRITERS = 3;
const CHAOS_MS = 15_000;
const MIN_KILLS = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** mulberry32: a small seeded PRNG, so a failing run can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Ev {
  rev: number;
  type: 'put' | 'delete';
  key: string;
  value: string;
}

function sameEvents(a: Ev[], b: Ev[]): boolean {
  return a.length === b.length && a.every((e, i) => e.rev === b[i]!.rev && e.type === b[i]!.type && e.key === b[i]!.key && e.value === b[i]!.value);
}

const show = (evs: Ev[]) => evs.map((e) => `${e.type} ${e.key}=${e.value}`).join(', ');

/**
 * What one watcher received (one array per WatchResponse) against the
 * expected events per revision. Reports, in words:
 *  1. a revision after a higher one (out of order);
 *  2. a revision delivered whole more than once (duplicate);
 *  3. a revision whose events came in more than one response (split);
 *  4. a revision with other events than written, or never written;
 *  5. a written revision in (from, upTo] never delivered (gap).
 */
export function checkWatchHistory(responses: Ev[][], expected: Map<number, Ev[]>, from: number, upTo: number): string[] {
  const problems: string[] = [];
  const parts = new Map<number, { resp: number; events: Ev[] }[]>();
  let prev = 0;
  responses.forEach((resp, ri) => {
    for (const ev of resp) {
      if (ev.rev < prev) problems.push(`out of order: revision ${ev.rev} after ${prev} (response ${ri})`);
      prev = ev.rev;
      let list = parts.get(ev.rev);
      if (!list) parts.set(ev.rev, (list = []));
      let part = list.find((p) => p.resp === ri);
      if (!part) list.push((part = { resp: ri, events: [] }));
      part.events.push(ev);
    }
  });
  for (const [rev, list] of [...parts].sort((a, b) => a[0] - b[0])) {
    const want = expected.get(rev);
    if (!want) {
      problems.push(`unexpected revision ${rev}: ${show(list.flatMap((p) => p.events))}`);
    } else if (list.length > 1 && list.every((p) => sameEvents(p.events, want))) {
      problems.push(`duplicate: revision ${rev} delivered ${list.length} times (responses ${list.map((p) => p.resp).join(', ')})`);
    } else if (list.length > 1) {
      problems.push(`split: revision ${rev} came in ${list.length} responses (${list.map((p) => `#${p.resp}: ${show(p.events)}`).join(' | ')})`);
    } else if (!sameEvents(list[0]!.events, want)) {
      problems.push(`wrong events at revision ${rev}: got [${show(list[0]!.events)}], want [${show(want)}]`);
    }
  }
  for (const rev of [...expected.keys()].sort((a, b) => a - b)) {
    if (rev > from && rev <= upTo && !parts.has(rev)) problems.push(`gap: revision ${rev} never delivered`);
  }
  return problems;
}

function toEv(e: any): Ev {
  const del = e.type === 1 || /delete/i.test(String(e.type));
  return { rev: Number(e.kv.mod_revision), type: del ? 'delete' : 'put', key: e.kv.key.toString(), value: del ? '' : e.kv.value.toString() };
}

/** A watcher on one member through the etcd3 client, which resumes by itself after errors. */
class ClientWatcher {
  readonly responses: Ev[][] = [];
  errors = 0;
  private readonly client: Etcd3;
  constructor(
    readonly name: string,
    endpoint: string,
  ) {
    const backoff = { duration: 200, next: () => backoff };
    this.client = new Etcd3({ hosts: endpoint, dialTimeout: 1000, faultHandling: { watchBackoff: backoff } });
  }
  async start(fromRev: number): Promise<void> {
    const w = await this.client.watch().prefix(PREFIX).startRevision(String(fromRev)).create();
    w.on('data', (res) => {
      if (res.events.length > 0) this.responses.push(res.events.map(toEv));
    });
    w.on('error', () => this.errors++);
    w.on('disconnected', () => this.errors++);
  }
  lastRev(): number {
    const last = this.responses[this.responses.length - 1];
    return last ? last[last.length - 1]!.rev : 0;
  }
  close(): void {
    this.client.close();
  }
}

/**
 * A raw gRPC Watch stream that, on any error or end, reopens on the next
 * member from the last revision it saw + 1 — what a careful client does.
 */
class RawWatcher {
  readonly responses: Ev[][] = [];
  readonly cancels: string[] = [];
  reconnects = 0;
  private stopped = false;
  private stream: any = null;
  private lastSeen: number;
  constructor(
    readonly name: string,
    private readonly clients: any[],
    private next: number,
    fromRev: number,
  ) {
    this.lastSeen = fromRev - 1;
    this.open();
  }
  private open(): void {
    if (this.stopped) return;
    const client = this.clients[this.next++ % this.clients.length];
    const stream = client.Watch(new Metadata());
    this.stream = stream;
    let done = false;
    const reopen = () => {
      if (done) return;
      done = true;
      this.reconnects++;
      setTimeout(() => this.open(), 150);
    };
    stream.on('data', (r: any) => {
      if (r.canceled) {
        this.cancels.push(String(r.cancel_reason));
        stream.cancel();
        reopen();
        return;
      }
      if (r.events?.length > 0) {
        const evs: Ev[] = r.events.map(toEv);
        this.responses.push(evs);
        this.lastSeen = evs[evs.length - 1]!.rev;
      }
    });
    stream.on('error', reopen);
    stream.on('end', reopen);
    stream.write({ create_request: { key: Buffer.from(PREFIX), range_end: Buffer.from(PREFIX_END), start_revision: this.lastSeen + 1 } });
  }
  lastRev(): number {
    return this.lastSeen;
  }
  close(): void {
    this.stopped = true;
    this.stream?.cancel();
  }
}

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One writer owning keys wc/w<n>/k0..k3, so it knows which of them exist and
 * what events each write makes. Every write is a txn guarded by its own marker
 * key outside the prefix: a retry after an ambiguous failure never applies
 * twice, and the marker's mod revision is the write's revision.
 */
async function runWriter(w: number, client: Etcd3, rand: () => number, until: () => boolean, expected: Map<number, Ev[]>): Promise<number> {
  const exists = new Set<string>();
  const keys = [0, 1, 2, 3].map((k) => `${PREFIX}w${w}/k${k}`);
  let i = 0;
  for (; !until() && i < 10_000; i++) {
    const marker = `wcm/${w}/${i}`;
    const r = rand();
    const ops: { type: 'put' | 'delete'; key: string; value: string }[] = [];
    if (r < 0.45) {
      // A multi-key txn: 2–4 distinct keys, each a put, or a delete when it exists (at most one delete).
      const n = 2 + Math.floor(rand() * 3);
      const picked = [...keys].sort(() => rand() - 0.5).slice(0, n);
      let deleted = false;
      for (const key of picked) {
        if (!deleted && exists.has(key) && rand() < 0.3) {
          ops.push({ type: 'delete', key, value: '' });
          deleted = true;
        } else ops.push({ type: 'put', key, value: `${w}-${i}-${key}` });
      }
    } else {
      const key = keys[Math.floor(rand() * keys.length)]!;
      if (exists.has(key) && r > 0.8) ops.push({ type: 'delete', key, value: '' });
      else ops.push({ type: 'put', key, value: `${w}-${i}` });
    }
    let rev = 0;
    for (let attempt = 0; attempt < 60 && rev === 0; attempt++) {
      try {
        const txn = client.if(marker, 'Version', '==', 0).then(...ops.map((o) => (o.type === 'delete' ? client.delete().key(o.key) : client.put(o.key).value(o.value))), client.put(marker).value('1'));
        await withTimeout(txn.commit(), 3000);
        const m = await withTimeout(client.get(marker).exec(), 3000);
        if (m.kvs.length === 1) rev = Number(m.kvs[0]!.mod_revision);
      } catch {
        await sleep(100);
      }
    }
    if (rev === 0) throw new Error(`writer ${w}: write ${i} never succeeded`);
    expected.set(rev, ops.map((o) => ({ rev, ...o })));
    for (const o of ops) (o.type === 'delete' ? exists.delete(o.key) : exists.add(o.key));
  }
  return i;
}

describe(`checkWatchHistory (the chaos test's checker)`, () => {
  const ev = (rev: number, key: string): Ev => ({ rev, type: 'put', key, value: `v${rev}` });
  const expected = new Map<number, Ev[]>([
    [2, [ev(2, 'a'), ev(2, 'b')]],
    [3, [ev(3, 'c')]],
    [4, [ev(4, 'a')]],
    [5, [ev(5, 'b'), ev(5, 'c')]],
  ]);

  it('accepts a complete history, in any batching of whole revisions', () => {
    expect(checkWatchHistory([[...expected.get(2)!, ...expected.get(3)!], expected.get(4)!, expected.get(5)!], expected, 1, 5)).toEqual([]);
  });

  it('reports a gap, a duplicate, a split revision, disorder and foreign events', () => {
    const gap = checkWatchHistory([expected.get(2)!, expected.get(4)!, expected.get(5)!], expected, 1, 5);
    expect(gap).toEqual(['gap: revision 3 never delivered']);
    const dup = checkWatchHistory([expected.get(2)!, expected.get(3)!, expected.get(3)!, expected.get(4)!, expected.get(5)!], expected, 1, 5);
    expect(dup).toEqual(['duplicate: revision 3 delivered 2 times (responses 1, 2)']);
    const split = checkWatchHistory([expected.get(2)!, expected.get(3)!, expected.get(4)!, [ev(5, 'b')], [ev(5, 'c')]], expected, 1, 5);
    expect(split).toEqual(['split: revision 5 came in 2 responses (#3: put b=v5 | #4: put c=v5)']);
    const disorder = checkWatchHistory([expected.get(2)!, expected.get(4)!, expected.get(3)!, expected.get(5)!], expected, 1, 5);
    expect(disorder).toEqual(['out of order: revision 3 after 4 (response 2)']);
    const foreign = checkWatchHistory([expected.get(2)!, expected.get(3)!, [ev(4, 'z')], expected.get(5)!, [ev(6, 'x')]], expected, 1, 5);
    expect(foreign).toEqual(['wrong events at revision 4: got [put z=v4], want [put a=v4]', 'unexpected revision 6: put x=v6']);
  });
});

describe(`watch guarantees under member kills (${TARGET})`, () => {
  let tc: TestCluster;

  beforeAll(async () => {
    tc = await startTestCluster(TARGET, PORT_BASE);
    await waitForLeader(tc.endpoints, 10_000);
  }, 30_000);
  afterAll(async () => {
    await reapClusters();
  });

  it('every watcher sees every revision once, in order, each revision in one response', async () => {
    const seed = Number(process.env.WATCH_CHAOS_SEED ?? Date.now() % 1_000_000);
    const rand = prng(seed);
    const all = tc.endpoints;
    const writer = new Etcd3({ hosts: all, dialTimeout: 1000 });
    const etcdserverpb = etcdGrpcPackage();
    const grpcClients = all.map((e) => new etcdserverpb.Watch(e.replace(/^http:\/\//, ''), credentials.createInsecure()));
    const clientWatchers = all.map((e, n) => new ClientWatcher(`etcd3@m${n + 1}`, e));
    const rawWatchers: RawWatcher[] = [];
    const log: string[] = [];
    try {
      const startRev = Number((await writer.get('wc-start').exec()).header.revision) + 1;
      for (const w of clientWatchers) await w.start(startRev);
      for (let n = 0; n < all.length; n++) rawWatchers.push(new RawWatcher(`raw-from-m${n + 1}`, grpcClients, n, startRev));
      const watchers: (ClientWatcher | RawWatcher)[] = [...clientWatchers, ...rawWatchers];

      const expected = new Map<number, Ev[]>();
      const t0 = Date.now();
      let stop = false;
      const writers = Array.from({ length: WRITERS }, (_, w) => runWriter(w, writer, prng(seed * 31 + w + 1), () => stop, expected));

      // Chaos: kill -9 a random member, wait, restart it; one down at a time.
      // At least MIN_KILLS kills, more while time is left (bounded either way).
      const names = tc.cluster.layout.map((m) => m.name);
      for (let kills = 0; kills < 10 && (kills < MIN_KILLS || Date.now() - t0 < CHAOS_MS); kills++) {
        await sleep(300 + rand() * 1000);
        const name = names[Math.floor(rand() * names.length)]!;
        const member = tc.cluster.member(name);
        member.kill('SIGKILL');
        await member.waitExit();
        log.push(`+${Date.now() - t0}ms kill ${name}`);
        await sleep(300 + rand() * 1500);
        member.start();
        log.push(`+${Date.now() - t0}ms restart ${name}`);
        // Let it rejoin (its status names a leader) before the next kill, so two members are never away at once.
        // (Raw gRPC with a deadline: the etcd3 client's circuit breaker would hold a fresh probe back for 5 s.)
        const probe = new etcdserverpb.Maintenance(tc.cluster.layout.find((m) => m.name === name)!.endpoint.replace(/^http:\/\//, ''), credentials.createInsecure());
        try {
          for (let k = 0; k < 100; k++) {
            const ok = await new Promise<boolean>((resolve) => probe.Status({}, { deadline: Date.now() + 1000 }, (err: Error | null, res: any) => resolve(!err && Number(res.leader) !== 0)));
            if (ok) break;
            await sleep(100);
          }
        } finally {
          probe.close();
        }
        log.push(`+${Date.now() - t0}ms ${name} knows a leader again`);
        await sleep(500);
      }
      stop = true;
      const counts = await Promise.all(writers);
      log.push(`+${Date.now() - t0}ms writers done: ${counts.join('+')} writes`);

      // Ground truth: only the writers write, one marker-guarded txn per
      // revision, so (startRev, final] is exactly the written revisions.
      const finalRev = Number((await writer.get('wc-end').exec()).header.revision);
      const revs = [...expected.keys()].sort((a, b) => a - b);
      const context = () => `seed=${seed} (replay: WATCH_CHAOS_SEED=${seed})\n${log.join('\n')}`;
      expect(revs, context()).toEqual(Array.from({ length: finalRev - startRev + 1 }, (_, k) => startRev + k));
      expect(revs.length).toBeGreaterThan(20);
      expect(log.filter((l) => l.includes(' kill ')).length).toBeGreaterThanOrEqual(MIN_KILLS);

      // The stored state agrees with the writers' view.
      const state = new Map<string, string>();
      for (const rev of revs) for (const e of expected.get(rev)!) (e.type === 'delete' ? state.delete(e.key) : state.set(e.key, e.value));
      const stored = await writer.getAll().prefix(PREFIX).strings();
      expect(new Map(Object.entries(stored)), context()).toEqual(state);

      // Every watcher catches up (bounded), then must hold all three guarantees.
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && watchers.some((w) => w.lastRev() < finalRev)) await sleep(100);
      const fresh = new RawWatcher('fresh-from-start', grpcClients, 0, startRev);
      rawWatchers.push(fresh);
      while (Date.now() < deadline && fresh.lastRev() < finalRev) await sleep(100);

      const report: string[] = [];
      for (const w of [...watchers, fresh]) {
        const problems = checkWatchHistory(w.responses, expected, startRev - 1, finalRev);
        const stats = w instanceof RawWatcher ? `${w.reconnects} reconnects, cancels: ${JSON.stringify(w.cancels)}` : `${w.errors} errors`;
        log.push(`${w.name}: ${w.responses.length} responses up to revision ${w.lastRev()}, ${stats}`);
        report.push(...problems.slice(0, 10).map((p) => `${w.name}: ${p}`));
        if (problems.length > 10) report.push(`${w.name}: ... ${problems.length - 10} more`);
      }
      expect(report, `${context()}\n${report.join('\n')}\n${memberLogTails(tc.cluster, 5)}`).toEqual([]);
      console.log(`watch chaos ${context()}`);
    } finally {
      for (const w of clientWatchers) w.close();
      for (const w of rawWatchers) w.close();
      for (const c of grpcClients) c.close();
      writer.close();
    }
  }, 150_000);
});

// Watchers that stop reading, against a real API server. A watch whose
// client never reads (its response paused, so the socket stops draining)
// while 500 KiB ConfigMaps are updated again and again must not be buffered
// without bound: the API server's RSS stays within a margin of what the same
// updates cost without it, the stuck watch is closed with kube's log line
// and its stream ends cleanly, a normal watcher (@kubernetes/client-node)
// receives every event meanwhile, and a client resuming from the last
// resourceVersion it read continues (410 Expired and a relist, as client-go
// does, when the window has moved on). The same for the trace stream.

import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { KubeConfig, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';

const PORT_BASE = 20500;
const CONFIGMAPS = 100;
const VALUE_BYTES = 500 * 1024;
/** Updates in flight at once: fast enough to pile up, slow enough for a normal watcher to keep up. */
const IN_FLIGHT = 4;
/** Watchers that never read, open during PHASE_ROUNDS rounds of updates: 10 × 200 × 500 KiB they are sent and never read. */
const STUCK_WATCHERS = 10;
/** Rounds (each updates every ConfigMap) measured without, then with the stuck watchers. */
const PHASE_ROUNDS = 2;
/**
 * What the API server may grow above its peak in as many rounds without
 * stuck watchers. Buffering without bound would be about 1,000 MiB (each
 * watcher's TLS stream holds its own encrypted copy of 200 × 500 KiB); peak
 * RSS between two phases varies with GC timing, measured 15–266 MiB growth
 * with the bound in place, so the margin sits well between the two.
 */
const RSS_MARGIN_BYTES = 400 * 1024 * 1024;
const NS_PATH = '/api/v1/namespaces/default/configmaps';
/** Requests made while a trace follower never reads: ~12 KiB traces, far past what the sockets hold. */
const TRACE_REQUESTS = 1500;
const TRACES_PATH_WATCH = '/debug/pilothouse/traces?watch=true';
const TRACES_FORCED_CLOSE = /apiserver: Forcing traces watcher close due to unresponsiveness: path: "\/debug\/pilothouse\/traces"\. len\(c\.input\) = \d+, len\(c\.result\) = \d+, graceful = false/;
const FORCED_CLOSE = /apiserver: Forcing configmaps watcher close due to unresponsiveness: key: "\/registry\/configmaps\/default\/", labels: "", fields: ""\. len\(c\.input\) = \d+, len\(c\.result\) = \d+, graceful = false/;

let api: TestApiServer;
let kc: KubeConfig;
let agent: Agent;
let tlsOpts: { ca: Buffer; cert: Buffer; key: Buffer };

beforeAll(async () => {
  // A small window for ConfigMaps keeps the baseline bounded (the window holds every event it keeps).
  api = await startTestApiServer(PORT_BASE, ['--watch-cache-sizes=configmaps#50']);
  kc = new KubeConfig();
  kc.loadFromFile(api.layout.kubeconfig);
  const pki = api.layout.pki;
  tlsOpts = { ca: readFileSync(pki.ca.cert), cert: readFileSync(pki.admin.cert), key: readFileSync(pki.admin.key) };
  agent = new Agent({ ...tlsOpts, keepAlive: true, maxSockets: IN_FLIGHT });
}, 180_000);

afterAll(async () => {
  agent?.destroy();
  await reapApiServers();
});

function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(`${api.layout.url}${path}`, { method, agent, headers: text ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const out = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, json: out ? (JSON.parse(out) as Record<string, unknown>) : {} });
      });
    });
    req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(text);
  });
}

/** A streaming GET on its own connection; the response is handed over unread (paused). */
function openStream(path: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(`${api.layout.url}${path}`, { ...tlsOpts, agent: false }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`GET ${path}: ${res.statusCode}`));
      else resolve(res);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Reads a paused stream to its end: its lines and whether it ended cleanly (the chunked terminator arrived). */
function drain(res: IncomingMessage): Promise<{ lines: string[]; ended: boolean }> {
  return new Promise((resolve) => {
    let rest = '';
    const lines: string[] = [];
    res.setEncoding('utf8');
    res.on('data', (d: string) => {
      const parts = (rest + d).split('\n');
      rest = parts.pop()!;
      lines.push(...parts);
    });
    res.on('end', () => resolve({ lines, ended: true }));
    res.on('error', () => resolve({ lines, ended: false }));
    res.on('close', () => resolve({ lines, ended: res.complete }));
    res.resume();
  });
}

const mib = (n: number): number => Math.round(n / 2 ** 20);

function rss(): number {
  const status = readFileSync(`/proc/${api.proc.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** Samples the API server's RSS while `work` runs; resolves with the peak. */
async function peakRss<T>(work: () => Promise<T>): Promise<{ peak: number; result: T }> {
  let peak = rss();
  const timer = setInterval(() => (peak = Math.max(peak, rss())), 100);
  try {
    const result = await work();
    return { peak: Math.max(peak, rss()), result };
  } finally {
    clearInterval(timer);
  }
}

function configMap(i: number, round: number): Record<string, unknown> {
  const name = `big-${String(i).padStart(3, '0')}`;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { blob: `${round}:`.padEnd(VALUE_BYTES, 'x') } };
}

/** Creates (round 0) or updates every ConfigMap, IN_FLIGHT at a time; resolves with "name@rv" of each write. */
async function writeRound(round: number): Promise<string[]> {
  const written: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < CONFIGMAPS) {
      const i = next++;
      const cm = configMap(i, round);
      const name = (cm.metadata as { name: string }).name;
      const r = round === 0 ? await call('POST', NS_PATH, cm) : await call('PUT', `${NS_PATH}/${name}`, cm);
      if (r.status !== 200 && r.status !== 201) throw new Error(`write ${name}: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
      written.push(`${name}@${(r.json.metadata as { resourceVersion: string }).resourceVersion}`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return written;
}

interface Followed {
  seen: Set<string>;
  errors: unknown[];
  abort(): void;
}

/** @kubernetes/client-node's Watch from rv, recording "name@rv" of each MODIFIED/ADDED event. */
async function follow(rv: string): Promise<Followed> {
  const seen = new Set<string>();
  const errors: unknown[] = [];
  const controller = await new Watch(kc).watch(
    NS_PATH,
    { resourceVersion: rv },
    (phase, obj: { metadata: { name: string; resourceVersion: string } }) => {
      if (phase === 'ADDED' || phase === 'MODIFIED') seen.add(`${obj.metadata.name}@${obj.metadata.resourceVersion}`);
    },
    (err) => errors.push(err ?? 'ended'),
  );
  return { seen, errors, abort: () => controller.abort() };
}

async function waitSeen(f: Followed, want: string[], what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (want.some((w) => !f.seen.has(w))) {
    if (f.errors.length) throw new Error(`${what}: the normal watch ended: ${String(f.errors[0])}`);
    if (Date.now() > deadline) throw new Error(`${what}: missing ${want.filter((w) => !f.seen.has(w)).length} of ${want.length} events`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function logText(): string {
  return readFileSync(api.layout.logFile, 'utf8');
}

describe('watch backpressure', () => {
  it('a watcher that never reads is closed with bounded memory; a normal watcher gets every event; the stuck client resumes', async () => {
    const start = await call('GET', NS_PATH);
    const rv0 = (start.json.metadata as { resourceVersion: string }).resourceVersion;
    const normal = await follow(rv0);
    try {
      // Baseline: the same kind of work (every ConfigMap written, the normal watcher following) without a stuck watcher.
      const created = await writeRound(0);
      await waitSeen(normal, created, 'creates');
      const rounds = async (from: number): Promise<void> => {
        for (let round = from; round < from + PHASE_ROUNDS; round++) await waitSeen(normal, await writeRound(round), `round ${round}`);
      };
      const base = await peakRss(() => rounds(1));

      const listed = await call('GET', NS_PATH);
      const stuckFrom = (listed.json.metadata as { resourceVersion: string }).resourceVersion;
      const stuck = await Promise.all(Array.from({ length: STUCK_WATCHERS }, () => openStream(`${NS_PATH}?watch=true&resourceVersion=${stuckFrom}`)));
      const loaded = await peakRss(() => rounds(1 + PHASE_ROUNDS));
      const closes = logText().split('\n').filter((l) => FORCED_CLOSE.test(l));
      process.stdout.write(
        `watchBackpressure: API server RSS peak ${mib(base.peak)} MiB in a round without stuck watchers, ${mib(loaded.peak)} MiB with ${STUCK_WATCHERS} (${PHASE_ROUNDS * CONFIGMAPS} updates of ${VALUE_BYTES / 1024} KiB each they never read); ${closes.length} closed\n${closes[0]}\n`,
      );
      expect(loaded.peak - base.peak).toBeLessThan(RSS_MARGIN_BYTES);
      expect(closes.length).toBe(STUCK_WATCHERS);
      expect(normal.errors).toEqual([]);

      // The stuck client reads what it was sent: a clean end of the stream, events in order.
      const got = await drain(stuck[0]);
      await Promise.all(stuck.slice(1).map(drain));
      expect(got.ended).toBe(true);
      const events = got.lines.filter((l) => l !== '').map((l) => JSON.parse(l) as { type: string; object: { metadata: { resourceVersion: string } } });
      expect(events.length).toBeGreaterThan(0);
      expect(events.every((e) => e.type === 'MODIFIED')).toBe(true);
      const rvs = events.map((e) => BigInt(e.object.metadata.resourceVersion));
      expect(rvs.every((rv, i) => i === 0 || rv > rvs[i - 1])).toBe(true);
      const last = rvs[rvs.length - 1].toString();

      // It resumes from the last resourceVersion it read: the window (50 events) has moved on, so 410 Expired
      // inside the stream, then a relist and a watch from the list, which sees the next update.
      const resumed = await drain(await openStream(`${NS_PATH}?watch=true&resourceVersion=${last}`));
      const first = JSON.parse(resumed.lines[0]) as { type: string; object: { code?: number; reason?: string } };
      expect(first).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
      const relisted = await call('GET', NS_PATH);
      expect((relisted.json.items as unknown[]).length).toBe(CONFIGMAPS);
      const again = await follow((relisted.json.metadata as { resourceVersion: string }).resourceVersion);
      try {
        const next = await writeRound(1 + 2 * PHASE_ROUNDS);
        await waitSeen(again, next, 'after the relist');
      } finally {
        again.abort();
      }
    } finally {
      normal.abort();
    }
  }, 900_000);

  it('a trace follower that never reads is closed; a normal follower gets every trace; a reconnecting one continues', async () => {
    const normal = await openStream(TRACES_PATH_WATCH);
    const normalLines = collectLines(normal);
    const stuck = await openStream(TRACES_PATH_WATCH);
    // Traces as large as a request makes them: a long name in the path, the message and the trace's name.
    const long = 'n'.repeat(4000);
    const names = Array.from({ length: TRACE_REQUESTS }, (_, i) => `${long}-${i}`);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < names.length) {
        const r = await call('GET', `${NS_PATH}/${names[next++]}`);
        expect(r.status).toBe(404);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const wanted = (lines: string[]) => {
      const paths = new Set(lines.filter((l) => l !== '').map((l) => (JSON.parse(l) as { path: string }).path));
      return names.filter((n) => !paths.has(`${NS_PATH}/${n}`));
    };
    await expect.poll(() => wanted(normalLines.lines).length, { timeout: 60_000, interval: 200 }).toBe(0);
    await expect.poll(() => logText(), { timeout: 30_000, interval: 200 }).toMatch(TRACES_FORCED_CLOSE);
    expect(normalLines.ended).toBe(false);

    const got = await drain(stuck);
    expect(got.ended).toBe(true);
    expect(wanted(got.lines).length).toBeGreaterThan(0); // it was closed before it was sent everything

    // Reconnecting: the buffer again, then what happens next.
    const again = await openStream(TRACES_PATH_WATCH);
    const againLines = collectLines(again);
    expect((await call('GET', `${NS_PATH}/after-reconnect`)).status).toBe(404);
    await expect.poll(() => againLines.lines.some((l) => l.includes(`${NS_PATH}/after-reconnect`)), { timeout: 30_000, interval: 200 }).toBe(true);
    normal.destroy();
    again.destroy();
  }, 300_000);
});

/** Reads a stream as it comes. */
function collectLines(res: IncomingMessage): { lines: string[]; ended: boolean } {
  const out = { lines: [] as string[], ended: false };
  let rest = '';
  res.setEncoding('utf8');
  res.on('data', (d: string) => {
    const parts = (rest + d).split('\n');
    rest = parts.pop()!;
    out.lines.push(...parts);
  });
  res.on('end', () => (out.ended = true));
  return out;
}

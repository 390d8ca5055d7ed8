// `npm run bench -- apiserver`: the API server over Pilothouse's 3-member
// cluster, started as `pilothouse up` starts it (mutual TLS everywhere).
// Phases, each bounded by BENCH_SECONDS (default 10) and BENCH_MAX_OPS:
//   - pod creates (POST, JSON, admin client certificate) at 16 and 64 clients,
//     each phase bracketed by raw etcd puts at the same concurrency (1 KiB
//     values, about a stored pod's size, straight to the members with the
//     etcd3 client: the ceiling) right before and right after it; the ratio
//     creates / mean(puts) is the issue's bar (≥ 0.4);
//   - GET of one pod (16 clients), LIST of a namespace of exactly 10,000
//     pods (consistent, served from the watch cache; bar p99 ≤ 200 ms; three
//     warm-up lists first, reported apart) and LIST with resourceVersion=0;
//   - watch delivery to 100 watchers: time from a create's request to each
//     watcher's ADDED line.
// Writes bench/results/apiserver-<date>.{json,md}.

import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { etcdClient, kubeClient, startUp, stopUp } from './kube.mjs';
import { chainLatency, defaultServiceAccount, preparePipeline } from './chainLatency.mjs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, machine, percentile, writeResults } from '../etcd/common.mjs';
import { closedLoop, pod } from './load.mjs';
import { compareWithBaseline } from './baseline.mjs';

const PORT_BASE = 27600; // members 27600–27605, API server 27606
const LIST_SIZE = 10_000;
const LIST_SAMPLES = 200;
const LIST_WARMUPS = 3;
const LIST_NAMESPACE = 'listbench';
const WATCHERS = 100;
const WATCH_EVENTS = 200;

async function watchDelivery(kube, namespace) {
  const startRv = JSON.parse((await kube.call('GET', `/api/v1/namespaces/${namespace}/pods?limit=1`)).body).metadata.resourceVersion;
  const sentAt = new Map();
  const delays = [];
  let received = 0;
  const watchAgent = new Agent({ ...kube.agent.options, keepAlive: false, maxSockets: Infinity });
  const reqs = [];
  await Promise.all(
    Array.from(
      { length: WATCHERS },
      () =>
        new Promise((resolve, reject) => {
          const req = request(`${kube.server}/api/v1/namespaces/${namespace}/pods?watch=true&resourceVersion=${startRv}`, { agent: watchAgent }, (res) => {
            let buf = '';
            res.setEncoding('utf8');
            res.on('data', (c) => {
              buf += c;
              let nl;
              while ((nl = buf.indexOf('\n')) >= 0) {
                const line = buf.slice(0, nl);
                buf = buf.slice(nl + 1);
                const ev = JSON.parse(line);
                const t = sentAt.get(ev.object?.metadata?.name);
                if (ev.type === 'ADDED' && t !== undefined) {
                  delays.push(performance.now() - t);
                  received++;
                }
              }
            });
            resolve();
          });
          req.on('error', reject);
          req.end();
          reqs.push(req);
        }),
    ),
  );
  for (let i = 0; i < WATCH_EVENTS; i++) {
    const name = `w-${i}`;
    sentAt.set(name, performance.now());
    await kube.call('POST', `/api/v1/namespaces/${namespace}/pods`, pod(name));
    await new Promise((r) => setTimeout(r, 10)); // ~100 creates/s: delivery latency, not a saturation test
  }
  const deadline = Date.now() + 15_000;
  while (received < WATCHERS * WATCH_EVENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  for (const r of reqs) r.destroy();
  watchAgent.destroy();
  delays.sort((a, b) => a - b);
  return { watchers: WATCHERS, events: WATCH_EVENTS, delivered: received, expected: WATCHERS * WATCH_EVENTS, p50Ms: percentile(delays, 50), p99Ms: percentile(delays, 99) };
}

export async function run(args = []) {
  const baseline = args.indexOf('--baseline');
  if (baseline >= 0) return compareWithBaseline(args[baseline + 1]);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const maxOps = Number(process.env.BENCH_MAX_OPS ?? 50_000);
  const dir = mkdtempSync(join(tmpdir(), 'pilothouse-bench-apiserver-'));
  const up = startUp(dir, PORT_BASE, ['--no-controllers']);
  const results = { puts: [], creates: [] };
  try {
    await up.ready;
    process.stdout.write('bench: pilothouse up ready (3 members + API server)\n');
    if (process.env.BENCH_PROFILE) process.stdout.write(`bench: profiling into ${process.env.BENCH_PROFILE}; ${/apiserver pid \d+/.exec(up.output())?.[0]}\n`);
    const etcd = etcdClient(dir, PORT_BASE);
    const value = Buffer.alloc(1024, 'x');
    const putPhase = async (c, when) => {
      const r = await closedLoop(c, seconds, maxOps, async (i) => (await etcd.put(`/bench/raw/${c}/${when}/${i}`).value(value), true));
      process.stdout.write(`bench: etcd put c=${c} (${when} the creates): ${fmt(r.throughput, 0)} ops/s p50 ${fmt(r.p50Ms, 2)} p99 ${fmt(r.p99Ms, 2)} ms\n`);
      return r;
    };

    // Without controllers nobody creates the "default" ServiceAccount, and the
    // ServiceAccount admission plugin refuses pods until it exists (as kube's
    // does); and one in-process ValidatingAdmissionPolicy, so creates pay for a CEL policy too.
    await preparePipeline(kubeClient(dir, 1), 'default');
    results.chain = [];

    // The pipeline's own cost, without queueing behind other requests: sequential creates.
    {
      const kube = kubeClient(dir, 1);
      const since = new Date().toISOString();
      const r = await closedLoop(1, seconds, 300, async (i) => (await kube.call('POST', '/api/v1/namespaces/default/pods', pod(`seq-${i}`))).code === 201);
      const chain = await chainLatency(kube, since);
      kube.agent.destroy();
      process.stdout.write(`bench: pipeline c=1 over ${chain.creates} traced creates: p50 ${fmt(chain.chainP50Ms, 2)} p99 ${fmt(chain.chainP99Ms, 2)} ms (create p50 ${fmt(r.p50Ms, 2)} p99 ${fmt(r.p99Ms, 2)} ms)\n`);
      results.chain.push({ concurrency: 1, createP50Ms: r.p50Ms, createP99Ms: r.p99Ms, ...chain });
    }
    // The etcd3 client's and the members' put path warm (connections, JIT),
    // as the c=1 phase warms the create path: not counted.
    await closedLoop(16, 3, 2_000, async (i) => (await etcd.put(`/bench/raw/warm/${i}`).value(value), true));

    // Raw puts right before and right after each create phase: this machine's
    // speed drifts by tens of percent over a minute, and the ratio compares
    // creates with the mean of the two put runs that bracket them.
    for (const c of [16, 64]) {
      const before = await putPhase(c, 'before');
      const kube = kubeClient(dir, c);
      const since = new Date().toISOString();
      const r = await closedLoop(c, seconds, maxOps, async (i) => (await kube.call('POST', '/api/v1/namespaces/default/pods', pod(`p${c}-${i}`))).code === 201);
      kube.agent.destroy();
      process.stdout.write(`bench: pod create c=${c}: ${fmt(r.throughput, 0)} ops/s p50 ${fmt(r.p50Ms, 2)} p99 ${fmt(r.p99Ms, 2)} ms (${r.errors} errors)\n`);
      results.creates.push({ concurrency: c, ...r });
      const after = await putPhase(c, 'after');
      const mean = (before.throughput + after.throughput) / 2;
      results.puts.push({ concurrency: c, throughput: mean, before: before.throughput, after: after.throughput, runs: [before, after] });
      process.stdout.write(`bench: creates / puts c=${c}: ${fmt(r.throughput, 0)} / ${fmt(mean, 0)} (mean of ${fmt(before.throughput, 0)} before and ${fmt(after.throughput, 0)} after) = ${fmt(r.throughput / mean, 2)}\n`);
      // What authentication, RBAC and the admission chain added to these creates (from the request traces).
      const chain = await chainLatency(kubeClient(dir, 1), since);
      process.stdout.write(`bench: pipeline c=${c} over ${chain.creates} traced creates: p50 ${fmt(chain.chainP50Ms, 2)} p99 ${fmt(chain.chainP99Ms, 2)} ms\n`);
      results.chain.push({ concurrency: c, ...chain });
    }

    etcd.close();

    const kube = kubeClient(dir, 16);
    // Exactly LIST_SIZE pods in their own namespace: how many the create
    // phases made depends on the machine's speed, and the bar is for 10,000.
    await kube.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: LIST_NAMESPACE } });
    await defaultServiceAccount(kube, LIST_NAMESPACE);
    const filled = await closedLoop(16, 600, LIST_SIZE, async (i) => (await kube.call('POST', `/api/v1/namespaces/${LIST_NAMESPACE}/pods`, pod(`fill-${i}`))).code === 201);
    if (filled.ops - filled.errors !== LIST_SIZE) throw new Error(`filling ${LIST_NAMESPACE}: ${filled.ops - filled.errors} of ${LIST_SIZE} pods created`);
    results.get = await closedLoop(16, Math.min(seconds, 5), maxOps, async () => (await kube.call('GET', '/api/v1/namespaces/default/pods/p16-0')).code === 200);
    process.stdout.write(`bench: get c=16: ${fmt(results.get.throughput, 0)} ops/s p50 ${fmt(results.get.p50Ms, 2)} p99 ${fmt(results.get.p99Ms, 2)} ms\n`);
    // The timed op is the request and its body's bytes; joining and parsing a 20 MB body is the client's cost, so it happens once, untimed.
    let lastBody;
    // Warm-up lists, reported but not counted. The first 20 MB response this
    // client process ever receives costs it ~8,000 page faults and cold code
    // in its TLS and HTTP parser (measured: 320 ms of client CPU for a 250 ms
    // transfer, against 60–110 ms later; a cold curl lists in ~100 ms), so
    // counting them would time the measuring client's start-up, not the server.
    results.listWarmupMs = [];
    for (let i = 0; i < LIST_WARMUPS; i++) {
      const t0 = performance.now();
      const res = await kube.call('GET', `/api/v1/namespaces/${LIST_NAMESPACE}/pods`, undefined, { chunks: true });
      if (res.code !== 200) throw new Error(`warm-up list: ${res.code}`);
      results.listWarmupMs.push(performance.now() - t0);
    }
    // 200 lists (at most 60 s): with 30, "p99" would be the single slowest list.
    results.list = await closedLoop(1, 60, LIST_SAMPLES, async () => {
      const res = await kube.call('GET', `/api/v1/namespaces/${LIST_NAMESPACE}/pods`, undefined, { chunks: true });
      lastBody = res.body;
      return res.code === 200;
    });
    const listed = lastBody ? JSON.parse(Buffer.concat(lastBody)).items.length : 0;
    results.list.items = listed;
    process.stdout.write(`bench: list of ${listed} pods (consistent) × ${results.list.ops} after warm-up lists of ${results.listWarmupMs.map((t) => fmt(t, 0)).join(', ')} ms: p50 ${fmt(results.list.p50Ms, 1)} p99 ${fmt(results.list.p99Ms, 1)} max ${fmt(results.list.maxMs, 1)} first ${fmt(results.list.firstMs, 1)} ms\n`);
    results.list0 = await closedLoop(1, 60, LIST_SAMPLES, async () => (await kube.call('GET', `/api/v1/namespaces/${LIST_NAMESPACE}/pods?resourceVersion=0`, undefined, { chunks: true })).code === 200);
    process.stdout.write(`bench: list rv=0 × ${results.list0.ops}: p50 ${fmt(results.list0.p50Ms, 1)} p99 ${fmt(results.list0.p99Ms, 1)} max ${fmt(results.list0.maxMs, 1)} ms\n`);

    await kube.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'watchbench' } });
    await defaultServiceAccount(kube, 'watchbench');
    results.watch = await watchDelivery(kube, 'watchbench');
    process.stdout.write(`bench: watch delivery to ${WATCHERS} watchers: ${results.watch.delivered}/${results.watch.expected} p50 ${fmt(results.watch.p50Ms, 1)} p99 ${fmt(results.watch.p99Ms, 1)} ms\n`);
    kube.agent.destroy();
  } finally {
    await stopUp(up, 15_000);
    rmSync(dir, { recursive: true, force: true });
  }

  const rows = [16, 64].map((c, i) => {
    const p = results.puts[i];
    const cr = results.creates[i];
    return `| ${c} | ${fmt(p?.before, 0)} / ${fmt(p?.after, 0)} → ${fmt(p?.throughput, 0)} | ${fmt(cr?.throughput, 0)} | ${fmt(cr?.p50Ms, 1)} | ${fmt(cr?.p99Ms, 1)} | ${fmt(cr && p ? cr.throughput / p.throughput : NaN, 2)} |`;
  });
  const md = [
    `# API server benchmark ${new Date().toISOString()}`,
    '',
    `Machine: ${machine()}. Pilothouse 3-member cluster + API server (\`pilothouse up\`, mutual TLS, protobuf storage). Each phase ≤ ${seconds} s.`,
    '',
    'Raw puts are measured right before and right after each create phase; the ratio uses their mean (the machine\'s speed drifts).',
    '',
    '| clients | raw etcd puts/s (1 KiB): before / after → mean | pod creates/s | create p50 ms | create p99 ms | creates / puts (bar ≥ 0.4) |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    `GET one pod (16 clients): ${fmt(results.get?.throughput, 0)}/s, p50 ${fmt(results.get?.p50Ms, 2)} ms, p99 ${fmt(results.get?.p99Ms, 2)} ms.`,
    `LIST of ${results.list?.items} pods, consistent read from the watch cache, ${results.list?.ops} lists one after another (after ${results.listWarmupMs?.length} warm-up lists, not counted: ${(results.listWarmupMs ?? []).map((t) => fmt(t, 0)).join(', ')} ms; the first is the measuring client's cold start): p50 ${fmt(results.list?.p50Ms, 1)} ms, p99 ${fmt(results.list?.p99Ms, 1)} ms (bar ≤ 200 ms), slowest ${fmt(results.list?.maxMs, 1)} ms, first ${fmt(results.list?.firstMs, 1)} ms; with resourceVersion=0 (${results.list0?.ops} lists): p50 ${fmt(results.list0?.p50Ms, 1)} ms, p99 ${fmt(results.list0?.p99Ms, 1)} ms, slowest ${fmt(results.list0?.maxMs, 1)} ms.`,
    `Watch delivery to ${WATCHERS} watchers (${WATCH_EVENTS} creates at ~100/s): ${results.watch?.delivered}/${results.watch?.expected} delivered, p50 ${fmt(results.watch?.p50Ms, 1)} ms, p99 ${fmt(results.watch?.p99Ms, 1)} ms.`,
    '',
    '## The request pipeline per create (authentication + Node,RBAC authorization + kube\'s default admission plugins + one ValidatingAdmissionPolicy; bar: p99 ≤ 5 ms)',
    '',
    '| clients | traced creates | pipeline p50 ms | pipeline p99 ms | admission p50 ms | admission p99 ms | policy evaluated | costliest stages at p99 |',
    '|---|---|---|---|---|---|---|---|',
    ...(results.chain ?? []).map(
      (ch) =>
        `| ${ch.concurrency} | ${ch.creates} | ${fmt(ch.chainP50Ms, 2)} | ${fmt(ch.chainP99Ms, 2)} | ${fmt(ch.admissionP50Ms, 2)} | ${fmt(ch.admissionP99Ms, 2)} | ${ch.policyRan} | ${ch.stages.slice(0, 3).map((s) => `${s.stage} ${fmt(s.p99Ms, 2)}`).join(', ')} |`,
    ),
    '',
  ].join('\n');
  writeResults('apiserver', results, md);
}

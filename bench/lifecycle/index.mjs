// `npm run bench -- lifecycle`: from Pod creation to Running, the whole
// control plane by watch — `pilothouse up --nodes 10` (3 members, the API
// server, the scheduler, the controller manager and 10 simulated kubelets
// with their default start delays).
//
//   - startup latency at an offered load of 20 and 100 Pods/s (open loop:
//     creates are fired on schedule whether or not earlier ones finished),
//     each for BENCH_SECONDS (default 10): from the client sending the create
//     to the client seeing the Pod Running on its own watch — what kube's
//     pod startup SLO measures (p99 ≤ 5 s; our target p99 ≤ 1 s at 20/s);
//     throughput = Pods Running per second over the phase;
//   - steady state: a Deployment of 1,000 replicas Running on 10 nodes, then
//     CPU (from /proc/<pid>/stat over BENCH_STEADY_SECONDS, default 30) and
//     RSS of every process of the control plane.
// Writes bench/results/lifecycle-<date>.{json,md}.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, machine, percentile, writeResults } from '../etcd/common.mjs';
import { kubeClient, startUp, stopUp } from '../apiserver/kube.mjs';

const PORT_BASE = 27800; // members 27800–27805, API server 27806
const NODES = 10;
const RATES = [20, 100];
const STEADY_PODS = Number(process.env.BENCH_STEADY_PODS ?? 1000);
const MAX_IN_FLIGHT = 256;
const CLK_TCK = 100; // Linux USER_HZ

const pod = (name) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: 'lifecycle' } },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27', resources: { requests: { cpu: '5m', memory: '8Mi' } } }] },
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(what, ms, fn) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return;
    await sleep(250);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

async function readyNodes(kube) {
  const nodes = JSON.parse((await kube.call('GET', '/api/v1/nodes')).body).items ?? [];
  return nodes.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
}

/** Follows pods in a namespace from resourceVersion rv; calls onRunning(name) the first time each is Running. */
function followRunning(kube, namespace, rv, onRunning) {
  const agent = new Agent({ ...kube.agent.options, keepAlive: false });
  const seen = new Set();
  const req = request(`${kube.server}/api/v1/namespaces/${namespace}/pods?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`, { agent }, (res) => {
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (c) => {
      buf += c;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const ev = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        const name = ev.object?.metadata?.name;
        if (ev.type !== 'BOOKMARK' && ev.object?.status?.phase === 'Running' && !seen.has(name)) {
          seen.add(name);
          onRunning(name, performance.now());
        }
      }
    });
  });
  req.on('error', () => {});
  req.end();
  return () => {
    req.destroy();
    agent.destroy();
  };
}

async function createNamespace(kube, name) {
  const r = await kube.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  if (r.code !== 201) throw new Error(`create namespace ${name}: ${r.code} ${r.body}`);
  // The ServiceAccount admission plugin (when enabled) needs the namespace's default SA.
  await until(`serviceaccount default in ${name}`, 30_000, async () => (await kube.call('GET', `/api/v1/namespaces/${name}/serviceaccounts/default`)).code === 200);
}

/** Removes every pod of the namespace at once (grace 0), and waits for them to be gone. */
async function clearPods(kube, namespace) {
  await kube.call('DELETE', `/api/v1/namespaces/${namespace}/pods?gracePeriodSeconds=0`);
  // Bounded; a slow cleanup is reported, not fatal: the phase's figures are already taken.
  try {
    await until(`pods in ${namespace} to be gone`, 600_000, async () => (JSON.parse((await kube.call('GET', `/api/v1/namespaces/${namespace}/pods?limit=1`)).body).items ?? []).length === 0);
  } catch (err) {
    process.stdout.write(`bench: ${err.message}; going on\n`);
  }
}

async function startupPhase(kube, rate, seconds) {
  const namespace = `lifecycle-${rate}`;
  await createNamespace(kube, namespace);
  const rv = JSON.parse((await kube.call('GET', `/api/v1/namespaces/${namespace}/pods?limit=1`)).body).metadata.resourceVersion;
  const sentAt = new Map();
  const latencies = [];
  let lastRunning = 0;
  const stop = followRunning(kube, namespace, rv, (name, t) => {
    const t0 = sentAt.get(name);
    if (t0 === undefined) return;
    latencies.push(t - t0);
    lastRunning = t;
  });
  const total = Math.round(rate * seconds);
  let inFlight = 0;
  let errors = 0;
  let skipped = 0;
  const started = performance.now();
  const creates = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    if (inFlight >= MAX_IN_FLIGHT) {
      skipped++; // the server is this far behind: count it rather than queue without bound
      continue;
    }
    const name = `p-${i}`;
    inFlight++;
    sentAt.set(name, performance.now());
    creates.push(
      kube
        .call('POST', `/api/v1/namespaces/${namespace}/pods`, pod(name))
        .then((r) => {
          if (r.code !== 201) errors++;
        })
        .catch(() => errors++)
        .finally(() => inFlight--),
    );
  }
  await Promise.all(creates);
  const offeredSeconds = (performance.now() - started) / 1000;
  const expected = total - skipped - errors;
  const deadline = Date.now() + 60_000;
  while (latencies.length < expected && Date.now() < deadline) await sleep(100);
  stop();
  latencies.sort((a, b) => a - b);
  const result = {
    offeredRate: rate,
    pods: total,
    created: total - skipped - errors,
    createErrors: errors,
    skipped,
    running: latencies.length,
    achievedCreateRate: (total - skipped) / offeredSeconds,
    runningPerSecond: latencies.length / ((lastRunning - started) / 1000),
    p50Ms: percentile(latencies, 50),
    p90Ms: percentile(latencies, 90),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies[latencies.length - 1] ?? NaN,
  };
  await clearPods(kube, namespace);
  return result;
}

/** utime+stime (clock ticks) and RSS (KiB) of a process from /proc. */
function procSample(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  return { ticks, rssKiB };
}

/** The PIDs `pilothouse up` printed: members, apiserver, controllers. */
function controlPlanePids(output) {
  const pids = {};
  for (const m of output.matchAll(/\b(m\d+) pid (\d+)/g)) pids[m[1]] = Number(m[2]);
  const api = /\(apiserver pid (\d+)\)/.exec(output);
  if (api) pids.apiserver = Number(api[1]);
  const ctl = /\(controllers pid (\d+)\)/.exec(output);
  if (ctl) pids.controllers = Number(ctl[1]);
  return pids;
}

async function steadyState(kube, pids, seconds) {
  const namespace = 'lifecycle-steady';
  await createNamespace(kube, namespace);
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'steady' },
    spec: { replicas: STEADY_PODS, selector: { matchLabels: { app: 'steady' } }, template: { metadata: { labels: { app: 'steady' } }, spec: pod('x').spec } },
  };
  const t0 = performance.now();
  const r = await kube.call('POST', `/apis/apps/v1/namespaces/${namespace}/deployments`, deployment);
  if (r.code !== 201) throw new Error(`create deployment: ${r.code} ${r.body}`);
  await until(`${STEADY_PODS} pods Running`, 600_000, async () => {
    const d = JSON.parse((await kube.call('GET', `/apis/apps/v1/namespaces/${namespace}/deployments/steady`)).body);
    return (d.status?.availableReplicas ?? 0) >= STEADY_PODS;
  });
  const convergeSeconds = (performance.now() - t0) / 1000;
  process.stdout.write(`bench: ${STEADY_PODS} pods Running on ${NODES} nodes after ${fmt(convergeSeconds)} s; sampling ${seconds} s of steady state\n`);
  await sleep(5_000); // let the last status writes settle
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, procSample(pid)]));
  const s0 = performance.now();
  await sleep(seconds * 1000);
  const elapsed = (performance.now() - s0) / 1000;
  const processes = Object.entries(pids).map(([name, pid]) => {
    const after = procSample(pid);
    return { name, pid, cpuPercent: ((after.ticks - before[name].ticks) / CLK_TCK / elapsed) * 100, rssMiB: after.rssKiB / 1024 };
  });
  return {
    pods: STEADY_PODS,
    nodes: NODES,
    convergeSeconds,
    sampleSeconds: elapsed,
    processes,
    totalCpuPercent: processes.reduce((a, p) => a + p.cpuPercent, 0),
    totalRssMiB: processes.reduce((a, p) => a + p.rssMiB, 0),
  };
}

export async function run() {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const steadySeconds = Number(process.env.BENCH_STEADY_SECONDS ?? 30);
  const dir = mkdtempSync(join(tmpdir(), 'pilothouse-bench-lifecycle-'));
  const up = startUp(dir, PORT_BASE, ['--nodes', String(NODES)]);
  const results = { startup: [] };
  try {
    await up.ready;
    const kube = kubeClient(dir, 64);
    await until(`${NODES} Ready nodes`, 120_000, async () => (await readyNodes(kube)) === NODES);
    process.stdout.write(`bench: pilothouse up ready (3 members, API server, controllers, ${NODES} Ready nodes)\n`);
    for (const rate of RATES) {
      const r = await startupPhase(kube, rate, seconds);
      process.stdout.write(
        `bench: ${rate} pods/s offered: ${r.running}/${r.pods} Running, ${fmt(r.runningPerSecond)} Running/s, startup p50 ${fmt(r.p50Ms, 0)} p99 ${fmt(r.p99Ms, 0)} ms (${r.createErrors} create errors, ${r.skipped} not sent)\n`,
      );
      results.startup.push(r);
    }
    results.steady = await steadyState(kube, controlPlanePids(up.output()), steadySeconds);
    kube.agent.destroy();
  } finally {
    await stopUp(up, 30_000);
    rmSync(dir, { recursive: true, force: true });
  }
  const md = [
    `# Pod lifecycle benchmark (${new Date().toISOString()})`,
    '',
    `Machine: ${machine()}. \`pilothouse up --nodes ${NODES}\`: 3 members, the API server, scheduler, controller manager and ${NODES} simulated kubelets (default start delays: each of pull/create/start ~100 ± 50 ms). Open-loop creates for ${seconds} s per rate; latency = client create sent → Running seen on the client's watch.`,
    '',
    '| offered Pods/s | created | Running | Running/s | p50 ms | p90 ms | p99 ms | max ms |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.startup.map((r) => `| ${r.offeredRate} | ${r.created} | ${r.running} | ${fmt(r.runningPerSecond)} | ${fmt(r.p50Ms, 0)} | ${fmt(r.p90Ms, 0)} | ${fmt(r.p99Ms, 0)} | ${fmt(r.maxMs, 0)} |`),
    '',
    'Anchors: Kubernetes pod startup SLO p99 ≤ 5 s; Pilothouse target p99 ≤ 1 s at 20 Pods/s.',
    '',
    results.steady
      ? [
          `## Steady state: ${results.steady.pods} Pods on ${results.steady.nodes} nodes (converged in ${fmt(results.steady.convergeSeconds)} s; sampled ${fmt(results.steady.sampleSeconds)} s)`,
          '',
          '| process | CPU % of one core | RSS MiB |',
          '|---|---:|---:|',
          ...results.steady.processes.map((p) => `| ${p.name} | ${fmt(p.cpuPercent)} | ${fmt(p.rssMiB)} |`),
          `| **total** | **${fmt(results.steady.totalCpuPercent)}** | **${fmt(results.steady.totalRssMiB)}** |`,
        ].join('\n')
      : '',
    '',
  ].join('\n');
  writeResults('lifecycle', results, md);
}

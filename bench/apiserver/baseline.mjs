// `npm run bench -- apiserver --baseline DIR`: this checkout's API server
// against another build of Pilothouse (DIR holds a built checkout, e.g. a
// `git worktree` of an older commit after `npm run build`), side by side in
// one run. It measures what a change must not cost: pod creates/s at 16 and
// 64 clients (each bracketed by raw etcd puts, as the full suite does) and
// the p99 of a consistent LIST of 10,000 pods. The builds take turns in the
// order A B B A (BENCH_ROUNDS pairs, default 1), so a drift of the machine's
// speed during the run weighs on both alike.
// Writes bench/results/apiserver-baseline-<date>.{json,md}.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CLI_JS, fmt, machine, root, writeResults } from '../etcd/common.mjs';
import { defaultServiceAccount, preparePipeline } from './chainLatency.mjs';
import { etcdClient, kubeClient, startUp, stopUp } from './kube.mjs';
import { closedLoop, pod } from './load.mjs';

const PORT_BASE = 27620; // members 27620–27625, API server 27626
const LIST_SIZE = 10_000;
const LIST_SAMPLES = 200;

function revision(dir) {
  try {
    return execFileSync('git', ['-C', dir, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** One build's creates at 16 and 64 clients (with bracketing puts) and its LIST p99. */
async function measure(cliJs, seconds) {
  const dir = mkdtempSync(join(tmpdir(), 'pilothouse-bench-baseline-'));
  const up = startUp(dir, PORT_BASE, ['--no-controllers'], cliJs);
  const out = { creates: [] };
  try {
    await up.ready;
    const etcd = etcdClient(dir, PORT_BASE);
    const value = Buffer.alloc(1024, 'x');
    const puts = (c, tag) => closedLoop(c, seconds, 50_000, async (i) => (await etcd.put(`/bench/raw/${c}/${tag}/${i}`).value(value), true));
    await preparePipeline(kubeClient(dir, 1), 'default');
    // Warm both paths (JIT, connections) before anything is counted.
    await closedLoop(16, 3, 2_000, async (i) => (await etcd.put(`/bench/raw/warm/${i}`).value(value), true));
    const warm = kubeClient(dir, 16);
    await closedLoop(16, 3, 2_000, async (i) => (await warm.call('POST', '/api/v1/namespaces/default/pods', pod(`warm-${i}`))).code === 201);
    warm.agent.destroy();
    for (const c of [16, 64]) {
      const before = await puts(c, 'before');
      const kube = kubeClient(dir, c);
      const r = await closedLoop(c, seconds, 50_000, async (i) => (await kube.call('POST', '/api/v1/namespaces/default/pods', pod(`p${c}-${i}`))).code === 201);
      kube.agent.destroy();
      const after = await puts(c, 'after');
      const putsMean = (before.throughput + after.throughput) / 2;
      out.creates.push({ concurrency: c, throughput: r.throughput, errors: r.errors, p99Ms: r.p99Ms, puts: putsMean, ratio: r.throughput / putsMean });
      process.stdout.write(`bench:   creates c=${c}: ${fmt(r.throughput, 0)}/s (${r.errors} errors), puts ${fmt(putsMean, 0)}/s, ratio ${fmt(r.throughput / putsMean, 2)}\n`);
    }
    etcd.close();
    const kube = kubeClient(dir, 16);
    await kube.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'listbench' } });
    await defaultServiceAccount(kube, 'listbench');
    const filled = await closedLoop(16, 600, LIST_SIZE, async (i) => (await kube.call('POST', '/api/v1/namespaces/listbench/pods', pod(`fill-${i}`))).code === 201);
    if (filled.ops - filled.errors !== LIST_SIZE) throw new Error(`filling listbench: ${filled.ops - filled.errors} of ${LIST_SIZE} pods created`);
    for (let i = 0; i < 3; i++) await kube.call('GET', '/api/v1/namespaces/listbench/pods', undefined, { chunks: true });
    out.list = await closedLoop(1, 60, LIST_SAMPLES, async () => (await kube.call('GET', '/api/v1/namespaces/listbench/pods', undefined, { chunks: true })).code === 200);
    process.stdout.write(`bench:   LIST of ${LIST_SIZE} pods × ${out.list.ops}: p50 ${fmt(out.list.p50Ms, 1)} p99 ${fmt(out.list.p99Ms, 1)} ms\n`);
    kube.agent.destroy();
  } finally {
    await stopUp(up, 15_000);
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

export async function compareWithBaseline(baselineDir) {
  if (!baselineDir) throw new Error('usage: npm run bench -- apiserver --baseline DIR   (DIR: a built Pilothouse checkout)');
  const baseCli = join(resolve(baselineDir), 'out/main/cli.js');
  if (!existsSync(baseCli)) throw new Error(`${baseCli} does not exist: build the baseline first (npm run build in ${baselineDir})`);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
  const builds = {
    baseline: { cli: baseCli, revision: revision(baselineDir), runs: [] },
    current: { cli: CLI_JS, revision: revision(root), runs: [] },
  };
  for (let round = 0; round < rounds; round++) {
    for (const name of ['baseline', 'current', 'current', 'baseline']) {
      process.stdout.write(`bench: ${name} (${builds[name].revision}), round ${round + 1}\n`);
      builds[name].runs.push(await measure(builds[name].cli, seconds));
    }
  }
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const summary = (b) => ({
    c16: mean(b.runs.map((r) => r.creates[0].throughput)),
    c64: mean(b.runs.map((r) => r.creates[1].throughput)),
    r16: mean(b.runs.map((r) => r.creates[0].ratio)),
    r64: mean(b.runs.map((r) => r.creates[1].ratio)),
    listP99: mean(b.runs.map((r) => r.list.p99Ms)),
    each: b.runs.map((r) => `${fmt(r.creates[0].throughput, 0)}/${fmt(r.creates[1].throughput, 0)}/s, LIST p99 ${fmt(r.list.p99Ms, 0)} ms`).join('; '),
  });
  const base = summary(builds.baseline);
  const cur = summary(builds.current);
  const row = (label, b, s) => `| ${label} | ${b.revision} | ${fmt(s.c16, 0)} | ${fmt(s.r16, 2)} | ${fmt(s.c64, 0)} | ${fmt(s.r64, 2)} | ${fmt(s.listP99, 1)} | ${s.each} |`;
  const md = [
    `# API server benchmark against a baseline build, ${new Date().toISOString()}`,
    '',
    `Machine: ${machine()}. Each build runs \`pilothouse up --no-controllers\` (mutual TLS, protobuf storage) ${2 * rounds} times, in the order A B B A; each phase ≤ ${seconds} s. Pod creates per second (and creates / raw etcd puts at the same concurrency, puts measured before and after the creates), and the p99 of ${LIST_SAMPLES} consistent LISTs of ${LIST_SIZE} pods; means over the runs.`,
    '',
    '| build | commit | creates/s c=16 | / puts | creates/s c=64 | / puts | LIST p99 ms | each run (c=16/c=64, LIST p99) |',
    '|---|---|---|---|---|---|---|---|',
    row('baseline', builds.baseline, base),
    row('current', builds.current, cur),
    '',
    `Current / baseline: creates ${fmt(cur.c16 / base.c16, 2)}× at 16 clients and ${fmt(cur.c64 / base.c64, 2)}× at 64; creates/puts ${fmt(cur.r16 / base.r16, 2)}× and ${fmt(cur.r64 / base.r64, 2)}×; LIST p99 ${fmt(cur.listP99 / base.listP99, 2)}×.`,
    '',
  ].join('\n');
  writeResults('apiserver-baseline', { builds }, md);
}

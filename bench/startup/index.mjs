// `npm run bench -- startup [--runs N] [--no-etcd] [--no-tls]`: how long the
// control plane takes to start, N runs each (default 3), median and every run:
//   - `pilothouse up` cold: a fresh data dir, PKI generation included, from
//     spawn to `pilothouse: control plane ready`, with the times of up's
//     intermediate lines and of the milestones in DIR/logs/*.log;
//   - `pilothouse up` warm: SIGTERM that up, wait for its exit, start it again
//     on the same data dir;
//   - side by side, 3 members started by hand with the same static flags:
//     Debian's etcd 3.4 and `pilothouse etcd`, plain and with mutual TLS,
//     cold (fresh data dirs) and warm (restarted on them), until every member
//     answers a linearizable read; `etcdctl endpoint health` confirms it.
// CPU time per process at the ready line (from /proc) is reported too: on a
// shared machine it moves far less than the wall times. Ratios are Pilothouse / etcd. Targets: the whole plane ready ≤ 2.5 s on a
// first run, ≤ 2 s warm. Ports 19200–19206 (up), 19220–19225 (clusters).
// Writes bench/results/startup-<date>.{json,md}.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, machine, writeResults } from '../etcd/common.mjs';
import { timeCluster } from './clusterRun.mjs';
import { LOG_MILESTONES, timeUp, UP_LINES } from './upRun.mjs';

const UP_PORT_BASE = 19200;
const CLUSTER_PORT_BASE = 19220;
const TARGET_COLD_MS = 2500;
const TARGET_WARM_MS = 2000;

function parseArgs(argv) {
  const o = { runs: 3, etcd: true, tls: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--runs') o.runs = Number(argv[++i]);
    else if (a.startsWith('--runs=')) o.runs = Number(a.slice('--runs='.length));
    else if (a === '--no-etcd') o.etcd = false;
    else if (a === '--no-tls') o.tls = false;
    else throw new Error(`startup bench: unknown flag ${a} (flags: --runs N, --no-etcd, --no-tls)`);
  }
  if (!Number.isInteger(o.runs) || o.runs < 1 || o.runs > 50) throw new Error('--runs must be 1..50');
  return o;
}

const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const say = (line) => process.stdout.write(`bench: ${line}\n`);

/** One cold and one warm `up` per run; the first run's PKI is kept for the TLS clusters. */
async function upRuns(runs, pkiCopy) {
  const out = { cold: [], warm: [] };
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'pilothouse-bench-startup-'));
    try {
      const cold = await timeUp(dir, UP_PORT_BASE);
      say(`up cold #${i + 1}: ready in ${fmt(cold.lines.ready, 0)} ms (up says ${cold.reportedMs} ms), ${fmt(cold.cpuMs.total, 0)} CPU ms; stopped in ${fmt(cold.stop.ms, 0)} ms`);
      out.cold.push(cold);
      if (i === 0 && pkiCopy) cpSync(join(dir, 'pki'), pkiCopy, { recursive: true });
      const warm = await timeUp(dir, UP_PORT_BASE);
      say(`up warm #${i + 1}: ready in ${fmt(warm.lines.ready, 0)} ms (up says ${warm.reportedMs} ms), ${fmt(warm.cpuMs.total, 0)} CPU ms; stopped in ${fmt(warm.stop.ms, 0)} ms`);
      out.warm.push(warm);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

/** Cold and warm starts of one implementation's 3 members, `runs` times. */
async function clusterRuns(impl, runs, pkiDir) {
  const out = { cold: [], warm: [] };
  const label = `${impl}${pkiDir ? ' TLS' : ''}`;
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), `pilothouse-bench-startup-${impl}-`));
    try {
      const cold = await timeCluster(impl, dir, CLUSTER_PORT_BASE, { pkiDir });
      const warm = await timeCluster(impl, dir, CLUSTER_PORT_BASE, { pkiDir });
      say(`${label} #${i + 1}: cold ${fmt(cold.readyMs, 0)} ms, warm ${fmt(warm.readyMs, 0)} ms (endpoint health ${cold.healthOk && warm.healthOk ? 'ok' : 'FAILED'})`);
      out.cold.push(cold);
      out.warm.push(warm);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

const runsCell = (xs) => xs.map((x) => fmt(x, 0)).join(' / ');
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${fmt(a / b, 2)}×` : '–');

function upTable(up) {
  const rows = [];
  const row = (label, pick) => {
    const c = up.cold.map(pick);
    const w = up.warm.map(pick);
    rows.push(`| ${label} | ${fmt(median(c), 0)} | ${runsCell(c)} | ${fmt(median(w), 0)} | ${runsCell(w)} |`);
  };
  for (const [id, label] of UP_LINES) row(`up: ${label}`, (r) => r.lines[id]);
  for (const [id, label] of LOG_MILESTONES) row(label, (r) => r.milestones[id]);
  row('up: stop (SIGTERM → exit)', (r) => r.stop.ms);
  for (const id of ['up', 'm1', 'm2', 'm3', 'apiserver', 'controllers', 'total']) row(`CPU ms used by ${id} at ready`, (r) => r.cpuMs[id]);
  return [
    '| ms since spawn of `up` | cold median | cold runs | warm median | warm runs |',
    '|---|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

function clusterTable(clusters) {
  const rows = Object.entries(clusters).map(([label, r]) => {
    const c = r.cold.map((x) => x.readyMs);
    const w = r.warm.map((x) => x.readyMs);
    const cpu = (xs) => fmt(median(xs.map((x) => x.cpuMs)), 0);
    return `| ${label} | ${fmt(median(c), 0)} | ${runsCell(c)} | ${fmt(median(w), 0)} | ${runsCell(w)} | ${cpu(r.cold)} / ${cpu(r.warm)} |`;
  });
  return [
    '| 3 members, every one reads | cold median ms | cold runs | warm median ms | warm runs | CPU ms at ready, cold / warm |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

function ratioTable(up, clusters) {
  const med = (xs) => median(xs);
  const upCold = med(up.cold.map((r) => r.lines.ready));
  const upWarm = med(up.warm.map((r) => r.lines.ready));
  const clusterCold = med(up.cold.map((r) => r.lines.cluster));
  const clusterWarm = med(up.warm.map((r) => r.lines.cluster));
  const rows = [];
  const etcdTls = clusters['etcd TLS'] ?? clusters.etcd;
  if (etcdTls) {
    const ec = med(etcdTls.cold.map((x) => x.readyMs));
    const ew = med(etcdTls.warm.map((x) => x.readyMs));
    const which = clusters['etcd TLS'] ? 'etcd TLS' : 'etcd';
    rows.push(`| up: whole plane ready / ${which} members ready | ${ratio(upCold, ec)} | ${ratio(upWarm, ew)} |`);
    rows.push(`| up: cluster ready (PKI included cold) / ${which} members ready | ${ratio(clusterCold, ec)} | ${ratio(clusterWarm, ew)} |`);
  }
  for (const tls of ['', ' TLS']) {
    const p = clusters[`pilothouse${tls}`];
    const e = clusters[`etcd${tls}`];
    if (!p || !e) continue;
    rows.push(
      `| pilothouse etcd${tls} / etcd${tls} (same harness) | ${ratio(med(p.cold.map((x) => x.readyMs)), med(e.cold.map((x) => x.readyMs)))} | ${ratio(med(p.warm.map((x) => x.readyMs)), med(e.warm.map((x) => x.readyMs)))} |`,
    );
  }
  return ['| ratio (Pilothouse / etcd, medians) | cold | warm |', '|---|---:|---:|', ...rows].join('\n');
}

export async function run(argv) {
  const o = parseArgs(argv);
  const pkiCopy = o.etcd && o.tls ? mkdtempSync(join(tmpdir(), 'pilothouse-bench-startup-pki-')) : undefined;
  const loadBefore = loadavg()[0];
  try {
    say(`pilothouse up: ${o.runs} cold + warm runs`);
    const up = await upRuns(o.runs, pkiCopy);
    const clusters = {};
    if (o.etcd) {
      for (const impl of ['etcd', 'pilothouse']) {
        clusters[impl] = await clusterRuns(impl, o.runs, undefined);
        if (pkiCopy) clusters[`${impl} TLS`] = await clusterRuns(impl, o.runs, pkiCopy);
      }
    }
    const upCold = median(up.cold.map((r) => r.lines.ready));
    const upWarm = median(up.warm.map((r) => r.lines.ready));
    const md = [
      `# Start-up benchmark (${new Date().toISOString()})`,
      '',
      `Machine: ${machine()}; 1-minute load average ${fmt(loadBefore, 1)} before, ${fmt(loadavg()[0], 1)} after (other work on the machine slows every figure). ${o.runs} runs of each; times in ms since the spawn of the process (for clusters: of the first member); "runs" lists every run in order.`,
      '',
      `**pilothouse up** (3 members, API server, controllers, 3 nodes): cold ${fmt(upCold, 0)} ms (target ≤ ${TARGET_COLD_MS}), warm ${fmt(upWarm, 0)} ms (target ≤ ${TARGET_WARM_MS}).`,
      '',
      upTable(up),
      '',
      ...(o.etcd
        ? [
            '3 members started by hand with static --initial-cluster on 127.0.0.1 (TLS: mutual, the certificates of the first `up` run), ready when each answers a linearizable read:',
            '',
            clusterTable(clusters),
            '',
            ratioTable(up, clusters),
            '',
          ]
        : []),
    ].join('\n');
    writeResults('startup', { runs: o.runs, loadAverage: { before: loadBefore, after: loadavg()[0] }, up, clusters }, md);
  } finally {
    if (pkiCopy) rmSync(pkiCopy, { recursive: true, force: true });
  }
}

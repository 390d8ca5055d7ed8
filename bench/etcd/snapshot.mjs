// `npm run bench -- snapshot`: fills a keyspace (default 25,600 keys × 4 KiB
// = 100 MiB of values) with 32 puts in flight over 4 connections, stopping
// early after BENCH_FILL_SECONDS (60) of writing, then times Debian's
// `etcdctl --endpoints <member 1> snapshot save <file>` (ETCDCTL_API=3) and
// reports seconds (the median of BENCH_SNAPSHOT_RUNS (3) saves, and the
// fastest) and file size, for Pilothouse and etcd 3.4, both clusters up and
// their saves alternating. Both files are bbolt
// databases: Debian's `etcdctl snapshot status` reads each one, and the
// revision and key count it prints are reported. The snapshot is killed after
// BENCH_SNAPSHOT_TIMEOUT (120) s.
// BENCH_KEYS (25600), BENCH_VALUE_BYTES (4096) tune the keyspace.

import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Etcd3 } from 'etcd3';
import { fmt, selectedImpls, withCluster, writeResults } from './common.mjs';

const PORT_BASE = { pilothouse: 27400, etcd: 27500 };
const ETCDCTL = '/usr/bin/etcdctl';
const MiB = 1024 * 1024;

async function fill(endpoints, { keys, valueBytes, fillSeconds }) {
  const clients = Array.from({ length: 4 }, (_, i) => new Etcd3({ hosts: [endpoints[i % endpoints.length]], dialTimeout: 2_000 }));
  const value = Buffer.alloc(valueBytes, 's');
  let next = 0;
  let written = 0;
  let errors = 0;
  const start = performance.now();
  const deadline = start + fillSeconds * 1000;
  const worker = async (w) => {
    const client = clients[w % clients.length];
    while (next < keys && performance.now() < deadline && errors < 100) {
      const n = next++;
      try {
        await client.put(`snapbench/${String(n).padStart(6, '0')}`).value(value);
        written++;
      } catch {
        errors++;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: 32 }, (_, w) => worker(w)));
  } finally {
    for (const c of clients) c.close();
  }
  const seconds = (performance.now() - start) / 1000;
  return { keysWritten: written, putErrors: errors, fillSeconds: seconds, valueMiB: (written * valueBytes) / MiB, putsPerSecond: written / seconds };
}

function snapshotSave(endpoint, file, timeoutMs) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(ETCDCTL, ['--endpoints', endpoint, '--command-timeout', `${Math.ceil(timeoutMs / 1000)}s`, 'snapshot', 'save', file], {
      env: { ...process.env, ETCDCTL_API: '3' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => (clearTimeout(timer), reject(err)));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const seconds = (performance.now() - start) / 1000;
      if (code !== 0) reject(new Error(`etcdctl snapshot save exited ${code ?? signal}: ${out.trim()}`));
      else resolve({ seconds, output: out.trim() });
    });
  });
}

/** Debian's `etcdctl snapshot status -w json`: proof that the file is a bbolt database etcd's tools read. */
function etcdctlStatus(file) {
  return new Promise((resolve, reject) => {
    execFile(ETCDCTL, ['snapshot', 'status', file, '-w', 'json'], { env: { ...process.env, ETCDCTL_API: '3' }, timeout: 120_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`etcdctl snapshot status: ${stderr.trim() || err.message}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

export async function run() {
  const opts = {
    keys: Number(process.env.BENCH_KEYS ?? 25_600),
    valueBytes: Number(process.env.BENCH_VALUE_BYTES ?? 4096),
    fillSeconds: Number(process.env.BENCH_FILL_SECONDS ?? 60),
    snapshotTimeoutSeconds: Number(process.env.BENCH_SNAPSHOT_TIMEOUT ?? 120),
    snapshotRuns: Number(process.env.BENCH_SNAPSHOT_RUNS ?? 3),
  };
  const results = {};
  const impls = selectedImpls();
  const dir = mkdtempSync(join(tmpdir(), 'pilothouse-bench-snap-'));
  // Every cluster stays up while the saves alternate between them, so that a
  // busy (shared) machine slows both sides alike.
  const measure = async (clusters) => {
    const filled = {};
    for (const impl of impls) {
      filled[impl] = await fill(clusters[impl].endpoints, opts);
      const f = filled[impl];
      process.stdout.write(`bench: ${impl} filled ${f.keysWritten} keys (${fmt(f.valueMiB, 1)} MiB of values) in ${fmt(f.fillSeconds, 1)} s, ${f.putErrors} errors\n`);
    }
    const runs = Object.fromEntries(impls.map((impl) => [impl, []]));
    const last = {};
    for (let i = 0; i < opts.snapshotRuns; i++) {
      for (const impl of impls) {
        const file = join(dir, `${impl}.db`);
        rmSync(file, { force: true });
        last[impl] = await snapshotSave(clusters[impl].endpoints[0], file, opts.snapshotTimeoutSeconds * 1000);
        runs[impl].push(last[impl].seconds);
        process.stdout.write(`bench: ${impl} snapshot save ${i + 1}/${opts.snapshotRuns}: ${fmt(last[impl].seconds, 2)} s\n`);
      }
    }
    for (const impl of impls) {
      const file = join(dir, `${impl}.db`);
      const sorted = [...runs[impl]].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)];
      const bytes = statSync(file).size;
      const status = await etcdctlStatus(file);
      process.stdout.write(`bench: ${impl} snapshot save: median ${fmt(median, 2)} s, ${fmt(bytes / MiB, 1)} MiB; etcdctl snapshot status: revision ${status.revision}, ${status.totalKey} keys\n`);
      results[impl] = {
        ...filled[impl],
        endpoint: clusters[impl].endpoints[0],
        snapshotRuns: runs[impl],
        snapshotSeconds: median,
        snapshotBestSeconds: sorted[0],
        snapshotBytes: bytes,
        snapshotMiB: bytes / MiB,
        snapshotMiBps: bytes / MiB / median,
        statusRevision: status.revision,
        statusTotalKeys: status.totalKey,
        etcdctlOutput: last[impl].output,
      };
    }
  };
  const withAll = (rest, clusters) =>
    rest.length === 0 ? measure(clusters) : withCluster(rest[0], PORT_BASE[rest[0]], (c) => withAll(rest.slice(1), { ...clusters, [rest[0]]: c }));
  try {
    await withAll(impls, {});
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const p = results.pilothouse;
  const e = results.etcd;
  const row = (label, key, digits, ratio = true) =>
    `| ${label} | ${fmt(p?.[key], digits)} | ${fmt(e?.[key], digits)} | ${ratio && p && e ? fmt(p[key] / e[key], 2) : '–'} |`;
  const short = [p, e].filter(Boolean).filter((r) => r.keysWritten < opts.keys);
  const md = [
    `# snapshot benchmark ${new Date().toISOString()}`,
    '',
    `Keyspace: up to ${opts.keys} keys × ${opts.valueBytes} B values (${fmt((opts.keys * opts.valueBytes) / MiB, 0)} MiB), 32 puts in flight over 4 connections, ` +
      `at most ${opts.fillSeconds} s of writes; then \`${ETCDCTL} --endpoints <member 1> snapshot save\` (ETCDCTL_API=3) ${opts.snapshotRuns} times on each, alternating between the two clusters (both up), wall-clock including etcdctl's start and writing the file. ` +
      'Both files are bbolt databases, read back by `etcdctl snapshot status`.',
    short.length
      ? `Not the full keyspace: the ${opts.fillSeconds} s write bound stopped the fill early (see keys written), so each snapshot is of what fit.`
      : 'The full keyspace was written on both.',
    '',
    '| | Pilothouse | etcd 3.4 | ratio P/etcd |',
    '|---|---|---|---|',
    row('keys written', 'keysWritten', 0, false),
    row('values MiB', 'valueMiB', 1, false),
    row('fill puts/s', 'putsPerSecond', 0),
    row(`snapshot save s (median of ${opts.snapshotRuns})`, 'snapshotSeconds', 2),
    row('snapshot save s (fastest)', 'snapshotBestSeconds', 2),
    row('snapshot file MiB', 'snapshotMiB', 1),
    row('snapshot MiB/s', 'snapshotMiBps', 1),
    row('etcdctl snapshot status: revision', 'statusRevision', 0, false),
    row('etcdctl snapshot status: total keys', 'statusTotalKeys', 0, false),
    '',
    e ? '' : 'etcd not measured (/usr/bin/etcd missing or excluded).',
  ].join('\n');
  writeResults('snapshot', { opts, results }, md);
}

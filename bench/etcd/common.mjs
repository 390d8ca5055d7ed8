// Shared by the etcd-family suites (etcd, watch, snapshot): which
// implementations to run, one cluster at a time with a stop() on every path,
// number formatting, percentiles, the machine line and the result files
// bench/results/<suite>-<date>.{json,md}.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { programFor, startCluster } from './cluster.mjs';

export const root = resolve(import.meta.dirname, '../..');
export const CLI_JS = join(root, 'out/main/cli.js');

/** BENCH_IMPLS (default "pilothouse,etcd"), without etcd when /usr/bin/etcd is missing. */
export function selectedImpls() {
  return (process.env.BENCH_IMPLS ?? 'pilothouse,etcd').split(',').filter((i) => i !== 'etcd' || existsSync('/usr/bin/etcd'));
}

/** Starts a 3-member cluster of `impl` on ports [base, base+5], runs fn(cluster), always stops it. A failed start is retried once. */
export async function withCluster(impl, base, fn) {
  process.stdout.write(`bench: starting ${impl} 3-member cluster\n`);
  let cluster;
  try {
    cluster = await startCluster(impl, programFor(impl, CLI_JS), base);
  } catch (err) {
    // One more attempt (the machine may be shared); the first failure is printed.
    process.stdout.write(`bench: ${impl} cluster did not start, retrying once: ${err.message}\n`);
    cluster = await startCluster(impl, programFor(impl, CLI_JS), base);
  }
  try {
    return await fn(cluster);
  } finally {
    await cluster.stop();
  }
}

export function fmt(n, digits = 1) {
  return Number.isFinite(n) ? n.toFixed(digits) : '–';
}

/** Percentile p (0..100) of an ascending array, NaN when empty. */
export function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

export function machine() {
  return `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`;
}

/** Writes bench/results/<suite>-<date>.json and .md, prints the markdown. */
export function writeResults(suite, json, md) {
  const date = new Date().toISOString().replace(/[:.]/g, '-');
  const dir = join(root, 'bench/results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${suite}-${date}.json`), JSON.stringify({ date, machine: machine(), ...json }, null, 2));
  writeFileSync(join(dir, `${suite}-${date}.md`), md);
  process.stdout.write(`\n${md}\nbench: wrote bench/results/${suite}-${date}.{json,md}\n`);
}

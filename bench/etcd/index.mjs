// `npm run bench -- etcd`: Pilothouse's 3-member cluster and, when
// /usr/bin/etcd exists, Debian's etcd 3.4 on the same machine in the same run,
// under the same load generator: 256-byte puts with 1, 16 and 64 concurrent
// clients, then linearizable gets. Prints a markdown table with the ratio
// Pilothouse/etcd and writes bench/results/etcd-<date>.json and .md.
// BENCH_SECONDS (default 10) bounds each phase; BENCH_MAX_OPS (default 50000) too.
// BENCH_IMPLS=etcd runs only etcd (used to validate the generator).

import { rssKiB } from './cluster.mjs';
import { fmt, machine, selectedImpls, withCluster, writeResults } from './common.mjs';
import { runPhase } from './load.mjs';

const PHASES = [
  { kind: 'put', concurrency: 1 },
  { kind: 'put', concurrency: 16 },
  { kind: 'put', concurrency: 64 },
  { kind: 'get', concurrency: 16 },
];
// Below Linux's ephemeral port range (32768+).
const PORT_BASE = { pilothouse: 27000, etcd: 27100 };

export async function run() {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const maxOps = Number(process.env.BENCH_MAX_OPS ?? 50_000);
  const impls = selectedImpls();
  const results = {};
  let idleRss;
  for (const impl of impls) {
    await withCluster(impl, PORT_BASE[impl], async (cluster) => {
      await new Promise((r) => setTimeout(r, 2_000));
      const rss = cluster.pids.map(rssKiB).filter((x) => x !== undefined);
      if (impl === 'pilothouse') idleRss = { perMemberKiB: rss, maxMiB: Math.max(...rss) / 1024 };
      results[impl] = { idleRssKiB: rss, phases: [] };
      for (const phase of PHASES) {
        const r = await runPhase({ endpoints: cluster.endpoints, ...phase, seconds, maxOps });
        process.stdout.write(`bench: ${impl} ${phase.kind} c=${phase.concurrency}: ${fmt(r.throughput, 0)} ops/s p50 ${fmt(r.p50Ms, 2)} ms p99 ${fmt(r.p99Ms, 2)} ms (${r.errors} errors)\n`);
        results[impl].phases.push(r);
      }
    });
  }

  const header = '| phase | clients | Pilothouse ops/s | p50 ms | p99 ms | etcd ops/s | p50 ms | p99 ms | throughput ratio P/etcd |';
  const lines = [header, '|---|---|---|---|---|---|---|---|---|'];
  PHASES.forEach((phase, i) => {
    const p = results.pilothouse?.phases[i];
    const e = results.etcd?.phases[i];
    const ratio = p && e ? p.throughput / e.throughput : NaN;
    lines.push(
      `| ${phase.kind === 'put' ? 'put 256 B' : 'get (linearizable)'} | ${phase.concurrency} | ${fmt(p?.throughput, 0)} | ${fmt(p?.p50Ms, 2)} | ${fmt(p?.p99Ms, 2)} | ${fmt(e?.throughput, 0)} | ${fmt(e?.p50Ms, 2)} | ${fmt(e?.p99Ms, 2)} | ${fmt(ratio, 2)} |`,
    );
  });
  const md = [
    `# etcd benchmark ${new Date().toISOString()}`,
    '',
    `Machine: ${machine()}. Each phase ≤ ${seconds} s and ≤ ${maxOps} requests; 3 members on loopback; etcd3 npm client.`,
    '',
    ...lines,
    '',
    idleRss ? `Idle RSS of a Pilothouse member: max ${fmt(idleRss.maxMiB)} MiB (per member KiB: ${idleRss.perMemberKiB.join(', ')}).` : '',
    results.etcd ? `Idle RSS of an etcd member (KiB): ${results.etcd.idleRssKiB.join(', ')}.` : 'etcd not measured (/usr/bin/etcd missing or excluded).',
    '',
  ].join('\n');
  writeResults('etcd', { seconds, maxOps, idleRss, results }, md);
}

// `npm run bench -- watch`: 1,000 watchers on one prefix, spread over a few
// etcd3 client connections (one per member, round robin; the client
// multiplexes its watchers on one Watch stream), while a separate client puts
// at a fixed rate (default 1,000 puts/s for 10 s, bounded count, ≤ 64 in
// flight). Each value embeds its sequence number and the put's issue time
// (performance.now()), so per-event latency = receive − issue (it includes the
// put's own commit). Reports p50/p99 latency, delivered events/s, and the
// missed and duplicate (watcher, put) pairs, for Pilothouse and etcd 3.4.
// Note: every event is decoded by this one Node process (watchers × rate
// events/s), on the same machine as the cluster.
// BENCH_WATCHERS (1000), BENCH_WATCH_CLIENTS (4), BENCH_RATE (comma list of
// rates, one run each: 1000 as asked, and 25 which one client process can decode),
// BENCH_SECONDS (10), BENCH_DRAIN_SECONDS (30) tune it.

import { performance } from 'node:perf_hooks';
import { Etcd3 } from 'etcd3';
import { fmt, selectedImpls, withCluster, writeResults } from './common.mjs';

const PORT_BASE = { pilothouse: 27200, etcd: 27300 };
const PREFIX = 'wbench/';
// Latency histogram: 0.1 ms buckets up to 60 s, plus the exact maximum.
const BUCKET_MS = 0.1;
const BUCKETS = 600_000;

function histogram() {
  const counts = new Uint32Array(BUCKETS + 1);
  let n = 0;
  let max = 0;
  return {
    add(ms) {
      const b = Math.min(BUCKETS, Math.max(0, Math.floor(ms / BUCKET_MS)));
      counts[b]++;
      n++;
      if (ms > max) max = ms;
    },
    pct(p) {
      if (n === 0) return NaN;
      const target = Math.ceil((p / 100) * n);
      let seen = 0;
      for (let b = 0; b <= BUCKETS; b++) {
        seen += counts[b];
        if (seen >= target) return b === BUCKETS ? max : (b + 1) * BUCKET_MS;
      }
      return max;
    },
    get count() {
      return n;
    },
    get max() {
      return max;
    },
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function watchRun(cluster, opts) {
  const { watchers, clientCount, rate, seconds, drainSeconds } = opts;
  const total = Math.max(1, Math.round(rate * seconds));
  const clients = Array.from({ length: clientCount }, (_, i) => new Etcd3({ hosts: [cluster.endpoints[i % cluster.endpoints.length]], dialTimeout: 2_000 }));
  const writer = new Etcd3({ hosts: [cluster.endpoints[0]], dialTimeout: 2_000 });
  const hist = histogram();
  const seen = Array.from({ length: watchers }, () => new Uint8Array(total));
  let delivered = 0;
  let duplicates = 0;
  let foreign = 0;
  let firstDelivery = 0;
  let lastDelivery = 0;
  const watcherObjs = [];
  try {
    const setupStart = performance.now();
    for (let w = 0; w < watchers; w++) {
      const wi = w;
      const builder = clients[w % clientCount].watch().prefix(PREFIX);
      watcherObjs.push(
        builder.create().then((watcher) => {
          watcher.on('put', (kv) => {
            const now = performance.now();
            const text = kv.value.toString();
            const sep = text.indexOf(':');
            const seq = Number(text.slice(0, sep));
            const issued = Number(text.slice(sep + 1, text.indexOf(':', sep + 1)));
            if (!(seq >= 0 && seq < total)) {
              foreign++;
              return;
            }
            if (seen[wi][seq]) {
              duplicates++;
              return;
            }
            seen[wi][seq] = 1;
            delivered++;
            if (!firstDelivery) firstDelivery = now;
            lastDelivery = now;
            hist.add(now - issued);
          });
          return watcher;
        }),
      );
    }
    const created = await Promise.race([Promise.all(watcherObjs), sleep(60_000).then(() => null)]);
    if (!created) throw new Error('watchers not created within 60 s');
    const setupSeconds = (performance.now() - setupStart) / 1000;
    process.stdout.write(`bench: ${cluster.impl} ${watchers} watchers on ${clientCount} connections created in ${fmt(setupSeconds, 1)} s\n`);

    // Rate-limited writer: at time t, total issued ≤ rate·t, ≤ 64 in flight.
    const pad = 'x'.repeat(64);
    let issued = 0;
    let inflight = 0;
    let putErrors = 0;
    const writeStart = performance.now();
    const writeDeadline = writeStart + (seconds + 30) * 1000;
    while (issued < total && performance.now() < writeDeadline) {
      const due = Math.min(total, Math.floor(((performance.now() - writeStart) / 1000) * rate));
      while (issued < due && inflight < 64) {
        const seq = issued++;
        inflight++;
        writer
          .put(`${PREFIX}${seq % 100}`)
          .value(`${seq}:${performance.now()}:${pad}`)
          .catch(() => putErrors++)
          .finally(() => inflight--);
      }
      await sleep(2);
    }
    for (let i = 0; i < 5000 && inflight > 0; i++) await sleep(2);
    const writeSeconds = (performance.now() - writeStart) / 1000;
    const expected = (issued - putErrors) * watchers;
    const drainDeadline = performance.now() + drainSeconds * 1000;
    while (delivered < expected && performance.now() < drainDeadline) await sleep(50);
    await sleep(500); // late duplicates would show up here
    const deliverySeconds = lastDelivery > firstDelivery ? (lastDelivery - firstDelivery) / 1000 : NaN;
    return {
      watchers,
      clientConnections: clientCount,
      targetRate: rate,
      puts: issued,
      putErrors,
      achievedPutRate: issued / writeSeconds,
      setupSeconds,
      expectedEvents: expected,
      delivered,
      missed: expected - delivered,
      duplicates,
      foreign,
      eventsPerSecond: delivered / deliverySeconds,
      p50Ms: hist.pct(50),
      p99Ms: hist.pct(99),
      maxMs: hist.max,
    };
  } finally {
    const ws = await Promise.race([Promise.allSettled(watcherObjs), sleep(5_000).then(() => [])]);
    await Promise.race([Promise.allSettled(ws.filter((r) => r.status === 'fulfilled').map((r) => r.value.cancel())), sleep(5_000)]);
    writer.close();
    for (const c of clients) c.close();
  }
}

export async function run() {
  const base = {
    watchers: Number(process.env.BENCH_WATCHERS ?? 1000),
    clientCount: Number(process.env.BENCH_WATCH_CLIENTS ?? 4),
    seconds: Number(process.env.BENCH_SECONDS ?? 10),
    drainSeconds: Number(process.env.BENCH_DRAIN_SECONDS ?? 30),
  };
  const rates = (process.env.BENCH_RATE ?? '1000,25').split(',').map(Number);
  const results = {};
  for (const impl of selectedImpls()) {
    results[impl] = await withCluster(impl, PORT_BASE[impl], async (cluster) => {
      const runs = [];
      for (const rate of rates) {
        await sleep(1_000);
        const r = await watchRun(cluster, { ...base, rate });
        process.stdout.write(
          `bench: ${impl} watch @${rate} puts/s: ${r.delivered}/${r.expectedEvents} events, ${fmt(r.eventsPerSecond, 0)} events/s, p50 ${fmt(r.p50Ms, 1)} ms p99 ${fmt(r.p99Ms, 1)} ms, missed ${r.missed}, duplicates ${r.duplicates}\n`,
        );
        runs.push(r);
      }
      return runs;
    });
  }
  const tables = rates.flatMap((rate, i) => {
    const p = results.pilothouse?.[i];
    const e = results.etcd?.[i];
    const row = (label, key, digits, ratio = true) =>
      `| ${label} | ${fmt(p?.[key], digits)} | ${fmt(e?.[key], digits)} | ${ratio && p && e ? fmt(p[key] / e[key], 2) : '–'} |`;
    return [
      `## ${rate} puts/s × ${base.watchers} watchers = ${rate * base.watchers} events/s offered`,
      '',
      '| | Pilothouse | etcd 3.4 | ratio P/etcd |',
      '|---|---|---|---|',
      row('watcher setup s', 'setupSeconds', 1),
      row('puts issued', 'puts', 0, false),
      row('achieved put rate /s', 'achievedPutRate', 0),
      row('events expected', 'expectedEvents', 0, false),
      row('events delivered', 'delivered', 0, false),
      row('delivered events/s', 'eventsPerSecond', 0),
      row('latency p50 ms', 'p50Ms', 1),
      row('latency p99 ms', 'p99Ms', 1),
      row('latency max ms', 'maxMs', 1),
      row(`missed (not delivered ${base.drainSeconds} s after the last put)`, 'missed', 0, false),
      row('duplicates', 'duplicates', 0, false),
      '',
    ];
  });
  const md = [
    `# watch benchmark ${new Date().toISOString()}`,
    '',
    `${base.watchers} watchers on prefix \`${PREFIX}\` over ${base.clientCount} etcd3 client connections (one per member, round robin); ` +
      `one writer putting at a fixed rate for ${base.seconds} s (≤ 64 in flight, 100 keys, ~90-byte values); latency = receive − put issue time, ` +
      `including the put's commit. Every event is decoded by the one Node bench process, on the same 2 cores as the 3 members and the writer. ` +
      `When the offered events/s exceed what that process decodes (compare delivered events/s; on a 2-core machine 1,000 puts/s = 1,000,000 events/s does), ` +
      `the writer falls behind its rate, latency is mostly queueing in the client, and "missed" counts events not received by the end of the bounded drain, ` +
      `which does not tell a lost event from a queued one; the lower rate is one the client keeps up with, where a missed event is a lost one. ` +
      `Duplicates are counted per watcher and sequence number.`,
    '',
    ...tables,
    results.etcd ? '' : 'etcd not measured (/usr/bin/etcd missing or excluded).',
  ].join('\n');
  writeResults('watch', { ...base, rates, results }, md);
}

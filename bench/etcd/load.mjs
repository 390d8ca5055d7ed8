// The load generator: `concurrency` workers issuing one request at a time
// over a few shared etcd3 connections, for at most `seconds` and `maxOps`
// requests in total. Latency is per request, wall-clock, in milliseconds.

import { Etcd3 } from 'etcd3';

export async function runPhase({ endpoints, kind, concurrency, seconds, maxOps, valueBytes = 256 }) {
  const connections = Math.min(concurrency, 8);
  const clients = Array.from({ length: connections }, () => new Etcd3({ hosts: endpoints, dialTimeout: 2_000 }));
  const value = Buffer.alloc(valueBytes, 'v');
  const latencies = [];
  let issued = 0;
  let errors = 0;
  const started = process.hrtime.bigint();
  const deadline = Date.now() + seconds * 1000;
  const worker = async (w) => {
    const client = clients[w % connections];
    while (Date.now() < deadline && issued < maxOps) {
      const n = issued++;
      const key = `bench/${kind}/${n % 10_000}`;
      const t0 = process.hrtime.bigint();
      try {
        if (kind === 'put') await client.put(key).value(value);
        else await client.get(`bench/put/${n % 1_000}`).buffer();
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      } catch {
        errors++;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  } finally {
    for (const c of clients) c.close();
  }
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const pct = (p) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] : NaN);
  return {
    kind,
    concurrency,
    ops: latencies.length,
    errors,
    seconds: elapsed,
    throughput: latencies.length / elapsed,
    p50Ms: pct(50),
    p99Ms: pct(99),
  };
}

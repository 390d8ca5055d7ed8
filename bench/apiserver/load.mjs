// The load shapes the API server benchmarks share: a stored-size Pod and a
// closed loop of concurrent clients bounded in time and in operations.

import { percentile } from '../etcd/common.mjs';

export const pod = (name) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: 'bench', tier: 'web' } },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
});

/** Runs `op(i)` from `concurrency` loops until `seconds` or `maxOps` pass; latencies in ms. */
export async function closedLoop(concurrency, seconds, maxOps, op) {
  const lat = [];
  let first;
  let next = 0;
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end && next < maxOps) {
        const i = next++;
        const t0 = performance.now();
        try {
          if (!(await op(i))) errors++;
        } catch {
          errors++;
        }
        lat.push(performance.now() - t0);
        first ??= lat[0];
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  lat.sort((a, b) => a - b);
  return { ops: lat.length, errors, throughput: (lat.length - errors) / elapsed, p50Ms: percentile(lat, 50), p99Ms: percentile(lat, 99), maxMs: lat.at(-1), firstMs: first };
}

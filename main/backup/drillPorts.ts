// Ports for a scratch control plane: a block of consecutive loopback ports
// (members from portBase, the API server after them, as clusterLayout and
// apiServerLayout lay them out), every one of them free when checked. The
// block is drawn at random below the ephemeral range, so that two drills at
// once, or a drill next to the live plane, do not pick the same block.

import { createServer } from 'node:net';

const LOW = 20_000;
const HIGH = 32_000;

function free(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** True when every port of [base, base + n) can be bound on 127.0.0.1 now. */
export async function blockFree(base: number, n: number): Promise<boolean> {
  for (let p = base; p < base + n; p++) if (!(await free(p))) return false;
  return true;
}

/** The first port of n consecutive free ports; throws after `tries` blocks in use. */
export async function freePortBlock(n: number, tries = 50, random: () => number = Math.random): Promise<number> {
  for (let i = 0; i < tries; i++) {
    const base = LOW + Math.floor(random() * (HIGH - LOW - n));
    if (await blockFree(base, n)) return base;
  }
  throw new Error(`no ${n} consecutive free ports found in ${LOW}..${HIGH}`);
}

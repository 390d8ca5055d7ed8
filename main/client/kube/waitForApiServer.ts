// kube-controller-manager's WaitForAPIServer: a controller process may start
// before its API server is ready (`pilothouse up` spawns both at once, so
// the controllers' boot overlaps the API server's); polling /readyz before
// the first real request keeps the components' own retry periods (a leader
// election retries every 2 s) out of the start-up.

import { realClock, sleep, type Clock } from './clock';
import type { RestClient } from './rest';

/** Poll period: /readyz is cheap, and the API server's start is what the controllers wait on. */
const POLL_MS = 50;
/** One probe's bound: an API server that accepted but does not answer is retried. */
const PROBE_TIMEOUT_MS = 1_000;

/**
 * Resolves true once GET /readyz answers 2xx, false after timeoutMs (the
 * caller then goes on: its components retry on their own) or on abort.
 */
export async function waitForApiServer(rest: RestClient, opts: { timeoutMs: number; signal: AbortSignal; clock?: Clock }): Promise<boolean> {
  const clock = opts.clock ?? realClock;
  const deadline = clock.now() + opts.timeoutMs;
  while (!opts.signal.aborted && clock.now() < deadline) {
    try {
      await rest.request('GET', '/readyz', { signal: AbortSignal.any([opts.signal, AbortSignal.timeout(PROBE_TIMEOUT_MS)]) });
      return true;
    } catch {
      // not serving yet, or not ready
    }
    await sleep(clock, POLL_MS, opts.signal);
  }
  return false;
}

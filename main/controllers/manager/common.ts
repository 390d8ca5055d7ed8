// What the controller manager's controllers share: label-selector matching,
// pod readiness as kube's podutil reads it, and the queue-and-workers frame
// every controller runs in (client-go's processNextWorkItem loop).

import { RateLimitingQueue, runWorkers, type ControllerContext } from '../../client/kube';
import type { Pod } from './types';

export { selectorMatches, setMatches } from '../../kube/labelSelectors';

export const isTerminal = (p: Pod): boolean => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
/** controller.IsPodActive: not finished and not being deleted. */
export const isActive = (p: Pod): boolean => !isTerminal(p) && !p.metadata.deletionTimestamp;

function readyCondition(p: Pod): { status: string; lastTransitionTime?: string } | undefined {
  return p.status?.conditions?.find((c) => c.type === 'Ready');
}
export const isPodReady = (p: Pod): boolean => readyCondition(p)?.status === 'True';

/** podutil.IsPodAvailable: Ready for at least minReadySeconds. */
export function isPodAvailable(p: Pod, minReadySeconds: number, nowMs: number): boolean {
  const c = readyCondition(p);
  if (c?.status !== 'True') return false;
  if (!minReadySeconds) return true;
  const t = Date.parse(c.lastTransitionTime ?? '');
  return Number.isFinite(t) && t + minReadySeconds * 1000 <= nowMs;
}

export const clone = <T>(v: T): T => structuredClone(v);

/**
 * A controller's frame: a deduplicating, rate-limited queue of keys worked by
 * `workers` loops calling sync once the caches have synced, stopped with the context. Errors re-queue the
 * key with backoff and are logged once.
 */
export function runQueue(ctx: ControllerContext, name: string, sync: (key: string) => Promise<void>, workers = ctx.options.concurrentSyncs): RateLimitingQueue<string> {
  const queue = new RateLimitingQueue<string>({ clock: ctx.clock, name });
  ctx.signal.addEventListener('abort', () => queue.shutDown(), { once: true });
  // Workers start once the caches registered so far (this controller's among
  // them) are full: acting on a half-listed cache would, say, create pods
  // that already exist.
  void ctx.informers.waitForCacheSync(ctx.signal).then((synced) => {
    if (!synced) return;
    void runWorkers(queue, workers, sync, (key, err) => ctx.log(`${name}: sync ${key}: ${(err as Error).message ?? String(err)}`));
  });
  return queue;
}

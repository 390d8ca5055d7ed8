// What the controller manager's controllers share: label-selector matching,
// pod readiness as kube's podutil reads it, and the queue-and-workers frame
// every controller runs in (client-go's processNextWorkItem loop).

import { RateLimitingQueue, runWorkers, type ControllerContext } from '../client';
import type { LabelSelector, Pod } from './types';

/** metav1.LabelSelectorAsSelector(...).Matches: every matchLabels and matchExpressions term holds. An empty selector matches everything. */
export function selectorMatches(sel: LabelSelector | undefined, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const [k, v] of Object.entries(sel?.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of sel?.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const vals = e.values ?? [];
    if (e.operator === 'In' && !(has && vals.includes(l[e.key]))) return false;
    if (e.operator === 'NotIn' && has && vals.includes(l[e.key])) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/** A map selector (Service.spec.selector): labels.SelectorFromSet; an empty one selects nothing for services, so callers check emptiness. */
export function setMatches(set: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  for (const [k, v] of Object.entries(set)) if (labels?.[k] !== v) return false;
  return true;
}

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

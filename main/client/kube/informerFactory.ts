// One informer per (resource, namespace, selectors) shared by every
// controller in the process, as client-go's SharedInformerFactory: the
// scheduler and the node lifecycle controller both watching nodes cost one
// watch. Ask for informers first, then start(); informers asked for later
// start at once if the factory already runs.

import type { Clock } from './clock';
import { SharedIndexInformer, restListerWatcher, type KubeObject, type ListWatchOptions } from './informer';
import type { RestClient } from './rest';
import type { ResourceRef } from './resources';

export interface InformerRequest extends ListWatchOptions {
  /** Overrides the factory's default resync. */
  resyncMs?: number;
}

export class SharedInformerFactory {
  private readonly informers = new Map<string, SharedIndexInformer<KubeObject>>();
  private signal: AbortSignal | undefined;
  private readonly runs: Promise<void>[] = [];

  constructor(
    private readonly rest: RestClient,
    private readonly opts: { resyncMs?: number; clock?: Clock; onError?(resource: string, err: Error): void } = {},
  ) {}

  informer<T extends KubeObject = KubeObject>(resource: ResourceRef, req: InformerRequest = {}): SharedIndexInformer<T> {
    const key = [resource.group, resource.version, resource.plural, req.namespace ?? '', req.fieldSelector ?? '', req.labelSelector ?? ''].join('|');
    let inf = this.informers.get(key);
    if (!inf) {
      inf = new SharedIndexInformer(restListerWatcher(this.rest, resource, req), {
        resyncMs: req.resyncMs ?? this.opts.resyncMs ?? 0,
        clock: this.opts.clock,
        onError: (e) => this.opts.onError?.(resource.plural, e),
      });
      this.informers.set(key, inf);
      if (this.signal) this.runs.push(inf.run(this.signal));
    }
    return inf as unknown as SharedIndexInformer<T>;
  }

  /** Starts every informer asked for so far (and later ones on request) until signal aborts. */
  start(signal: AbortSignal): void {
    if (this.signal) return;
    this.signal = signal;
    for (const inf of this.informers.values()) this.runs.push(inf.run(signal));
  }

  /** True when every informer has synced; false if signal aborted first. */
  async waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    const all = await Promise.all([...this.informers.values()].map((i) => i.waitForSync(signal)));
    return all.every(Boolean);
  }

  /** Resolves when every informer's run loop has returned (after the start signal aborts). */
  async stopped(): Promise<void> {
    await Promise.all(this.runs);
  }
}

// Records a watch's events for assertions: waitFor(n) resolves once n events
// arrived (or fails after a bounded wait with what did arrive).

import type { Storage, WatchEvent, WatchOptions, Watcher } from '../../../main/apiserver/storage/interface';

export interface Recorder {
  events: WatchEvent[];
  watcher: Watcher;
  waitFor(n: number, timeoutMs?: number): Promise<WatchEvent[]>;
  /** One line per event: "ADDED a 12", "BOOKMARK 15 end", "ERROR 410 too old ...". */
  lines(): string[];
}

export function describeEvent(e: WatchEvent): string {
  const o = e.object as { metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> }; code?: number; message?: string };
  if (e.type === 'ERROR') return `ERROR ${o.code} ${o.message}`;
  if (e.type === 'BOOKMARK') return `BOOKMARK ${o.metadata?.resourceVersion}${o.metadata?.annotations?.['k8s.io/initial-events-end'] === 'true' ? ' end' : ''}`;
  return `${e.type} ${o.metadata?.name} ${o.metadata?.resourceVersion}`;
}

export function record(storage: Storage, prefix: string, opts: WatchOptions): Recorder {
  const events: WatchEvent[] = [];
  const waiters: (() => void)[] = [];
  const watcher = storage.watch(prefix, opts, (e) => {
    events.push(e);
    for (const w of waiters.splice(0)) w();
  });
  return {
    events,
    watcher,
    lines: () => events.map(describeEvent),
    async waitFor(n, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length < n) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`waited ${timeoutMs} ms for ${n} events, got ${events.length}: ${JSON.stringify(events.map(describeEvent))}`);
        await new Promise<void>((r) => {
          const t = setTimeout(r, left);
          waiters.push(() => {
            clearTimeout(t);
            r();
          });
        });
      }
      return events.slice(0, n);
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

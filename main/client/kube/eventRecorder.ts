// core/v1 Events written the way client-go's tools/record writes them, so
// `kubectl get events` and `kubectl describe` read the lifecycle as they do
// on a real cluster:
//   - name `<involvedObject.name>.<hex of the unix nanoseconds>`, in the
//     object's namespace (`default` for cluster-scoped objects such as Nodes);
//   - source {component, host}, firstTimestamp = lastTimestamp, count 1;
//   - the same (source, object, type, reason, message) again → the existing
//     Event is PATCHed (strategic merge) with count+1 and a new lastTimestamp
//     instead of a new Event (the EventCorrelator's logger); if it vanished,
//     a new one is created.
// Recording never blocks or throws: writes run in the background, in order
// per Event, and failures go to onError. flush() waits for them (tests).

import { type Clock, realClock } from './clock';
import type { KubeObject } from './informer';
import { isNotFound, type RestClient } from './rest';

export type EventType = 'Normal' | 'Warning';

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface EventRecorder {
  /** Records an event about obj (an object with apiVersion/kind/metadata, or a reference). */
  event(obj: KubeObject | ObjectReference, type: EventType, reason: string, message: string): void;
  /** Resolves when every write started so far has finished. */
  flush(): Promise<void>;
}

export interface EventRecorderOptions {
  component: string;
  host?: string;
  clock?: Clock;
  onError?(err: unknown): void;
  /** How many distinct events to remember for aggregation (client-go: 4096). */
  cacheSize?: number;
}

export function referenceOf(obj: KubeObject | ObjectReference): ObjectReference {
  if ('metadata' in obj && obj.metadata) {
    const m = obj.metadata;
    const ref: ObjectReference = { kind: obj.kind, namespace: m.namespace, name: m.name, uid: m.uid, apiVersion: obj.apiVersion, resourceVersion: m.resourceVersion };
    return Object.fromEntries(Object.entries(ref).filter(([, v]) => v !== undefined && v !== '')) as ObjectReference;
  }
  return obj as ObjectReference;
}

/** RFC 3339 with seconds, as metav1.Time marshals. */
export function kubeTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

interface Seen {
  name: string;
  namespace: string;
  count: number;
  firstTimestamp: string;
}

export function newEventRecorder(rest: RestClient, opts: EventRecorderOptions): EventRecorder {
  const clock = opts.clock ?? realClock;
  const cacheSize = opts.cacheSize ?? 4096;
  const seen = new Map<string, Seen>();
  const chains = new Map<string, Promise<void>>();
  const pending = new Set<Promise<void>>();
  const source = opts.host ? { component: opts.component, host: opts.host } : { component: opts.component };
  let lastNanos = 0n;

  const uniqueNanos = (): bigint => {
    // Two events in one millisecond must not share a name.
    let n = BigInt(clock.now()) * 1_000_000n;
    if (n <= lastNanos) n = lastNanos + 1n;
    lastNanos = n;
    return n;
  };

  async function write(key: string, ref: ObjectReference, type: EventType, reason: string, message: string): Promise<void> {
    const namespace = ref.namespace || 'default';
    const now = kubeTime(clock.now());
    const prev = seen.get(key);
    if (prev) {
      prev.count++;
      try {
        await rest.patch(`/api/v1/namespaces/${encodeURIComponent(prev.namespace)}/events/${encodeURIComponent(prev.name)}`, 'strategic', { count: prev.count, lastTimestamp: now, message });
        return;
      } catch (e) {
        if (!isNotFound(e)) throw e;
        seen.delete(key);
      }
    }
    const name = `${ref.name}.${uniqueNanos().toString(16)}`;
    const body = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: ref,
      reason,
      message,
      source,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      type,
      eventTime: null,
      reportingComponent: opts.component,
      reportingInstance: opts.host ?? '',
    };
    await rest.create(`/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, body);
    seen.set(key, { name, namespace, count: 1, firstTimestamp: now });
    if (seen.size > cacheSize) seen.delete(seen.keys().next().value as string);
  }

  return {
    event(obj, type, reason, message) {
      const ref = referenceOf(obj);
      const key = JSON.stringify([source.component, source.host ?? '', ref.kind, ref.namespace ?? '', ref.name, ref.uid ?? '', ref.apiVersion ?? '', type, reason, message]);
      const prior = chains.get(key) ?? Promise.resolve();
      const p = prior.then(() => write(key, ref, type, reason, message)).catch((e: unknown) => opts.onError?.(e));
      chains.set(key, p);
      pending.add(p);
      void p.finally(() => {
        pending.delete(p);
        if (chains.get(key) === p) chains.delete(key);
      });
    },
    async flush() {
      for (let i = 0; i < 100 && pending.size; i++) await Promise.all([...pending]);
    },
  };
}

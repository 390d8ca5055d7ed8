// The Watch events view fed from the Kubernetes API instead of etcd: one
// informer (list, then watch from its resourceVersion; relist on 410) per
// resource in WATCHED, as the user of the chosen kubeconfig context. The
// first list only primes the informer's cache — the feed shows what changes
// after it, as the etcd feed shows what comes after "now" — and a later
// relist's differences are reported as the changes they are.
//
// Records are the etcd feed's WatchEventRecords with source 'kubernetes':
// key /registry/<resource>/<namespace>/<name> (so the view's filters work
// alike), type ADDED/MODIFIED/DELETED, revision = the object's
// resourceVersion. The detail is the object as the API server serves it
// (JSON) and the version before it from the informer's cache; the raw etcd
// bytes are not reachable through the API, and the detail says so.
// Memory is bounded as in the etcd feed: RING_CAPACITY records, their values
// within a byte budget (past it, the oldest lose their values). The
// informers' caches hold each watched object once; Secrets are cut to their
// metadata before anything keeps them.
//
// RBAC: a resource the user may not list or watch across namespaces is
// watched in the context's namespace instead, when that is allowed; one it
// may not watch at all is skipped and named once in the status and the log,
// as is one the API server does not serve. Other failures (the API server
// unreachable) are retried by the informers and said once per change of
// message.

import { setMaxListeners } from 'node:events';
import type { EventSink, WatchEventDetail, WatchEventRecord } from '../../preload/contract';
import { ApiError, collectionPath, restListerWatcher, RESOURCES, SharedIndexInformer, type KubeObject, type ListerWatcher, type RestClient, type ResourceRef } from '../client/kube';
import { cannotWatch, isForbidden, kubeError } from './kubeErrors';
import { RecordRing } from './recordRing';
import { BATCH_MS, RING_CAPACITY } from './watchFeed';

const VALUE_BUDGET_BYTES = 64 * 1024 * 1024;
/** How long start() waits for the informers' first lists. */
const SYNC_WAIT_MS = 10_000;

const apps = (plural: string, kind: string): ResourceRef => ({ group: 'apps', version: 'v1', plural, kind, namespaced: true });

/** What the feed watches, in the order the status names them. */
export const WATCHED: readonly ResourceRef[] = [
  RESOURCES.namespaces,
  RESOURCES.nodes,
  RESOURCES.pods,
  RESOURCES.deployments,
  RESOURCES.replicasets,
  apps('statefulsets', 'StatefulSet'),
  apps('daemonsets', 'DaemonSet'),
  RESOURCES.services,
  RESOURCES.endpoints,
  RESOURCES.configmaps,
  RESOURCES.secrets,
  RESOURCES.serviceaccounts,
  RESOURCES.events,
  RESOURCES.leases,
];

export const DETAIL_NOTE = 'From the Kubernetes API: the object as the API server serves it (JSON). The raw etcd bytes (encoding, protobuf) are not visible through the API; attach with etcd endpoints to see them.';

export interface KubeWatchFeedOptions {
  rest: RestClient;
  events: EventSink;
  resources?: readonly ResourceRef[];
  /** The context's namespace: where a namespaced resource is watched when listing it across namespaces is forbidden. */
  namespace?: string;
  capacity?: number;
  valueBudgetBytes?: number;
  /** Where seq numbers come from: shared with the etcd feed when both run. */
  nextSeq?: () => number;
  /** A line for the console log (each skipped resource and each new failure, once). */
  onNote?(message: string): void;
  /** The status changed (a resource skipped, an error said or cleared). */
  onStatus?(): void;
}

interface StoredRecord {
  record: WatchEventRecord;
  value?: string;
  prevValue?: string;
}

/** The key the view files a Kubernetes object under, shaped like its etcd key. */
export function registryKey(resource: string, namespace: string | undefined, name: string): string {
  return namespace ? `/registry/${resource}/${namespace}/${name}` : `/registry/${resource}/${name}`;
}

/** A Secret as the feed keeps it: metadata only (no data, no stringData). */
export function metadataOnly(obj: KubeObject): KubeObject {
  const { apiVersion, kind, metadata, type } = obj;
  return { apiVersion, kind, metadata, ...(type !== undefined && { type }) };
}

function stripping(lw: ListerWatcher, strip: (o: KubeObject) => KubeObject): ListerWatcher {
  return {
    async list(signal) {
      const res = await lw.list(signal);
      return { ...res, items: res.items.map(strip) };
    },
    watch(rv, onEvent, signal) {
      return lw.watch(rv, (e) => onEvent(e.type === 'ERROR' || e.type === 'BOOKMARK' ? e : { ...e, object: strip(e.object as KubeObject) }), signal);
    },
  };
}

export interface KubeWatchStatus {
  /** Resources being watched ("configmaps in team-a" when only one namespace is allowed). */
  watching: string[];
  /** One line per resource skipped or narrowed, and the current failure if any. */
  notes: string[];
}

export class KubeWatchFeed {
  private readonly ring: RecordRing<string, StoredRecord>;
  private readonly nextSeq: () => number;
  private readonly abort = new AbortController();
  private readonly runs: Promise<void>[] = [];
  private readonly watching = new Map<string, string>(); // plural → what the status says
  private readonly skipped = new Map<string, string>(); // plural → why
  private failure: string | undefined;
  private pending: WatchEventRecord[] = [];
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: KubeWatchFeedOptions) {
    this.ring = new RecordRing(opts.capacity ?? RING_CAPACITY, opts.valueBudgetBytes ?? VALUE_BUDGET_BYTES, (v) => v.length);
    let seq = 0;
    this.nextSeq = opts.nextSeq ?? (() => ++seq);
    setMaxListeners(4 * (opts.resources ?? WATCHED).length, this.abort.signal); // one stop per informer (and its namespaced retry)
  }

  /** Starts every informer; resolves once each has listed or been skipped (at most SYNC_WAIT_MS). */
  async start(): Promise<void> {
    const ready = (this.opts.resources ?? WATCHED).map((r) => this.watch(r, undefined));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(ready), new Promise((r) => (timer = setTimeout(r, SYNC_WAIT_MS)))]);
    clearTimeout(timer);
  }

  status(): KubeWatchStatus {
    return { watching: [...this.watching.values()], notes: [...this.skipped.values(), ...(this.failure ? [this.failure] : [])] };
  }

  /** Runs one informer for r (across namespaces, or in `namespace`); resolves when it synced or was given up. */
  private watch(r: ResourceRef, namespace: string | undefined): Promise<void> {
    const ctl = new AbortController();
    const stop = (): void => ctl.abort();
    this.abort.signal.addEventListener('abort', stop, { once: true });
    let lw = restListerWatcher(this.opts.rest, r, namespace ? { namespace } : {});
    if (r.plural === 'secrets' && r.group === '') lw = stripping(lw, metadataOnly);
    let settled: () => void = () => {};
    const ready = new Promise<void>((resolve) => (settled = resolve));
    const inf: SharedIndexInformer = new SharedIndexInformer(lw, {
      onError: (err) => {
        if (ctl.signal.aborted) return;
        const next = this.giveUp(r, namespace, err);
        if (next === 'retry') return;
        ctl.abort();
        if (next === 'namespace') void this.watch(r, this.opts.namespace).then(settled);
        else settled();
      },
    });
    inf.addEventHandler({
      // the first list primes the cache: only what happens after it is an event
      add: (o) => inf.hasSynced() && this.record('ADDED', r, o),
      update: (old, o) => old.metadata?.resourceVersion !== o.metadata?.resourceVersion && this.record('MODIFIED', r, o, old),
      delete: (o) => inf.hasSynced() && this.record('DELETED', r, o),
    });
    void inf.waitForSync(ctl.signal).then((synced) => {
      if (!synced) return;
      this.watching.set(r.plural, namespace ? `${r.plural} in ${namespace}` : r.plural);
      this.clearFailure();
      settled();
    });
    this.runs.push(inf.run(ctl.signal).finally(() => this.abort.signal.removeEventListener('abort', stop)));
    return ready;
  }

  /** After a list or watch failed: retry it, narrow it to the context's namespace, or skip the resource. */
  private giveUp(r: ResourceRef, namespace: string | undefined, err: Error): 'retry' | 'namespace' | 'skip' {
    const denied = isForbidden(err);
    const absent = err instanceof ApiError && err.status === 404;
    if (!denied && !absent) {
      this.fail(kubeError(err, { server: this.opts.rest.server.origin }));
      return 'retry';
    }
    this.watching.delete(r.plural);
    if (absent) {
      this.skip(r.plural, `not watching ${r.plural}: this API server does not serve them (${collectionPath(r)})`);
      return 'skip';
    }
    if (!namespace && r.namespaced && this.opts.namespace) {
      this.skip(r.plural, `${cannotWatch(r.plural, err, 'across namespaces')}; watching namespace ${this.opts.namespace} only`);
      return 'namespace';
    }
    this.skip(r.plural, cannotWatch(r.plural, err, namespace ? `in namespace ${namespace}` : undefined));
    return 'skip';
  }

  private skip(plural: string, why: string): void {
    this.skipped.set(plural, why);
    this.opts.onNote?.(why);
    this.opts.onStatus?.();
  }

  private fail(message: string): void {
    if (message === this.failure) return;
    this.failure = message;
    this.opts.onNote?.(`watching the Kubernetes API: ${message} (retrying)`);
    this.opts.onStatus?.();
  }

  private clearFailure(): void {
    if (!this.failure) return;
    this.failure = undefined;
    this.opts.onStatus?.();
  }

  private record(type: 'ADDED' | 'MODIFIED' | 'DELETED', r: ResourceRef, obj: KubeObject, old?: KubeObject): void {
    if (this.abort.signal.aborted) return;
    this.clearFailure();
    const m = obj.metadata ?? {};
    const name = m.name ?? '';
    const json = JSON.stringify(obj, null, 2);
    const record: WatchEventRecord = {
      seq: this.nextSeq(),
      source: 'kubernetes',
      type,
      key: registryKey(r.plural, m.namespace, name),
      revision: m.resourceVersion ?? '',
      resource: r.plural,
      ...(m.namespace && { namespace: m.namespace }),
      name,
      kind: obj.kind ?? r.kind,
      at: new Date().toISOString(),
      size: Buffer.byteLength(json),
    };
    // as in etcd's feed, a deletion has no value: the last version is the previous one
    const stored: StoredRecord = type === 'DELETED' ? { record, prevValue: json } : { record, value: json, ...(old && { prevValue: JSON.stringify(old, null, 2) }) };
    this.ring.push(stored);
    this.pending.push(record);
    this.flushTimer ??= setTimeout(() => this.flush(), BATCH_MS);
  }

  private flush(): void {
    this.flushTimer = undefined;
    if (this.pending.length === 0 || this.abort.signal.aborted) return;
    const batch = this.pending;
    this.pending = [];
    this.opts.events.emit('watchEvents', batch);
  }

  recent(req: { limit: number }): WatchEventRecord[] {
    return this.ring.newest(req.limit).map((s) => s.record);
  }

  holds(seq: number): boolean {
    return this.ring.find(seq) !== undefined;
  }

  detail(req: { seq: number }): WatchEventDetail | null {
    const stored = this.ring.find(req.seq);
    if (!stored) return null;
    const dropped = stored.value === undefined && stored.prevValue === undefined;
    return {
      seq: stored.record.seq,
      yaml: stored.value ?? '',
      previousYaml: stored.prevValue ?? '',
      encoding: 'json (Kubernetes API)',
      note: dropped ? `${DETAIL_NOTE} This event's object was dropped from memory (older events give up their values first), and the API cannot read an old resourceVersion of one object.` : DETAIL_NOTE,
    };
  }

  async dispose(): Promise<void> {
    this.abort.abort();
    if (this.flushTimer) clearTimeout(this.flushTimer);
    await Promise.all(this.runs);
  }
}

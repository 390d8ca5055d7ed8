// The console's etcd watch feed: one watch on the whole keyspace of the
// cluster (with prev_kv), turned into WatchEventRecords for the Watch events
// view. Records go to the renderer in batches (at most one `watchEvents`
// event per BATCH_MS) and are kept in a bounded ring (RING_CAPACITY records,
// so an operator can scroll back; older ones are dropped, and the view says
// the list is bounded). Values are kept for detail views within a byte
// budget; past it, detail() reads the value back from etcd at the event's
// revision (and the previous version at revision − 1), which works until
// that revision is compacted.
//
// The watch is the API server's own resilient etcd watch (raw gRPC with
// keepalive pings): it resumes on another member after its member dies or
// is paused, from the revision after the last one it delivered.

import { EtcdClient, prefixEnd } from '../client/etcd/etcdClient';
import { EtcdWatch, type RawEvent } from '../client/etcd/etcdWatch';
import type { EventSink, WatchEventDetail, WatchEventRecord } from '../../preload/contract';
import { RecordRing } from './recordRing';
import { decodeStoredValue } from './storedValue';

export interface EtcdTlsFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

export interface WatchFeedOptions {
  /** https://127.0.0.1:port URLs (or host:port). */
  endpoints: string[];
  tls?: EtcdTlsFiles;
  events: EventSink;
  /** Key prefix to watch; '' = every key. */
  prefix?: string;
  capacity?: number;
  valueBudgetBytes?: number;
  /** Where seq numbers come from: shared with the Kubernetes API feed when both run. */
  nextSeq?: () => number;
}

export const BATCH_MS = 100;
export const RING_CAPACITY = 100_000;
const VALUE_BUDGET_BYTES = 64 * 1024 * 1024;

interface StoredRecord {
  record: WatchEventRecord;
  value?: Buffer;
  prevValue?: Buffer;
}

/** "/registry/deployments/default/nginx" → resource, namespace, name (cluster-scoped: no namespace). */
export function parseRegistryKey(key: string): { resource?: string; namespace?: string; name?: string } {
  if (!key.startsWith('/registry/')) return {};
  const parts = key.slice('/registry/'.length).split('/');
  // Special prefixes that span two segments (kube's SpecialDefaultResourcePrefixes).
  if ((parts[0] === 'services' && (parts[1] === 'specs' || parts[1] === 'endpoints')) || parts[0] === 'ranges') {
    const resource = parts[0] === 'ranges' ? 'ranges' : parts[1] === 'specs' ? 'services' : 'endpoints';
    const rest = parts[0] === 'ranges' ? parts.slice(1) : parts.slice(2);
    return rest.length >= 2 ? { resource, namespace: rest[0], name: rest.slice(1).join('/') } : { resource, name: rest[0] };
  }
  const resource = parts[0] === 'minions' ? 'nodes' : parts[0];
  const rest = parts.slice(1);
  if (rest.length >= 2) return { resource, namespace: rest[0], name: rest.slice(1).join('/') };
  return { resource, name: rest[0] };
}

export class WatchFeed {
  private readonly client: EtcdClient;
  private readonly ring: RecordRing<Buffer, StoredRecord>;
  private readonly nextSeq: () => number;
  private pending: WatchEventRecord[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private watcher: EtcdWatch | undefined;
  private disposed = false;
  /** The newest revision delivered, and the keys delivered at it: a resumed watch may replay them. */
  private lastRevision = 0n;
  private keysAtLastRevision = new Set<string>();

  constructor(private readonly opts: WatchFeedOptions) {
    this.ring = new RecordRing(opts.capacity ?? RING_CAPACITY, opts.valueBudgetBytes ?? VALUE_BUDGET_BYTES, (v) => v.length);
    let seq = 0;
    this.nextSeq = opts.nextSeq ?? (() => ++seq);
    this.client = new EtcdClient({ endpoints: opts.endpoints, tls: opts.tls, callTimeoutMs: 5_000 });
  }

  async start(): Promise<void> {
    // From the revision after "now", so nothing between start() and the stream is missed.
    const now = await this.client.range({ key: Buffer.from([0]), countOnly: true, limit: 1 });
    const prefix = this.opts.prefix ?? '';
    // key "\0" with range_end "\0" means every key.
    const key = prefix || '\0';
    const rangeEnd = prefix ? prefixEnd(prefix) : Buffer.from([0]);
    this.watcher = new EtcdWatch(
      this.client,
      { key, rangeEnd, startRevision: now.revision + 1n, prevKv: true },
      {
        onEvents: (events: RawEvent[]) => {
          for (const ev of events) this.record(ev.type, ev.kv, ev.prevKv);
        },
        onProgress: () => undefined,
        onCompacted: () => undefined, // the feed shows what comes next; nothing to relist
        onError: () => undefined, // EtcdWatch gave up on every endpoint: the overview shows the cluster down
      },
    );
  }

  private record(type: 'PUT' | 'DELETE', kv: { key: Buffer; value: Buffer; modRevision: bigint }, prev?: { value: Buffer }): void {
    if (this.disposed) return;
    const key = kv.key.toString('utf8');
    const revision = kv.modRevision;
    if (revision < this.lastRevision || (revision === this.lastRevision && this.keysAtLastRevision.has(key))) return;
    if (revision > this.lastRevision) {
      this.lastRevision = revision;
      this.keysAtLastRevision = new Set();
    }
    this.keysAtLastRevision.add(key);
    const record: WatchEventRecord = {
      seq: this.nextSeq(),
      source: 'etcd',
      type,
      key,
      revision: String(kv.modRevision),
      ...parseRegistryKey(key),
      at: new Date().toISOString(),
      size: kv.value.length,
    };
    const stored: StoredRecord = { record };
    if (type === 'PUT') stored.value = kv.value;
    if (prev?.value?.length) stored.prevValue = prev.value;
    const kind = stored.value ? decodeStoredValue(stored.value).kind : undefined;
    if (kind) record.kind = kind;
    this.ring.push(stored);
    this.pending.push(record);
    this.flushTimer ??= setTimeout(() => this.flush(), BATCH_MS);
  }

  private flush(): void {
    this.flushTimer = undefined;
    if (this.pending.length === 0 || this.disposed) return;
    const batch = this.pending;
    this.pending = [];
    this.opts.events.emit('watchEvents', batch);
  }

  recent(req: { limit: number }): WatchEventRecord[] {
    return this.ring.newest(req.limit).map((s) => s.record);
  }

  async detail(req: { seq: number }): Promise<WatchEventDetail | null> {
    const stored = this.ring.find(req.seq);
    if (!stored) return null;
    const { record } = stored;
    let value = stored.value;
    let prev = stored.prevValue;
    const rev = BigInt(record.revision);
    if (record.type === 'PUT' && !value) value = await this.valueAt(record.key, rev);
    if (!prev && rev > 1n) prev = await this.valueAt(record.key, rev - 1n);
    const cur = value ? decodeStoredValue(value) : undefined;
    const before = prev ? decodeStoredValue(prev) : undefined;
    return {
      seq: record.seq,
      yaml: cur?.yaml ?? '',
      previousYaml: before?.yaml ?? '',
      encoding: cur?.encoding ?? before?.encoding ?? 'none',
    };
  }

  private async valueAt(key: string, revision: bigint): Promise<Buffer | undefined> {
    try {
      const res = await this.client.range({ key, revision });
      return res.kvs[0]?.value;
    } catch {
      return undefined; // compacted or unreachable: the detail pane shows what it has
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.watcher?.cancel();
    this.client.close();
  }
}

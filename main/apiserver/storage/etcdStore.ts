// The etcd store (k8s.io/apiserver pkg/storage/etcd3/store.go): kube objects
// in etcd with optimistic concurrency. resourceVersion is the key's
// mod_revision; every write is a Txn comparing mod_revision with what was
// read, so two writers can never both win:
//   create           Txn(ModRevision(key)=0).Then(Put)             else KeyExists
//   guaranteedUpdate Txn(ModRevision(key)=seen).Then(Put).Else(Get) retried with the Else value
//   delete           Txn(ModRevision(key)=seen).Then(Delete).Else(Get)
// An update that leaves the encoded bytes unchanged writes nothing and keeps
// the resourceVersion. An update or delete may start from the watch cache's
// copy and read etcd only when that copy may be stale. RV rules for get: ""
// = newest, "N" = not older than N (TooLarge otherwise). Lists straight from
// etcd live in etcdList.ts, watches straight from etcd in storeWatch.ts.
//
// Encryption at rest: an optional ValueTransformer sits between the codec and
// etcd (kube's value.Transformer), given the full etcd key. A value it reads
// with anything but the current write key is stale, and an update then
// writes even when the encoded object is unchanged (so `kubectl replace`
// re-encrypts). A value it cannot read is kube's error: a get answers 500
// with the transformer's message, a list `unable to transform key ...`
// (UnreadableValueError). The watch cache's full list fails the same way, and
// the cache stays not ready and retries, as kube's cacher does (watchCache.ts);
// a change event carrying such a value is reported to the raw watch's
// onUnreadable, or, for a direct etcd watch, skipped with a log line.

import type { KObject } from '../../kube/object';
import { prefixEnd, type EtcdClient, type KeyValue } from '../../client/etcd/etcdClient';
import { EtcdWatch } from '../../client/etcd/etcdWatch';
import {
  checkPreconditions,
  keyExists,
  keyNotFound,
  parseResourceVersion,
  tooLargeResourceVersion,
} from './errors';
import { LeaseManager } from './leases';
import type { ValueTransformer } from '../storage/valueTransformer';
import { StorageError, type Codec, type CreateOptions, type GetOptions, type ListOptions, type ListResult, type Preconditions, type Storage, type UpdateFunc, type WatchOptions, type WatchSink, type Watcher } from './interface';
import { jsonCopy } from '../patch/jsonValue';
import { startStoreWatch } from './storeWatch';
import { UnreadableValueError, type RawWatchHandlers } from './rawWatch';
import { WriteHandoff } from './writeHandoff';
import { listFromEtcd } from './etcdList';
import type { ObjectEvent } from './watchEvents';

export interface EtcdStoreOptions {
  client: EtcdClient;
  codec: Codec;
  /** Prepended to every key (kube's storage pathPrefix); default ''. */
  pathPrefix?: string;
  /** Encryption at rest; may also be set later (before the first read) through `transformer`. */
  transformer?: ValueTransformer;
  /** Where skipped undecryptable values are reported; default stderr. */
  log?: (line: string) => void;
}

/** Bound on lost-race retries of one update/delete (kube loops without bound). */
const MAX_WRITE_TRIES = 1000;

/** What an update or delete starts from: the stored bytes at revision rev, and whether they are known to be etcd's current value (else they came from a cache). */
interface WriteBase {
  /** The cached object (when not current). */
  obj: KObject | undefined;
  data: Uint8Array;
  stale: boolean;
  rev: bigint;
  current: boolean;
}

export class EtcdStore implements Storage {
  readonly client: EtcdClient;
  readonly codec: Codec;
  readonly pathPrefix: string;
  transformer: ValueTransformer | undefined;
  private readonly log: (line: string) => void;
  private readonly leases: LeaseManager;
  private readonly watchers = new Set<Watcher>();
  /** Each write of this store decoded once for itself and its watch event (writeHandoff.ts). */
  private readonly handoff = new WriteHandoff();

  constructor(opts: EtcdStoreOptions) {
    this.client = opts.client;
    this.codec = opts.codec;
    this.pathPrefix = opts.pathPrefix ?? '';
    this.transformer = opts.transformer;
    this.log = opts.log ?? ((l) => process.stderr.write(`${l}\n`));
    this.leases = new LeaseManager(opts.client);
  }

  /** The object stored in kv, resourceVersion = its mod_revision (throws the transformer's error when unreadable). */
  decode(kv: KeyValue, rv = kv.modRevision): KObject {
    return this.decodeBytes(this.plain(kv).data, rv);
  }

  /** kv's value as the codec wrote it, and whether it should be rewritten with the current key. */
  private plain(kv: KeyValue): { data: Uint8Array; stale: boolean } {
    if (!this.transformer) return { data: kv.value, stale: false };
    return this.transformer.fromStorage(kv.value, kv.key.toString('utf8'));
  }

  private toStorage(data: Uint8Array, fullKey: string): Uint8Array {
    return this.transformer ? this.transformer.toStorage(data, fullKey) : data;
  }

  /** decode, or UnreadableValueError when the value cannot be read. */
  decodeOrThrow(kv: KeyValue, rv = kv.modRevision): KObject {
    try {
      return this.decode(kv, rv);
    } catch (err) {
      throw new UnreadableValueError(kv.key.toString('utf8'), err as Error);
    }
  }

  /** decode, or the error (logged) when the value cannot be read. */
  private decodeOrError(kv: KeyValue, rv = kv.modRevision): KObject | UnreadableValueError {
    try {
      return this.decodeOrThrow(kv, rv);
    } catch (err) {
      this.log(`apiserver: ${(err as Error).message}`);
      return err as UnreadableValueError;
    }
  }

  private encode(obj: KObject): Uint8Array {
    const copy = { ...obj, metadata: { ...obj.metadata } };
    delete copy.metadata.resourceVersion;
    delete copy.metadata.selfLink;
    return this.codec.encode(copy);
  }

  async create(key: string, obj: KObject, opts?: CreateOptions): Promise<KObject> {
    if (obj.metadata?.resourceVersion) throw new Error('resourceVersion should not be set on objects to be created');
    const data = this.encode(obj);
    const lease = opts?.ttlSeconds ? await this.leases.leaseFor(opts.ttlSeconds) : undefined;
    const k = this.pathPrefix + key;
    const res = await this.txnWriting(k, [{ key: k, modRevision: 0n }], [{ put: { key: k, value: this.toStorage(data, k), lease } }], []);
    if (!res.succeeded) throw keyExists(key);
    return this.storedObject(k, data, res.revision);
  }

  /** A Txn writing k, with k marked as being written by this store until it is answered. */
  private txnWriting(k: string, ...args: Parameters<EtcdClient['txn']>): ReturnType<EtcdClient['txn']> {
    return this.handoff.writing(k, () => this.client.txn(...args));
  }

  /** The object a write of this store stored at rev. */
  private storedObject(k: string, data: Uint8Array, rev: bigint): KObject {
    return this.handoff.written(k, rev, () => this.decodeBytes(data, rev));
  }

  async get(key: string, opts?: GetOptions): Promise<KObject> {
    const min = parseResourceVersion(opts?.resourceVersion);
    const res = await this.client.range({ key: this.pathPrefix + key });
    if (min > res.revision) throw tooLargeResourceVersion(key, min, res.revision);
    if (res.kvs.length === 0) throw keyNotFound(key);
    return this.decode(res.kvs[0]);
  }

  getList(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    return listFromEtcd(this, prefix, opts);
  }

  /**
   * Every object under prefix with its key, read in pages at one revision
   * (what the watch cache starts from; pages keep each response small).
   */
  async listWithKeys(prefix: string, pageSize = 1000): Promise<{ entries: { key: string; obj: KObject }[]; revision: bigint }> {
    const k = this.pathPrefix + prefix;
    const end = prefixEnd(k);
    const entries: { key: string; obj: KObject }[] = [];
    let start: Buffer = Buffer.from(k);
    let revision = 0n;
    for (;;) {
      const res = await this.client.range({ key: start, rangeEnd: end, limit: pageSize, revision });
      if (revision === 0n) revision = res.revision;
      for (const kv of res.kvs) {
        const obj = this.decodeOrError(kv);
        if (obj instanceof UnreadableValueError) throw obj;
        entries.push({ key: kv.key.toString('utf8').slice(this.pathPrefix.length), obj });
      }
      if (!res.more || res.kvs.length === 0) break;
      start = Buffer.concat([res.kvs[res.kvs.length - 1].key, Buffer.from([0])]);
    }
    return { entries, revision };
  }

  /**
   * Read-modify-write until the compare on mod_revision wins. `cached` (the
   * watch cache's copy, as kube's cacher passes it) saves the first read:
   * the update is tried on it, and only when that copy may be stale — the
   * compare loses, a precondition or tryUpdate fails, or nothing changed —
   * is etcd read (store.go GuaranteedUpdate with cachedExistingObject).
   */
  async guaranteedUpdate(key: string, preconditions: Preconditions | undefined, tryUpdate: UpdateFunc, opts?: CreateOptions, cached?: KObject): Promise<KObject> {
    const k = this.pathPrefix + key;
    let state = cached ? this.stateFromObject(cached) : await this.currentState(k, key);
    for (let i = 0; i < MAX_WRITE_TRIES; i++) {
      const currentObj = this.objectOf(state);
      try {
        checkPreconditions(key, preconditions, currentObj);
      } catch (err) {
        if (state.current) throw err;
        state = await this.currentState(k, key);
        continue;
      }
      let updated: KObject;
      try {
        updated = await tryUpdate(currentObj);
      } catch (err) {
        if (state.current) throw err;
        // The cached copy may be what made tryUpdate fail: try the live object, unless it is the same.
        const cachedRev = state.rev;
        state = await this.currentState(k, key);
        if (state.rev === cachedRev) throw err;
        continue;
      }
      const data = this.encode(updated);
      // Same bytes: nothing to write, the resourceVersion stays — unless the
      // stored value is stale (an old encryption key), which this write renews.
      // A cached copy must be confirmed against etcd first.
      if (!state.stale && sameBytes(data, state.data)) {
        if (!state.current) {
          state = await this.currentState(k, key);
          if (!sameBytes(data, state.data)) continue;
        }
        if (!state.stale) return this.decodeBytes(state.data, state.rev);
      }
      const lease = opts?.ttlSeconds ? await this.leases.leaseFor(opts.ttlSeconds) : undefined;
      const res = await this.txnWriting(k, [{ key: k, modRevision: state.rev }], [{ put: { key: k, value: this.toStorage(data, k), lease } }], [{ range: { key: k } }]);
      if (res.succeeded) return this.storedObject(k, data, res.revision);
      const fresh = res.responses[0]?.kvs?.[0];
      if (!fresh) throw keyNotFound(key);
      state = this.stateFromKv(fresh);
    }
    throw new StorageError('ResourceVersionConflicts', key, `too many conflicting updates of ${key}`);
  }

  /** Delete when the compare on mod_revision wins; `cached` saves the first read, as in guaranteedUpdate (store.go conditionalDelete). */
  async delete(key: string, preconditions?: Preconditions, validate?: (current: KObject) => void | Promise<void>, cached?: KObject): Promise<KObject> {
    const k = this.pathPrefix + key;
    let state = cached ? this.stateFromObject(cached) : await this.currentState(k, key);
    for (let i = 0; i < MAX_WRITE_TRIES; i++) {
      const currentObj = this.objectOf(state);
      try {
        checkPreconditions(key, preconditions, currentObj);
        if (validate) await validate(this.objectOf(state));
      } catch (err) {
        if (state.current) throw err;
        state = await this.currentState(k, key);
        continue;
      }
      const res = await this.client.txn([{ key: k, modRevision: state.rev }], [{ deleteRange: { key: k } }], [{ range: { key: k } }]);
      if (res.succeeded) return currentObj;
      const fresh = res.responses[0]?.kvs?.[0];
      if (!fresh) throw keyNotFound(key);
      state = this.stateFromKv(fresh);
    }
    throw new StorageError('ResourceVersionConflicts', key, `too many conflicting deletes of ${key}`);
  }

  /** A fresh copy of the object the write starts from (callers may change it). */
  private objectOf(state: WriteBase): KObject {
    return state.obj ? jsonCopy(state.obj) : this.decodeBytes(state.data, state.rev);
  }

  /** The key's value in etcd now (a linearizable read). */
  private async currentState(k: string, key: string): Promise<WriteBase> {
    return this.stateFromKv(await this.readRaw(k, key));
  }

  private stateFromKv(kv: KeyValue): WriteBase {
    const { data, stale } = this.plain(kv);
    return { obj: undefined, data, stale, rev: kv.modRevision, current: true };
  }

  /** A cached object as a starting point: its bytes are its encoding now (kube's getStateFromObject). */
  private stateFromObject(obj: KObject): WriteBase {
    return { obj, data: this.encode(obj), stale: false, rev: parseResourceVersion(obj.metadata?.resourceVersion), current: false };
  }

  watch(prefix: string, opts: WatchOptions, sink: WatchSink): Watcher {
    const w = startStoreWatch(this, prefix, opts, sink);
    this.watchers.add(w);
    void w.done.then(() => this.watchers.delete(w));
    return w;
  }

  /**
   * A watch of raw changes under prefix (or of one key when prefix does not
   * end in '/'), from revision `from` on, with prev_kv and progress notify:
   * what the watch cache and storeWatch build on.
   */
  watchRaw(prefix: string, from: bigint, h: RawWatchHandlers): EtcdWatch {
    const k = this.pathPrefix + prefix;
    return new EtcdWatch(
      this.client,
      { key: k, rangeEnd: prefix.endsWith('/') ? prefixEnd(k) : undefined, startRevision: from, prevKv: true, progressNotify: true },
      {
        onEvents: (events) => h.onEvents(events.map((e) => this.objectEvent(e, h)).filter((e): e is ObjectEvent => e !== undefined)),
        onProgress: (rev) => h.onProgress(rev),
        onCompacted: (rev) => h.onCompacted(rev),
        onError: (err) => h.onError(err),
      },
    );
  }

  /** The decoded change, or undefined for a put whose value cannot be read (logged, and reported to h). */
  private objectEvent(e: { type: 'PUT' | 'DELETE'; kv: KeyValue; prevKv?: KeyValue }, h: RawWatchHandlers): ObjectEvent | undefined {
    const fullKey = e.kv.key.toString('utf8');
    const key = fullKey.slice(this.pathPrefix.length);
    const rev = e.kv.modRevision;
    const obj = e.type === 'PUT' ? this.handoff.event(fullKey, rev, () => this.decodeOrError(e.kv)) : undefined;
    if (obj instanceof UnreadableValueError) {
      h.onUnreadable?.(obj);
      return undefined;
    }
    // An unreadable previous value only costs the event its prevObj.
    const decodePrev = (kv: KeyValue) => {
      const prev = this.decodeOrError(kv, rev);
      return prev instanceof UnreadableValueError ? undefined : prev;
    };
    const prevKv = e.prevKv;
    if (!prevKv) return { type: e.type, key, rev, obj };
    if (h.holdsPrevious) return { type: e.type, key, rev, obj, decodePrev: () => decodePrev(prevKv) };
    return { type: e.type, key, rev, obj, prevObj: decodePrev(prevKv) };
  }

  async currentRevision(): Promise<bigint> {
    // Any linearizable range carries the current revision in its header.
    return (await this.client.range({ key: 'compact_rev_key', keysOnly: true })).revision;
  }

  async close(): Promise<void> {
    for (const w of [...this.watchers]) w.stop();
  }

  private async readRaw(k: string, key: string): Promise<KeyValue> {
    const res = await this.client.range({ key: k });
    if (res.kvs.length === 0) throw keyNotFound(key);
    return res.kvs[0];
  }

  private decodeBytes(data: Uint8Array, rev: bigint): KObject {
    const obj = this.codec.decode(data);
    obj.metadata ??= {};
    obj.metadata.resourceVersion = rev.toString();
    return obj;
  }
}

/** Byte equality without copying either side. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

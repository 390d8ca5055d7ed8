// The one storage interface of the API server (k8s.io/apiserver
// pkg/storage.Interface, reduced to what we serve). Two implementations sit
// behind it — the etcd store (etcdStore.ts) and the watch cache
// (watchCache.ts, which writes through to the etcd store) — and one
// conformance suite runs against both (test/unit/apiserver/storage/).
//
// Keys are full etcd keys ("/registry/deployments/default/nginx"); objects
// are KObjects whose metadata.resourceVersion is the etcd mod_revision as a
// decimal string. Errors are StorageError; the REST layer maps them to kube's
// Status bodies with the resource's name (it knows the resource, we do not).

import type { KObject } from '../../kube/object';

export type { Codec } from '../../kube/codec';

export type StorageErrorCode =
  | 'KeyNotFound'
  | 'KeyExists'
  | 'ResourceVersionConflicts'
  | 'InvalidObj'
  | 'InvalidError'
  | 'ResourceVersionTooLarge'
  | 'Expired'
  | 'Unreachable'
  | 'Initializing';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    readonly key: string,
    message: string,
    /** For Expired/TooLarge: the revisions involved. */
    readonly revisions?: { requested?: bigint; current?: bigint; oldest?: bigint },
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/** Which objects a list or watch selects (label and field selectors compiled by the REST layer). */
export type Predicate = (obj: KObject) => boolean;

export interface GetOptions {
  /** '' = most recent from etcd; '0' = anything (cache); 'N' = not older than N. */
  resourceVersion?: string;
  /**
   * The caller only reads the object (as ListOptions.shareItems): a cache
   * may return its own stored object instead of a deep copy. Admission's
   * per-request lookups (the namespace, the service account) read this way.
   */
  shareObject?: boolean;
}

export interface ListOptions {
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  limit?: number;
  continue?: string;
  predicate?: Predicate;
  /** List only the object with this exact key (fieldSelector metadata.name=x). */
  exactKey?: string;
  /**
   * The caller only reads the items (never mutates them): a cache may return
   * its own stored objects instead of a deep copy of each, which on large
   * lists costs more than everything else together.
   */
  shareItems?: boolean;
}

export interface ListResult {
  items: KObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  /** For ERROR: a metav1.Status object. For BOOKMARK: only kind/apiVersion/metadata.resourceVersion (+annotations). */
  object: KObject | Record<string, unknown>;
}

export interface WatchOptions {
  /** '' or undefined = initial state then changes; '0' = same, from cache; 'N' = changes after N only. */
  resourceVersion?: string;
  sendInitialEvents?: boolean;
  allowWatchBookmarks?: boolean;
  predicate?: Predicate;
  /** The kind/apiVersion bookmarks carry, e.g. { apiVersion: 'v1', kind: 'Pod' }. */
  bookmarkType?: { apiVersion: string; kind: string };
  /** The watch's timeout as the REST layer enforces it; the watch cache sends a last bookmark 2 s before. */
  timeoutSeconds?: number;
  /**
   * Events carry the watch cache's own objects instead of copies (as
   * ListOptions.shareItems does for lists): the sink promises never to change
   * them. Watch fan-out then copies nothing per watcher.
   */
  shareObjects?: boolean;
}

/** A running watch. Events go to the sink in order; an ERROR event is the last one. */
export interface Watcher {
  stop(): void;
  /** The sink can take events again after it returned false (its response drained): deliver now. */
  resume(): void;
  /** Resolves once the watch has ended (stopped, errored or the storage closed). */
  readonly done: Promise<void>;
  /** Set when the storage closed the watch because its sink stayed backed up; `queued`: the events it still owed. */
  readonly unresponsive?: { queued: number };
}

/**
 * Receives events in order. Returning false means "backed up, not taken"
 * (e.g. the response needs a drain): the storage keeps the event and offers
 * it again on Watcher.resume() or shortly; a watcher that stays backed up
 * past its buffer is closed.
 */
export type WatchSink = (event: WatchEvent) => void | boolean;

export type UpdateFunc = (current: KObject) => KObject | Promise<KObject>;

export interface CreateOptions {
  /** etcd lease TTL for the key (events are written with --event-ttl). */
  ttlSeconds?: number;
}

export interface Storage {
  /** Txn(ModRevision(key)=0).Then(Put): KeyExists if present. Returns the object with its new resourceVersion. */
  create(key: string, obj: KObject, opts?: CreateOptions): Promise<KObject>;
  get(key: string, opts?: GetOptions): Promise<KObject>;
  /** prefix ends with '/'. */
  getList(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /**
   * Read-modify-write with Txn(ModRevision(key)=seen), retried with the fresh
   * value on a lost race. Preconditions are checked against the current value
   * on every try (ResourceVersionConflicts / InvalidObj for uid). When the
   * update leaves the encoded bytes unchanged nothing is written and the
   * resourceVersion stays.
   */
  guaranteedUpdate(key: string, preconditions: Preconditions | undefined, tryUpdate: UpdateFunc, opts?: CreateOptions): Promise<KObject>;
  /** Txn(ModRevision(key)=seen).Then(Delete). Returns the last stored object. */
  delete(key: string, preconditions?: Preconditions, validate?: (current: KObject) => void | Promise<void>): Promise<KObject>;
  watch(prefix: string, opts: WatchOptions, sink: WatchSink): Watcher;
  /** The current etcd revision (a cheap read). */
  currentRevision(): Promise<bigint>;
  close(): Promise<void>;
}

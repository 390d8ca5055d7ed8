// The raw change feed under a key prefix that the etcd store offers and the
// watch cache and the store's own watch build on.

import type { EtcdWatch } from '../../client/etcd/etcdWatch';
import type { ListOptions, ListResult } from './interface';
import type { ObjectEvent } from './watchEvents';

export interface RawWatchHandlers {
  onEvents(events: ObjectEvent[]): void;
  onProgress(revision: bigint): void;
  onCompacted(compactRevision: bigint): void;
  onError(err: Error): void;
  /** A put whose value cannot be read (already logged); without this handler it is skipped. */
  onUnreadable?(err: UnreadableValueError): void;
  /**
   * The handler holds every key's previous object itself (the watch cache):
   * events then carry `decodePrev` instead of a decoded prevObj, so an
   * update costs one decode, not two (kube's watcher decodes prev_kv only
   * for deletes and filtered watches for the same reason).
   */
  holdsPrevious?: boolean;
}

/** kube's `unable to transform key "<key>": <cause>` (an internal error, 500). */
export class UnreadableValueError extends Error {
  constructor(readonly key: string, cause: Error) {
    super(`unable to transform key ${JSON.stringify(key)}: ${cause.message}`);
  }
}

/** A store that serves lists and raw watches (the etcd store). */
export interface RawWatchSource {
  getList(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** Raw changes under prefix (or of one key when prefix does not end in '/'), from revision `from` on. */
  watchRaw(prefix: string, from: bigint, h: RawWatchHandlers): EtcdWatch;
}

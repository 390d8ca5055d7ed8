// A LIST straight from etcd (store.go GetList): one range, or pages of it,
// at one revision. RV rules: "" = newest, "N" = not older than N
// (TooLarge otherwise); Exact, or the legacy limit + N, reads at revision N;
// a continue token resumes after its key at its revision (Expired once etcd
// has compacted past it). With a selector, pages are read wider until the
// requested number of matches is found, up to kube's maxLimit per read.

import type { KObject } from '../../kube/object';
import { badRequest } from '../api/status';
import { EtcdError, prefixEnd, type EtcdClient, type KeyValue } from '../../client/etcd/etcdClient';
import { decodeContinue, encodeContinue } from './continueToken';
import { CONTINUE_EXPIRED_MESSAGE, LIST_EXPIRED_MESSAGE, parseResourceVersion, tooLargeResourceVersion } from './errors';
import { StorageError, type ListOptions, type ListResult } from './interface';

/** kube's maxLimit: how far a filtered page may widen its etcd reads. */
const MAX_PAGE_READ = 10_000;

/** What a list needs from the store. */
export interface ListSource {
  readonly client: EtcdClient;
  readonly pathPrefix: string;
  /** The stored object, or the store's error when the value cannot be read. */
  decodeOrThrow(kv: KeyValue): KObject;
  currentRevision(): Promise<bigint>;
}

export async function listFromEtcd(store: ListSource, prefix: string, opts: ListOptions = {}): Promise<ListResult> {
  const keyPrefix = store.pathPrefix + (prefix.endsWith('/') ? prefix : `${prefix}/`);
  const fromRV = parseResourceVersion(opts.resourceVersion);
  let start: string | Buffer = keyPrefix;
  let end: Buffer | undefined = prefixEnd(keyPrefix);
  if (opts.exactKey !== undefined) {
    start = store.pathPrefix + opts.exactKey;
    end = undefined;
  }
  const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
  let withRev = 0n;
  const paging = limit > 0;
  if (opts.continue) {
    if (opts.resourceVersion && opts.resourceVersion !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    let c: { fromKey: string; rv: bigint };
    try {
      c = decodeContinue(opts.continue, keyPrefix);
    } catch (e) {
      throw badRequest(`invalid continue token: ${(e as Error).message}`);
    }
    start = c.fromKey;
    // rv -1 (kube's token after a compacted continue) continues at the newest revision.
    withRev = c.rv > 0n ? c.rv : 0n;
  } else if (opts.resourceVersionMatch === 'Exact' || (opts.resourceVersionMatch === undefined && paging && fromRV > 0n)) {
    withRev = fromRV;
  }
  const items: KObject[] = [];
  let returnedRV = withRev;
  let readLimit = limit;
  let lastKey: Buffer | undefined;
  let hasMore = false;
  let firstCount = 0n;
  let headerRev = 0n;
  for (let round = 0; ; round++) {
    let res;
    try {
      res = await store.client.range({ key: start, rangeEnd: end, limit: readLimit, revision: withRev });
    } catch (e) {
      if (e instanceof EtcdError && e.compacted) throw new StorageError('Expired', prefix, opts.continue ? CONTINUE_EXPIRED_MESSAGE : LIST_EXPIRED_MESSAGE);
      if (e instanceof EtcdError && e.futureRevision) {
        const current = await store.currentRevision();
        throw tooLargeResourceVersion(prefix, withRev, current);
      }
      throw e;
    }
    if (round === 0) firstCount = res.count;
    headerRev = res.revision;
    hasMore = res.more;
    for (const kv of res.kvs) {
      if (paging && items.length >= limit) {
        hasMore = true;
        break;
      }
      lastKey = kv.key;
      const obj = store.decodeOrThrow(kv);
      if (!opts.predicate || opts.predicate(obj)) items.push(obj);
    }
    if (returnedRV === 0n) returnedRV = res.revision;
    if (!hasMore || !paging || items.length >= limit || res.kvs.length === 0) break;
    // Selectors dropped objects: read wider pages until this one is full.
    readLimit = Math.min(readLimit * 2, MAX_PAGE_READ);
    start = Buffer.concat([lastKey!, Buffer.from([0])]);
    if (withRev === 0n) withRev = returnedRV;
  }
  if (!opts.continue && fromRV > headerRev) throw tooLargeResourceVersion(prefix, fromRV, headerRev);
  const out: ListResult = { items, resourceVersion: returnedRV.toString() };
  if (hasMore && lastKey) {
    out.continue = encodeContinue(`${lastKey.toString('utf8')}\u0000`, keyPrefix, returnedRV);
    // Only without selectors is etcd's count the number of objects left.
    if (!opts.predicate) out.remainingItemCount = Number(firstCount) - limit;
  }
  return out;
}

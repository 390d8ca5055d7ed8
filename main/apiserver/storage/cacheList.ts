// A list served from the watch cache's memory at the cache's revision: the
// objects under a prefix (or one exact key) that pass the predicate, at most
// `limit` of them with kube's continue token and remainingItemCount (counted
// only without a predicate, where it is exact).

import type BTree from 'sorted-btree';
import type { KObject } from '../../kube/object';
import { encodeContinue } from './continueToken';
import type { ListOptions, ListResult } from './interface';
import { jsonCopy } from '../patch/jsonValue';

export function listFromMemory(objects: BTree<string, KObject>, rv: bigint, prefix: string, opts: ListOptions, limit: number): ListResult {
  const keyPrefix = prefix.endsWith('/') ? prefix : `${prefix}/`;
  const items: KObject[] = [];
  let lastKey: string | undefined;
  let more = 0;
  const consider = (key: string, obj: KObject) => {
    if (opts.predicate && !opts.predicate(obj)) return;
    if (limit > 0 && items.length >= limit) {
      more++;
      return;
    }
    // Stored objects are never mutated in place (apply() replaces them), so sharing is safe for readers.
    items.push(opts.shareItems ? obj : jsonCopy(obj));
    lastKey = key;
  };
  if (opts.exactKey !== undefined) {
    const obj = objects.get(opts.exactKey);
    if (obj) consider(opts.exactKey, obj);
  } else {
    for (const [key, obj] of objects.entries(keyPrefix)) {
      if (!key.startsWith(keyPrefix)) break;
      consider(key, obj);
      // With a predicate the count of what is left is not reported: stop early.
      if (more > 0 && opts.predicate) break;
    }
  }
  const out: ListResult = { items, resourceVersion: rv.toString() };
  if (more > 0 && lastKey !== undefined) {
    out.continue = encodeContinue(`${lastKey}\u0000`, keyPrefix, rv);
    if (!opts.predicate) out.remainingItemCount = more;
  }
  return out;
}

// Request-level semantics of Range, Put and DeleteRange on top of a write txn
// (etcd etcdserver/apply.go applierV3backend.Range/Put/DeleteRange): sort and
// min/max filters, limit and `more`, keysOnly/countOnly, prevKv, ignoreValue
// and ignoreLease. The same functions serve standalone requests and the ops
// inside a Txn.

import { Errors } from '../errors';
import { compareBytes, toKeyString, toRangeEnd } from './keyBytes';
import { EMPTY, toKeyValue } from './storeState';
import {
  SortOrder,
  SortTarget,
  type DeleteRangeRequest,
  type DeleteRangeResult,
  type KeyValue,
  type PutRequest,
  type PutResult,
  type RangeRequest,
  type RangeResult,
} from './types';
import type { WriteTxn } from './writeTxn';

export function applyRange(txn: WriteTxn, r: RangeRequest): RangeResult {
  // Sorting or filtering needs every key first; otherwise fetch one extra to learn `more`.
  const fetchAll =
    r.sortOrder !== SortOrder.None ||
    r.minModRevision !== 0 ||
    r.maxModRevision !== 0 ||
    r.minCreateRevision !== 0 ||
    r.maxCreateRevision !== 0;
  const limit = fetchAll || r.limit <= 0 ? 0 : r.limit + 1;
  const rr = txn.range(toKeyString(r.key), toRangeEnd(r.rangeEnd), {
    limit,
    rev: r.revision,
    countOnly: r.countOnly,
  });
  let kvs = rr.records.map(toKeyValue);
  if (r.maxModRevision !== 0) kvs = kvs.filter((kv) => kv.modRevision <= r.maxModRevision);
  if (r.minModRevision !== 0) kvs = kvs.filter((kv) => kv.modRevision >= r.minModRevision);
  if (r.maxCreateRevision !== 0) kvs = kvs.filter((kv) => kv.createRevision <= r.maxCreateRevision);
  if (r.minCreateRevision !== 0) kvs = kvs.filter((kv) => kv.createRevision >= r.minCreateRevision);

  // Results come key-ascending; a non-key target with order NONE means ASCEND.
  let order = r.sortOrder;
  if (r.sortTarget !== SortTarget.Key && order === SortOrder.None) order = SortOrder.Ascend;
  if (order !== SortOrder.None) sortKeyValues(kvs, r.sortTarget, order);

  let more = false;
  if (r.limit > 0 && kvs.length > r.limit) {
    kvs = kvs.slice(0, r.limit);
    more = true;
  }
  if (r.keysOnly) kvs = kvs.map((kv) => ({ ...kv, value: EMPTY }));
  return { kvs, more, count: rr.count, revision: rr.rev };
}

/**
 * Stable sort (ties keep key order), so every member returns the same order;
 * etcd uses Go's unstable sort.Sort, whose tie order is unspecified.
 */
function sortKeyValues(kvs: KeyValue[], target: SortTarget, order: SortOrder): void {
  const cmp = comparatorFor(target);
  const sign = order === SortOrder.Descend ? -1 : 1;
  kvs.sort((a, b) => sign * cmp(a, b));
}

function comparatorFor(target: SortTarget): (a: KeyValue, b: KeyValue) => number {
  switch (target) {
    case SortTarget.Version:
      return (a, b) => a.version - b.version;
    case SortTarget.Create:
      return (a, b) => a.createRevision - b.createRevision;
    case SortTarget.Mod:
      return (a, b) => a.modRevision - b.modRevision;
    case SortTarget.Value:
      return (a, b) => compareBytes(a.value, b.value);
    default:
      return (a, b) => compareBytes(a.key, b.key);
  }
}

/**
 * Put inside `txn`. Lease existence is checked by the caller (standalone put
 * or the txn's pre-checks), as etcd's applier does.
 */
export function applyPut(txn: WriteTxn, p: PutRequest): PutResult {
  let value = p.value;
  let lease = p.lease;
  let prev: KeyValue | undefined;
  if (p.ignoreValue || p.ignoreLease || p.prevKv) {
    const rr = txn.range(toKeyString(p.key), undefined, { limit: 0, rev: 0, countOnly: false });
    const found = rr.records[0];
    if (found !== undefined) prev = toKeyValue(found);
  }
  if (p.ignoreValue || p.ignoreLease) {
    // ignore_{value,lease} needs the current key-value pair
    if (prev === undefined) throw Errors.keyNotFound();
    if (p.ignoreValue) value = prev.value;
    if (p.ignoreLease) lease = prev.lease;
  }
  const revision = txn.put(p.key, value, lease);
  const result: PutResult = { revision };
  if (p.prevKv && prev !== undefined) result.prevKv = prev;
  return result;
}

export function applyDeleteRange(txn: WriteTxn, d: DeleteRangeRequest): DeleteRangeResult {
  const key = toKeyString(d.key);
  const end = toRangeEnd(d.rangeEnd);
  let prevKvs: KeyValue[] = [];
  if (d.prevKv) prevKvs = txn.range(key, end, { limit: 0, rev: 0, countOnly: false }).records.map(toKeyValue);
  const { deleted, revision } = txn.deleteRange(key, end);
  return { deleted, prevKvs, revision };
}

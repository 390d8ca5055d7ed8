// The checks etcd's gRPC layer makes before a request is proposed
// (etcdserver/api/v3rpc/key.go): empty keys, ignore_value/ignore_lease
// misuse, txn size, and checkIntervals — within one branch no key may be put
// twice or put inside a range the same branch deletes (nested txns included;
// a key put in both then and else of one nested txn is fine: only one runs).

import { Errors } from '../errors';
import { toKeyString } from './keyBytes';
import type { DeleteRangeRequest, PutRequest, RangeRequest, RequestOp, TxnRequest } from './types';

export function checkRangeRequest(r: RangeRequest): void {
  if (r.key.length === 0) throw Errors.emptyKey();
}

export function checkPutRequest(r: PutRequest): void {
  if (r.key.length === 0) throw Errors.emptyKey();
  if (r.ignoreValue && r.value.length !== 0) throw Errors.valueProvided();
  if (r.ignoreLease && r.lease !== 0n) throw Errors.leaseProvided();
}

export function checkDeleteRequest(r: DeleteRangeRequest): void {
  if (r.key.length === 0) throw Errors.emptyKey();
}

/** Everything the Txn handler checks: sizes and ops first, then put/delete overlaps per branch. */
export function checkTxnRequest(r: TxnRequest, maxTxnOps: number): void {
  checkTxnOps(r, maxTxnOps);
  // overlaps are checked after the size check to avoid quadratic blowup
  checkIntervals(r.success);
  checkIntervals(r.failure);
}

function checkTxnOps(r: TxnRequest, maxTxnOps: number): void {
  const opc = Math.max(r.compare.length, r.success.length, r.failure.length);
  if (opc > maxTxnOps) throw Errors.tooManyOps();
  for (const c of r.compare) if (c.key.length === 0) throw Errors.emptyKey();
  // etcd hands nested txns the remaining budget, maxTxnOps - opc
  for (const op of r.success) checkRequestOp(op, maxTxnOps - opc);
  for (const op of r.failure) checkRequestOp(op, maxTxnOps - opc);
}

function checkRequestOp(op: RequestOp, maxTxnOps: number): void {
  if ('range' in op && op.range) return checkRangeRequest(op.range);
  if ('put' in op && op.put) return checkPutRequest(op.put);
  if ('deleteRange' in op && op.deleteRange) return checkDeleteRequest(op.deleteRange);
  if ('txn' in op && op.txn) return checkTxnOps(op.txn, maxTxnOps);
  throw Errors.keyNotFound(); // empty op
}

/**
 * A half-open key interval [begin, end) over binary strings, compared as
 * etcd's adt.StringAffineComparable: "" as an end means +infinity. A point is
 * [k, k+"\0"). A delete's range_end "\0" is NOT special here (as in etcd
 * 3.4): [k, "\0") is empty, so a put under a delete-from-key is not caught.
 */
interface Interval {
  begin: string;
  end: string;
}

function point(k: string): Interval {
  return { begin: k, end: k + '\0' };
}

/** a < b with "" as +infinity (only ends can be ""). */
function lessEnd(a: string, b: string): boolean {
  if (a === '') return false;
  if (b === '') return true;
  return a < b;
}

function intersects(ivs: Interval[], p: Interval): boolean {
  return ivs.some((iv) => lessEnd(iv.begin, p.end) && lessEnd(p.begin, iv.end));
}

function checkIntervals(reqs: RequestOp[]): { puts: Set<string>; dels: Interval[] } {
  const dels: Interval[] = [];
  // this level's deletes first, so lower-level puts are checked against them
  for (const op of reqs) {
    if (!('deleteRange' in op) || !op.deleteRange) continue;
    const d = op.deleteRange;
    const key = toKeyString(d.key);
    dels.push(d.rangeEnd.length !== 0 ? { begin: key, end: toKeyString(d.rangeEnd) } : point(key));
  }

  const puts = new Set<string>();
  for (const op of reqs) {
    if (!('txn' in op) || !op.txn) continue;
    const then = checkIntervals(op.txn.success);
    const otherwise = checkIntervals(op.txn.failure);
    for (const k of then.puts) {
      if (puts.has(k) || intersects(dels, point(k))) throw Errors.duplicateKey();
      puts.add(k);
    }
    for (const k of otherwise.puts) {
      // a key from the same txn's then-branch is fine: only one branch runs
      if (puts.has(k) && !then.puts.has(k)) throw Errors.duplicateKey();
      if (intersects(dels, point(k))) throw Errors.duplicateKey();
      puts.add(k);
    }
    dels.push(...then.dels, ...otherwise.dels);
  }

  for (const op of reqs) {
    if (!('put' in op) || !op.put) continue;
    const k = toKeyString(op.put.key);
    if (puts.has(k) || intersects(dels, point(k))) throw Errors.duplicateKey();
    puts.add(k);
  }
  return { puts, dels };
}

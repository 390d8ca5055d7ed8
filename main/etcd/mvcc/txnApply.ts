// Txn (etcd etcdserver/apply.go applierV3backend.Txn). In etcd's order:
//  1. Every compare, of the outer txn and of each nested txn on the chosen
//     path, is evaluated against the state *before* the txn (compareToPath).
//  2. The chosen path's puts are checked (ignore_value/ignore_lease need an
//     existing key, a lease must exist), then its ranges' revisions.
//  3. The ops run in order in one write txn, each seeing earlier ops' writes,
//     all sharing one new revision; a txn that changed nothing keeps the
//     revision (read-only txns, deletes of nothing).

import { Errors } from '../errors';
import { compareBytes, toKeyString, toRangeEnd } from './keyBytes';
import { applyDeleteRange, applyPut, applyRange } from './applier';
import { toKeyValue, type StoreState } from './storeState';
import {
  CompareResult,
  CompareTarget,
  type Compare,
  type KeyValue,
  type RequestOp,
  type ResponseOp,
  type TxnRequest,
  type TxnResult,
} from './types';
import type { WriteTxn } from './writeTxn';

/** The outcome of a txn's compares, and of each nested txn in its chosen branch, in op order. */
interface TxnPath {
  succeeded: boolean;
  nested: TxnPath[];
}

export function applyTxn(s: StoreState, txn: WriteTxn, req: TxnRequest): TxnResult {
  const path = compareToPath(s, req);
  checkPath(req, path, (op) => checkPut(s, op));
  checkPath(req, path, (op) => checkRange(s, op));
  const result = runPath(txn, req, path);
  return { ...result, revision: txn.changes.length > 0 ? txn.beginRev + 1 : txn.beginRev };
}

function branch(req: TxnRequest, path: TxnPath): RequestOp[] {
  return path.succeeded ? req.success : req.failure;
}

function compareToPath(s: StoreState, req: TxnRequest): TxnPath {
  const succeeded = req.compare.every((c) => applyCompare(s, c));
  const nested: TxnPath[] = [];
  for (const op of succeeded ? req.success : req.failure) {
    if ('txn' in op) nested.push(compareToPath(s, op.txn));
  }
  return { succeeded, nested };
}

/** A compare over a range must hold for every key in it; missing keys compare as a zero KeyValue. */
function applyCompare(s: StoreState, c: Compare): boolean {
  let records;
  try {
    records = s.rangeKeys(toKeyString(c.key), toRangeEnd(c.rangeEnd), s.currentRev, {
      limit: 0,
      rev: 0,
      countOnly: false,
    }).records;
  } catch {
    return false;
  }
  if (records.length === 0) {
    // No way to tell a missing value from an empty one on the wire: fail.
    if (c.target === CompareTarget.Value) return false;
    return compareKeyValue(c, ZERO_KV);
  }
  return records.every((r) => compareKeyValue(c, toKeyValue(r)));
}

const ZERO_KV: KeyValue = {
  key: new Uint8Array(0),
  createRevision: 0,
  modRevision: 0,
  version: 0,
  value: new Uint8Array(0),
  lease: 0n,
};

function compareKeyValue(c: Compare, kv: KeyValue): boolean {
  let result: number;
  switch (c.target) {
    case CompareTarget.Value:
      result = compareBytes(kv.value, c.value);
      break;
    case CompareTarget.Create:
      result = Math.sign(kv.createRevision - c.createRevision);
      break;
    case CompareTarget.Mod:
      result = Math.sign(kv.modRevision - c.modRevision);
      break;
    case CompareTarget.Version:
      result = Math.sign(kv.version - c.version);
      break;
    case CompareTarget.Lease:
      result = kv.lease < c.lease ? -1 : kv.lease > c.lease ? 1 : 0;
      break;
    default:
      return true;
  }
  switch (c.result) {
    case CompareResult.Equal:
      return result === 0;
    case CompareResult.NotEqual:
      return result !== 0;
    case CompareResult.Greater:
      return result > 0;
    case CompareResult.Less:
      return result < 0;
    default:
      return true;
  }
}

function checkPath(req: TxnRequest, path: TxnPath, check: (op: RequestOp) => void): void {
  let n = 0;
  for (const op of branch(req, path)) {
    if ('txn' in op) checkPath(op.txn, path.nested[n++]!, check);
    else check(op);
  }
}

function checkPut(s: StoreState, op: RequestOp): void {
  if (!('put' in op)) return;
  const p = op.put;
  if (p.ignoreValue || p.ignoreLease) {
    const ki = s.tree.get(toKeyString(p.key));
    if (ki === undefined || ki.get(s.currentRev) === undefined) throw Errors.keyNotFound();
  }
  if (p.lease !== 0n && s.leases !== undefined && !s.leases.exists(p.lease)) throw Errors.leaseNotFound();
}

function checkRange(s: StoreState, op: RequestOp): void {
  if (!('range' in op)) return;
  const rev = op.range.revision;
  if (rev === 0) return;
  if (rev > s.currentRev) throw Errors.futureRev();
  if (rev < s.compactMainRev) throw Errors.compacted();
}

/**
 * Runs the chosen branch. A nested txn's own result carries revision 0: etcd
 * never fills the headers of nested TxnResponses.
 */
function runPath(txn: WriteTxn, req: TxnRequest, path: TxnPath): Omit<TxnResult, 'revision'> {
  const responses: ResponseOp[] = [];
  let n = 0;
  for (const op of branch(req, path)) {
    if ('range' in op) responses.push({ range: applyRange(txn, op.range) });
    else if ('put' in op) responses.push({ put: applyPut(txn, op.put) });
    else if ('deleteRange' in op) responses.push({ deleteRange: applyDeleteRange(txn, op.deleteRange) });
    else if ('txn' in op) responses.push({ txn: { ...runPath(txn, op.txn, path.nested[n++]!), revision: 0 } });
  }
  return { succeeded: path.succeeded, responses };
}

// Encoding of what a member proposes (resources/proto/pilothouse/raft_internal.proto).
// The mvcc request types already use the camelCase of etcd's field names, so
// protobufjs's camelCase mapping lines them up; the code here only converts
// 64-bit integers (protobufjs hands back Long) and the RequestOp union.

import type protobuf from 'protobufjs';
import { protoBundle } from '../../common/protoBundles';
import type {
  Compare,
  CompactionRequest,
  DeleteRangeRequest,
  PutRequest,
  RangeRequest,
  RequestOp,
  TxnRequest,
} from '../mvcc/types';
import type { MemberId } from '../raft/types';
import type { AlarmRequest } from '../api/etcdServer';
import type { LeaseGrantRequest, LeaseRevokeRequest } from '../lease/leaseApply';

export interface MemberAttrSet {
  memberId: MemberId;
  name: string;
  clientUrls: string[];
}

/** One proposal. `id` is the wait-registry id (etcd: header.ID). */
export type InternalRequest = { id: bigint } & (
  | { put: PutRequest }
  | { deleteRange: DeleteRangeRequest }
  | { txn: TxnRequest }
  | { compaction: CompactionRequest }
  | { memberAttrSet: MemberAttrSet }
  | { alarm: AlarmRequest }
  | { leaseGrant: LeaseGrantRequest }
  | { leaseRevoke: LeaseRevokeRequest }
);

let cachedType: protobuf.Type | undefined;

function requestType(): protobuf.Type {
  if (!cachedType) {
    cachedType = protoBundle('raftInternal').lookupType('pilothouse.raftinternal.InternalRaftRequest');
  }
  return cachedType;
}

// ---- 64-bit helpers: protobufjs writes int64 from a decimal string, reads a Long.

interface LongLike {
  low: number;
  high: number;
  unsigned: boolean;
}

function toBigInt(v: unknown): bigint {
  if (v === undefined || v === null) return 0n;
  if (typeof v === 'number') return BigInt(v);
  if (typeof v === 'bigint') return v;
  const l = v as LongLike;
  const u = (BigInt(l.high >>> 0) << 32n) | BigInt(l.low >>> 0);
  return l.unsigned ? u : BigInt.asIntN(64, u);
}

function toNum(v: unknown): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  return Number(toBigInt(v));
}

const EMPTY = new Uint8Array(0);
/** protobufjs hands out Buffers under Node; a plain view over the same memory keeps the types honest. */
function bytes(v: unknown): Uint8Array {
  if (!(v instanceof Uint8Array)) return EMPTY;
  return Buffer.isBuffer(v) ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : v;
}

// ---- to the wire shape

type Wire = Record<string, unknown>;

function putToWire(p: PutRequest): Wire {
  return { ...p, lease: p.lease.toString() };
}

function compareToWire(c: Compare): Wire {
  return { ...c, lease: c.lease.toString() };
}

function opToWire(op: RequestOp): Wire {
  if ('range' in op) return { requestRange: op.range };
  if ('put' in op) return { requestPut: putToWire(op.put) };
  if ('deleteRange' in op) return { requestDeleteRange: op.deleteRange };
  return { requestTxn: txnToWire(op.txn) };
}

function txnToWire(t: TxnRequest): Wire {
  return { compare: t.compare.map(compareToWire), success: t.success.map(opToWire), failure: t.failure.map(opToWire) };
}

export function encodeInternalRequest(req: InternalRequest): Uint8Array {
  const id = req.id.toString();
  const msg: Wire = { header: { ID: id }, ID: id };
  if ('put' in req) msg.put = putToWire(req.put);
  else if ('deleteRange' in req) msg.deleteRange = req.deleteRange;
  else if ('txn' in req) msg.txn = txnToWire(req.txn);
  else if ('compaction' in req) msg.compaction = req.compaction;
  else if ('leaseGrant' in req) msg.leaseGrant = { TTL: req.leaseGrant.ttl.toString(), ID: req.leaseGrant.id.toString() };
  else if ('leaseRevoke' in req) msg.leaseRevoke = { ID: req.leaseRevoke.id.toString() };
  else if ('alarm' in req) msg.alarm = { action: req.alarm.action, memberID: req.alarm.memberId.toString(), alarm: req.alarm.alarm };
  else {
    const a = req.memberAttrSet;
    msg.clusterMemberAttrSet = { member_ID: a.memberId.toString(), memberAttributes: { name: a.name, clientUrls: a.clientUrls } };
  }
  return requestType().encode(msg).finish();
}

// ---- from the wire shape

function rangeFromWire(w: Wire): RangeRequest {
  return {
    key: bytes(w.key),
    rangeEnd: bytes(w.rangeEnd),
    limit: toNum(w.limit),
    revision: toNum(w.revision),
    sortOrder: (w.sortOrder as number) ?? 0,
    sortTarget: (w.sortTarget as number) ?? 0,
    serializable: Boolean(w.serializable),
    keysOnly: Boolean(w.keysOnly),
    countOnly: Boolean(w.countOnly),
    minModRevision: toNum(w.minModRevision),
    maxModRevision: toNum(w.maxModRevision),
    minCreateRevision: toNum(w.minCreateRevision),
    maxCreateRevision: toNum(w.maxCreateRevision),
  };
}

function putFromWire(w: Wire): PutRequest {
  return {
    key: bytes(w.key),
    value: bytes(w.value),
    lease: toBigInt(w.lease),
    prevKv: Boolean(w.prevKv),
    ignoreValue: Boolean(w.ignoreValue),
    ignoreLease: Boolean(w.ignoreLease),
  };
}

function deleteFromWire(w: Wire): DeleteRangeRequest {
  return { key: bytes(w.key), rangeEnd: bytes(w.rangeEnd), prevKv: Boolean(w.prevKv) };
}

function compareFromWire(w: Wire): Compare {
  return {
    result: (w.result as number) ?? 0,
    target: (w.target as number) ?? 0,
    key: bytes(w.key),
    rangeEnd: bytes(w.rangeEnd),
    version: toNum(w.version),
    createRevision: toNum(w.createRevision),
    modRevision: toNum(w.modRevision),
    value: bytes(w.value),
    lease: toBigInt(w.lease),
  };
}

function opFromWire(w: Wire): RequestOp {
  if (w.requestRange) return { range: rangeFromWire(w.requestRange as Wire) };
  if (w.requestPut) return { put: putFromWire(w.requestPut as Wire) };
  if (w.requestDeleteRange) return { deleteRange: deleteFromWire(w.requestDeleteRange as Wire) };
  if (w.requestTxn) return { txn: txnFromWire(w.requestTxn as Wire) };
  throw new Error('raft internal request: empty RequestOp');
}

function txnFromWire(w: Wire): TxnRequest {
  const list = (v: unknown) => (Array.isArray(v) ? (v as Wire[]) : []);
  return {
    compare: list(w.compare).map(compareFromWire),
    success: list(w.success).map(opFromWire),
    failure: list(w.failure).map(opFromWire),
  };
}

export function decodeInternalRequest(data: Uint8Array): InternalRequest {
  const w = requestType().decode(data) as unknown as Wire;
  const header = w.header as Wire | undefined;
  const id = toBigInt(header?.ID ?? w.ID);
  if (w.put) return { id, put: putFromWire(w.put as Wire) };
  if (w.deleteRange) return { id, deleteRange: deleteFromWire(w.deleteRange as Wire) };
  if (w.txn) return { id, txn: txnFromWire(w.txn as Wire) };
  if (w.compaction) {
    const c = w.compaction as Wire;
    return { id, compaction: { revision: toNum(c.revision), physical: Boolean(c.physical) } };
  }
  if (w.leaseGrant) {
    const g = w.leaseGrant as Wire;
    return { id, leaseGrant: { id: toBigInt(g.ID), ttl: toNum(g.TTL) } };
  }
  if (w.leaseRevoke) return { id, leaseRevoke: { id: toBigInt((w.leaseRevoke as Wire).ID) } };
  if (w.alarm) {
    const a = w.alarm as Wire;
    return { id, alarm: { action: toNum(a.action), memberId: toBigInt(a.memberID), alarm: toNum(a.alarm) } };
  }
  if (w.clusterMemberAttrSet) {
    const a = w.clusterMemberAttrSet as Wire;
    const attrs = (a.memberAttributes as Wire | undefined) ?? {};
    return {
      id,
      memberAttrSet: {
        memberId: toBigInt(a.member_ID),
        name: (attrs.name as string) ?? '',
        clientUrls: Array.isArray(attrs.clientUrls) ? (attrs.clientUrls as string[]) : [],
      },
    };
  }
  throw new Error(`raft internal request ${id.toString(16)}: no operation`);
}

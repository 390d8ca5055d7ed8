// Wire ↔ internal conversions for the KV, Cluster and Maintenance services.
// Internal types (../mvcc/types.ts, ./etcdServer.ts) use camelCase, bytes as
// Uint8Array, revisions and counts as numbers, ids as bigint; the wire types
// (wire.ts) are proto-loader's shape. This runs on every request, so each
// function is a flat field copy: no JSON, no reflection, no intermediate
// objects. Buffers are passed through, never copied.

import { Errors } from '../errors';
import type {
  Compare,
  CompactionRequest,
  DeleteRangeRequest,
  DeleteRangeResult,
  KeyValue,
  PutRequest,
  PutResult,
  RangeRequest,
  RangeResult,
  RequestOp,
  ResponseOp,
  TxnRequest,
  TxnResult,
} from '../mvcc/types';
import type { MemberInfo, ResponseHeader, StatusInfo } from './etcdServer';
import type {
  WireCompactionRequest,
  WireCompare,
  WireDeleteRangeRequest,
  WireDeleteRangeResponse,
  WireKeyValue,
  WireLong,
  WireLongOut,
  WireMember,
  WirePutRequest,
  WirePutResponse,
  WireRangeRequest,
  WireRangeResponse,
  WireRequestOp,
  WireResponseHeader,
  WireResponseOp,
  WireStatusResponse,
  WireTxnRequest,
  WireTxnResponse,
} from './wire';

// ---- 64-bit helpers -------------------------------------------------------

const EMPTY = new Uint8Array(0);
const U32 = 0x1_0000_0000n;

/** A decoded int64 that is a count or revision (far below 2^53). */
function num(v: WireLong | undefined): number {
  return v === undefined || v === '0' ? 0 : Number(v);
}

/** A decoded int64 lease id, exact. */
function int64(v: WireLong | undefined): bigint {
  return v === undefined || v === '0' ? 0n : BigInt(v);
}

/** An unsigned 64-bit id as protobufjs takes it, without a decimal round trip. */
export function uint64Out(v: bigint): WireLongOut {
  if (v === 0n) return 0;
  const u = BigInt.asUintN(64, v);
  return { low: Number(u % U32) | 0, high: Number(u / U32) | 0, unsigned: true };
}

/** A signed 64-bit value (lease ids) as protobufjs takes it. */
function int64Out(v: bigint): WireLongOut {
  if (v === 0n) return 0;
  const u = BigInt.asUintN(64, v);
  return { low: Number(u % U32) | 0, high: Number(u / U32) | 0, unsigned: false };
}

// ---- requests -------------------------------------------------------------

export function rangeRequestFromWire(w: WireRangeRequest): RangeRequest {
  return {
    key: w.key ?? EMPTY,
    rangeEnd: w.range_end ?? EMPTY,
    limit: num(w.limit),
    revision: num(w.revision),
    sortOrder: w.sort_order ?? 0,
    sortTarget: w.sort_target ?? 0,
    serializable: w.serializable === true,
    keysOnly: w.keys_only === true,
    countOnly: w.count_only === true,
    minModRevision: num(w.min_mod_revision),
    maxModRevision: num(w.max_mod_revision),
    minCreateRevision: num(w.min_create_revision),
    maxCreateRevision: num(w.max_create_revision),
  };
}

export function putRequestFromWire(w: WirePutRequest): PutRequest {
  return {
    key: w.key ?? EMPTY,
    value: w.value ?? EMPTY,
    lease: int64(w.lease),
    prevKv: w.prev_kv === true,
    ignoreValue: w.ignore_value === true,
    ignoreLease: w.ignore_lease === true,
  };
}

export function deleteRangeRequestFromWire(w: WireDeleteRangeRequest): DeleteRangeRequest {
  return { key: w.key ?? EMPTY, rangeEnd: w.range_end ?? EMPTY, prevKv: w.prev_kv === true };
}

export function compareFromWire(w: WireCompare): Compare {
  return {
    result: w.result ?? 0,
    target: w.target ?? 0,
    key: w.key ?? EMPTY,
    rangeEnd: w.range_end ?? EMPTY,
    version: num(w.version),
    createRevision: num(w.create_revision),
    modRevision: num(w.mod_revision),
    value: w.value ?? EMPTY,
    lease: int64(w.lease),
  };
}

/**
 * An op with no member set is etcd's "key not found" (v3rpc/key.go
 * checkRequestOp). It is raised here because the internal union has no empty
 * case; etcd would report a too-many-ops or empty-key error found earlier in
 * the same txn first, so that precedence is lost for such mixed requests.
 */
export function requestOpFromWire(w: WireRequestOp): RequestOp {
  if (w.request_range) return { range: rangeRequestFromWire(w.request_range) };
  if (w.request_put) return { put: putRequestFromWire(w.request_put) };
  if (w.request_delete_range) return { deleteRange: deleteRangeRequestFromWire(w.request_delete_range) };
  if (w.request_txn) return { txn: txnRequestFromWire(w.request_txn) };
  throw Errors.keyNotFound();
}

export function txnRequestFromWire(w: WireTxnRequest): TxnRequest {
  return {
    compare: (w.compare ?? []).map(compareFromWire),
    success: (w.success ?? []).map(requestOpFromWire),
    failure: (w.failure ?? []).map(requestOpFromWire),
  };
}

export function compactionRequestFromWire(w: WireCompactionRequest): CompactionRequest {
  return { revision: num(w.revision), physical: w.physical === true };
}

// ---- responses ------------------------------------------------------------

/** The header etcd fills: ids and term always, revision unless `withRevision` is false (Cluster). */
export function headerToWire(h: ResponseHeader, withRevision = true): WireResponseHeader {
  const out: WireResponseHeader = {
    cluster_id: uint64Out(h.clusterId),
    member_id: uint64Out(h.memberId),
    raft_term: h.raftTerm,
  };
  if (withRevision) out.revision = h.revision;
  return out;
}

export function keyValueToWire(kv: KeyValue): WireKeyValue {
  return {
    key: kv.key,
    create_revision: kv.createRevision,
    mod_revision: kv.modRevision,
    version: kv.version,
    value: kv.value,
    lease: int64Out(kv.lease),
  };
}

/**
 * Ops nested in a txn carry a header with only the revision, as etcd's
 * applier builds them; the outer response gets the full header.
 */
type HeaderOut = WireResponseHeader | { revision: number };

export function rangeResponseToWire(header: HeaderOut, r: RangeResult): WireRangeResponse {
  return { header, kvs: r.kvs.map(keyValueToWire), more: r.more, count: r.count };
}

export function putResponseToWire(header: HeaderOut, r: PutResult): WirePutResponse {
  const out: WirePutResponse = { header };
  if (r.prevKv !== undefined) out.prev_kv = keyValueToWire(r.prevKv);
  return out;
}

export function deleteRangeResponseToWire(header: HeaderOut, r: DeleteRangeResult): WireDeleteRangeResponse {
  return { header, deleted: r.deleted, prev_kvs: r.prevKvs.map(keyValueToWire) };
}

export function txnResponseToWire(header: HeaderOut, r: TxnResult): WireTxnResponse {
  return { header, succeeded: r.succeeded, responses: r.responses.map(responseOpToWire) };
}

function responseOpToWire(op: ResponseOp): WireResponseOp {
  if ('range' in op) return { response_range: rangeResponseToWire({ revision: op.range.revision }, op.range) };
  if ('put' in op) return { response_put: putResponseToWire({ revision: op.put.revision }, op.put) };
  if ('deleteRange' in op) {
    return { response_delete_range: deleteRangeResponseToWire({ revision: op.deleteRange.revision }, op.deleteRange) };
  }
  return { response_txn: txnResponseToWire({ revision: op.txn.revision }, op.txn) };
}

export function memberToWire(m: MemberInfo): WireMember {
  return {
    ID: uint64Out(m.id),
    name: m.name,
    peerURLs: m.peerUrls,
    clientURLs: m.clientUrls,
    isLearner: m.isLearner,
  };
}

const NO_LEADER = Errors.noLeader().message;

/**
 * etcd's Maintenance.Status adds "etcdserver: no leader" when leader is 0,
 * before the alarm strings (v3rpc/maintenance.go); added here unless the
 * member already reported it.
 */
export function statusToWire(h: ResponseHeader, s: StatusInfo): WireStatusResponse {
  const errors = s.leader === 0n && !s.errors.includes(NO_LEADER) ? [NO_LEADER, ...s.errors] : s.errors;
  return {
    header: headerToWire(h),
    version: s.version,
    dbSize: s.dbSize,
    leader: uint64Out(s.leader),
    raftIndex: s.raftIndex,
    raftTerm: s.raftTerm,
    raftAppliedIndex: s.raftAppliedIndex,
    errors,
    dbSizeInUse: s.dbSizeInUse,
    isLearner: s.isLearner,
  };
}

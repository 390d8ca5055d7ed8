// The three etcd messages on a write's hot path, read and written straight
// from and to protobuf bytes (field numbers of etcd's rpc.proto and kv.proto):
// TxnRequest out; TxnResponse and WatchResponse in. proto-loader's generic
// path (fromObject → encode, decode → toObject with int64s as strings, then
// our own conversion to bigint) was 3–4 % of the API server's CPU under pod
// creates. Every other message still goes through proto-loader (etcdClient.ts).
//
//   TxnRequest   { repeated Compare compare = 1; repeated RequestOp success = 2; failure = 3 }
//   Compare      { result = 1; target = 2; key = 3; version = 4 | mod_revision = 6 }
//   RequestOp    { request_range = 1 | request_put = 2 | request_delete_range = 3 }
//   RangeRequest { key = 1; range_end = 2; limit = 3; revision = 4; keys_only = 8; count_only = 9 }
//   PutRequest   { key = 1; value = 2; lease = 3 }
//   DeleteRangeRequest { key = 1; range_end = 2 }
//   TxnResponse  { ResponseHeader header = 1; bool succeeded = 2; repeated ResponseOp responses = 3 }
//   ResponseOp   { response_range = 1 | response_put = 2 | response_delete_range = 3 | response_txn = 4 }
//   RangeResponse { header = 1; repeated KeyValue kvs = 2; bool more = 3; int64 count = 4 }
//   ResponseHeader { cluster_id = 1; member_id = 2; int64 revision = 3; raft_term = 4 }
//   WatchResponse { header = 1; int64 watch_id = 2; bool created = 3; bool canceled = 4;
//                   int64 compact_revision = 5; string cancel_reason = 6; bool fragment = 7;
//                   repeated Event events = 11 }
//   Event        { EventType type = 1 (PUT 0, DELETE 1); KeyValue kv = 2; KeyValue prev_kv = 3 }
//   KeyValue     { key = 1; int64 create_revision = 2; mod_revision = 3; version = 4; value = 5; lease = 6 }

import { WIRE_BYTES, WireWriter } from '../../common/protobufWire';
import type { KeyValue, Op, RangeRequest, TxnResult } from './etcdTypes';

const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;
const FIXED32 = 5;
const EMPTY = Buffer.alloc(0);

class Reader {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  more(): boolean {
    return this.pos < this.end;
  }

  /** A varint below 2^53 as a number (tags, lengths, enums, bools); larger ones lose nothing only through int64(). */
  uint(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new Error('etcd wire: truncated varint');
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
    throw new Error('etcd wire: varint too long');
  }

  /** An int64 varint (negative ones are ten bytes, two's complement). */
  int64(): bigint {
    const start = this.pos;
    const n = this.uint();
    if (n <= Number.MAX_SAFE_INTEGER && this.pos - start < 8) return BigInt(n);
    let result = 0n;
    let shift = 0n;
    for (let p = start; p < this.pos; p++) {
      result |= BigInt(this.buf[p]! & 0x7f) << shift;
      shift += 7n;
    }
    return BigInt.asIntN(64, result);
  }

  /** A length-delimited field's extent: [start, end). */
  span(): [number, number] {
    const len = this.uint();
    const start = this.pos;
    if (start + len > this.end) throw new Error('etcd wire: truncated field');
    this.pos = start + len;
    return [start, start + len];
  }

  bytes(): Buffer {
    const [s, e] = this.span();
    return this.buf.subarray(s, e);
  }

  skip(wireType: number): void {
    if (wireType === VARINT) this.uint();
    else if (wireType === BYTES) this.span();
    else if (wireType === FIXED64) this.pos += 8;
    else if (wireType === FIXED32) this.pos += 4;
    else throw new Error(`etcd wire: unexpected wire type ${wireType}`);
  }
}

function readKeyValue(r: Reader, [start, end]: [number, number]): KeyValue {
  const kv: KeyValue = { key: EMPTY, value: EMPTY, createRevision: 0n, modRevision: 0n, version: 0n, lease: 0n };
  const f = new Reader(r.buf, start, end);
  while (f.more()) {
    const tag = f.uint();
    switch (tag) {
      case (1 << 3) | BYTES:
        kv.key = f.bytes();
        break;
      case (2 << 3) | VARINT:
        kv.createRevision = f.int64();
        break;
      case (3 << 3) | VARINT:
        kv.modRevision = f.int64();
        break;
      case (4 << 3) | VARINT:
        kv.version = f.int64();
        break;
      case (5 << 3) | BYTES:
        kv.value = f.bytes();
        break;
      case (6 << 3) | VARINT:
        kv.lease = f.int64();
        break;
      default:
        f.skip(tag & 7);
    }
  }
  return kv;
}

/** ResponseHeader.revision. */
function readHeaderRevision(r: Reader, [start, end]: [number, number]): bigint {
  const f = new Reader(r.buf, start, end);
  let revision = 0n;
  while (f.more()) {
    const tag = f.uint();
    if (tag === ((3 << 3) | VARINT)) revision = f.int64();
    else f.skip(tag & 7);
  }
  return revision;
}

function readRangeKvs(r: Reader, [start, end]: [number, number]): KeyValue[] {
  const f = new Reader(r.buf, start, end);
  const kvs: KeyValue[] = [];
  while (f.more()) {
    const tag = f.uint();
    if (tag === ((2 << 3) | BYTES)) kvs.push(readKeyValue(f, f.span()));
    else f.skip(tag & 7);
  }
  return kvs;
}

export function decodeTxnResponse(buf: Buffer): TxnResult {
  const r = new Reader(buf);
  const out: TxnResult = { revision: 0n, succeeded: false, responses: [] };
  while (r.more()) {
    const tag = r.uint();
    if (tag === ((1 << 3) | BYTES)) out.revision = readHeaderRevision(r, r.span());
    else if (tag === ((2 << 3) | VARINT)) out.succeeded = r.uint() !== 0;
    else if (tag === ((3 << 3) | BYTES)) {
      const op = new Reader(buf, ...r.span());
      let response: { kvs?: KeyValue[] } = {};
      while (op.more()) {
        const t = op.uint();
        // A oneof: the last member on the wire wins, as in protobuf.
        if (t === ((1 << 3) | BYTES)) response = { kvs: readRangeKvs(op, op.span()) };
        else {
          if ((t & 7) === BYTES) response = {};
          op.skip(t & 7);
        }
      }
      out.responses.push(response);
    } else r.skip(tag & 7);
  }
  return out;
}

export interface WatchResponseWire {
  revision: bigint;
  watchId: bigint;
  created: boolean;
  canceled: boolean;
  compactRevision: bigint;
  cancelReason: string;
  events: { type: 'PUT' | 'DELETE'; kv: KeyValue; prevKv?: KeyValue }[];
}

export function decodeWatchResponse(buf: Buffer): WatchResponseWire {
  const r = new Reader(buf);
  const out: WatchResponseWire = { revision: 0n, watchId: 0n, created: false, canceled: false, compactRevision: 0n, cancelReason: '', events: [] };
  while (r.more()) {
    const tag = r.uint();
    switch (tag) {
      case (1 << 3) | BYTES:
        out.revision = readHeaderRevision(r, r.span());
        break;
      case (2 << 3) | VARINT:
        out.watchId = r.int64();
        break;
      case (3 << 3) | VARINT:
        out.created = r.uint() !== 0;
        break;
      case (4 << 3) | VARINT:
        out.canceled = r.uint() !== 0;
        break;
      case (5 << 3) | VARINT:
        out.compactRevision = r.int64();
        break;
      case (6 << 3) | BYTES:
        out.cancelReason = r.bytes().toString('utf8');
        break;
      case (11 << 3) | BYTES: {
        const e = new Reader(buf, ...r.span());
        let type: 'PUT' | 'DELETE' = 'PUT';
        let kv: KeyValue | undefined;
        let prevKv: KeyValue | undefined;
        while (e.more()) {
          const t = e.uint();
          if (t === ((1 << 3) | VARINT)) type = e.uint() === 1 ? 'DELETE' : 'PUT';
          else if (t === ((2 << 3) | BYTES)) kv = readKeyValue(e, e.span());
          else if (t === ((3 << 3) | BYTES)) prevKv = readKeyValue(e, e.span());
          else e.skip(t & 7);
        }
        // An event always carries its kv; a missing one reads as the empty KeyValue, as proto3 would.
        out.events.push({ type, kv: kv ?? { key: EMPTY, value: EMPTY, createRevision: 0n, modRevision: 0n, version: 0n, lease: 0n }, ...(prevKv ? { prevKv } : {}) });
        break;
      }
      default:
        r.skip(tag & 7);
    }
  }
  return out;
}

const FRAME_PREFIX = new Uint8Array(5);
/** The writer's buffer, kept between encodes (grown to the largest request seen). */
let scratch: Uint8Array | undefined;

function keyField(w: WireWriter, field: number, k: string | Uint8Array): void {
  if (k.length === 0) return; // proto3 leaves empty bytes off the wire
  w.tag(field, WIRE_BYTES);
  if (typeof k === 'string') w.string(k);
  else w.bytes(k);
}

/** proto3 leaves zero values off the wire. */
function int64Field(w: WireWriter, field: number, v: bigint | number | undefined): void {
  if (v !== undefined && v !== 0 && v !== 0n) w.tag(field, VARINT).varint(v);
}

function rangeRequest(w: WireWriter, r: RangeRequest): void {
  keyField(w, 1, r.key);
  if (r.rangeEnd !== undefined) keyField(w, 2, r.rangeEnd);
  int64Field(w, 3, r.limit);
  int64Field(w, 4, r.revision);
  if (r.keysOnly) w.tag(8, VARINT).varint(1);
  if (r.countOnly) w.tag(9, VARINT).varint(1);
}

/** A RequestOp as field `field` of the TxnRequest: nested messages written in place (fork/ldelim). */
function requestOp(w: WireWriter, field: number, op: Op): void {
  w.tag(field, WIRE_BYTES);
  const outer = w.fork();
  if ('put' in op) {
    w.tag(2, WIRE_BYTES);
    const inner = w.fork();
    keyField(w, 1, op.put.key);
    if (op.put.value.length > 0) w.tag(2, WIRE_BYTES).bytes(op.put.value);
    int64Field(w, 3, op.put.lease);
    w.ldelim(inner);
  } else if ('deleteRange' in op) {
    w.tag(3, WIRE_BYTES);
    const inner = w.fork();
    keyField(w, 1, op.deleteRange.key);
    if (op.deleteRange.rangeEnd !== undefined) keyField(w, 2, op.deleteRange.rangeEnd);
    w.ldelim(inner);
  } else {
    w.tag(1, WIRE_BYTES);
    const inner = w.fork();
    rangeRequest(w, op.range);
    w.ldelim(inner);
  }
  w.ldelim(outer);
}

/**
 * A TxnRequest as a gRPC message frame (a zero compressed-flag byte and the
 * 4-byte big-endian length, then the message), written in one pass into one
 * buffer. Compares are EQUAL (result 0) on MOD (target 2) or VERSION
 * (target 0), as etcdClient.txn makes them.
 */
export function encodeTxnRequestFrame(compare: ({ key: string; modRevision: bigint } | { key: string; version: bigint })[], success: Op[], failure: Op[]): Buffer {
  const w = new WireWriter(scratch);
  w.raw(FRAME_PREFIX);
  for (const c of compare) {
    w.tag(1, WIRE_BYTES);
    const m = w.fork();
    // result EQUAL = 0 is the default and stays off the wire.
    if ('modRevision' in c) w.tag(2, VARINT).varint(2);
    keyField(w, 3, c.key);
    // The target_union oneof: its member is written even when zero.
    if ('modRevision' in c) w.tag(6, VARINT).varint(c.modRevision);
    else w.tag(4, VARINT).varint(c.version);
    w.ldelim(m);
  }
  for (const op of success) requestOp(w, 2, op);
  for (const op of failure) requestOp(w, 3, op);
  scratch = w.buffer;
  const bytes = w.finish();
  const out = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  out.writeUInt32BE(out.length - FRAME_PREFIX.length, 1);
  return out;
}

/** The TxnRequest message alone (what encodeTxnRequestFrame frames). */
export function encodeTxnRequest(compare: ({ key: string; modRevision: bigint } | { key: string; version: bigint })[], success: Op[], failure: Op[]): Buffer {
  return encodeTxnRequestFrame(compare, success, failure).subarray(FRAME_PREFIX.length);
}

// raftpb on the wire, by hand: resources/proto/pilothouse/raftpb.proto is
// the contract (etcd 3.4's field numbers), this is the fast path. Writing
// with protobufjs' Writer/Reader directly avoids building a Long-laden
// object graph per message; ids go straight between bigint and the two
// 32-bit halves protobufjs wants.
//
// Like etcd 3.4's gogoproto marshaller (proto2, nullable=false) every scalar
// field is written even when zero, and `snapshot`/`context` only when
// present. Unknown fields are skipped, so a newer sender does not break an
// older receiver.

import protobuf from 'protobufjs';
import type {
  ConfChange,
  ConfState,
  Entry,
  HardState,
  MemberId,
  Message,
  Snapshot,
  SnapshotMetadata,
} from '../../raft/types';

const { Reader, Writer } = protobuf;
type Reader = protobuf.Reader;
type Writer = protobuf.Writer;

const VARINT = 0;
const BYTES = 2;
const tag = (field: number, wire: number): number => (field << 3) | wire;

const MASK32 = 0xffffffffn;

// protobufjs' LongBits.from accepts any {low, high} object.
function u64(w: Writer, v: bigint): void {
  w.uint64({ low: Number(v & MASK32), high: Number((v >> 32n) & MASK32), unsigned: true } as never);
}

// Varints are read here rather than with Reader.uint64(): that returns a
// Long only when protobufjs finds the `long` package at run time (a bundle
// may hide it) and otherwise a lossy number, and ids exceed 2^53.
let lo = 0;
let hi = 0;

function readVarint64(r: Reader): void {
  const buf = r.buf;
  let b: number;
  lo = 0;
  hi = 0;
  for (let i = 0; i < 4; i++) {
    if (r.pos >= r.len) throw new RangeError('raftpb: truncated varint');
    b = buf[r.pos++]!;
    lo = (lo | ((b & 127) << (i * 7))) >>> 0;
    if (b < 128) return;
  }
  if (r.pos >= r.len) throw new RangeError('raftpb: truncated varint');
  b = buf[r.pos++]!;
  lo = (lo | ((b & 127) << 28)) >>> 0;
  hi = (b & 127) >> 4;
  if (b < 128) return;
  for (let i = 0; i < 5; i++) {
    if (r.pos >= r.len) throw new RangeError('raftpb: truncated varint');
    b = buf[r.pos++]!;
    hi = (hi | ((b & 127) << (i * 7 + 3))) >>> 0;
    if (b < 128) return;
  }
  throw new RangeError('raftpb: varint longer than 10 bytes');
}

function readU64(r: Reader): bigint {
  readVarint64(r);
  return hi === 0 ? BigInt(lo) : (BigInt(hi) << 32n) | BigInt(lo);
}

/** Terms and indexes: plain numbers (they stay below 2^53). */
function readNum(r: Reader): number {
  readVarint64(r);
  return hi * 0x1_0000_0000 + lo;
}

function num(w: Writer, v: number): void {
  w.uint64(v);
}

/** Plain Uint8Array views (no copy): callers compare and store them like any other bytes. */
function readBytes(r: Reader): Uint8Array {
  const b = r.bytes();
  return Buffer.isBuffer(b) ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : b;
}

// ---- writers ---------------------------------------------------------------

function writeEntry(w: Writer, e: Entry): void {
  w.uint32(tag(1, VARINT)).int32(e.type);
  w.uint32(tag(2, VARINT));
  num(w, e.term);
  w.uint32(tag(3, VARINT));
  num(w, e.index);
  w.uint32(tag(4, BYTES)).bytes(e.data);
}

function writeConfState(w: Writer, cs: ConfState): void {
  for (const id of cs.voters) {
    w.uint32(tag(1, VARINT));
    u64(w, id);
  }
  for (const id of cs.learners) {
    w.uint32(tag(2, VARINT));
    u64(w, id);
  }
}

function writeSnapshot(w: Writer, s: Snapshot): void {
  w.uint32(tag(1, BYTES)).bytes(s.data);
  w.uint32(tag(2, BYTES)).fork();
  w.uint32(tag(1, BYTES)).fork();
  writeConfState(w, s.metadata.confState);
  w.ldelim();
  w.uint32(tag(2, VARINT));
  num(w, s.metadata.index);
  w.uint32(tag(3, VARINT));
  num(w, s.metadata.term);
  w.ldelim();
}

function writeMessage(w: Writer, m: Message): void {
  w.uint32(tag(1, VARINT)).int32(m.type);
  w.uint32(tag(2, VARINT));
  u64(w, m.to);
  w.uint32(tag(3, VARINT));
  u64(w, m.from);
  w.uint32(tag(4, VARINT));
  num(w, m.term);
  w.uint32(tag(5, VARINT));
  num(w, m.logTerm);
  w.uint32(tag(6, VARINT));
  num(w, m.index);
  for (const e of m.entries) {
    w.uint32(tag(7, BYTES)).fork();
    writeEntry(w, e);
    w.ldelim();
  }
  w.uint32(tag(8, VARINT));
  num(w, m.commit);
  if (m.snapshot) {
    w.uint32(tag(9, BYTES)).fork();
    writeSnapshot(w, m.snapshot);
    w.ldelim();
  }
  w.uint32(tag(10, VARINT)).bool(m.reject);
  w.uint32(tag(11, VARINT));
  num(w, m.rejectHint);
  if (m.context) w.uint32(tag(12, BYTES)).bytes(m.context);
}

// ---- readers ---------------------------------------------------------------

function readEntry(r: Reader, end: number): Entry {
  const e: Entry = { term: 0, index: 0, type: 0, data: new Uint8Array(0) };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t >>> 3) {
      case 1: e.type = r.int32(); break;
      case 2: e.term = readNum(r); break;
      case 3: e.index = readNum(r); break;
      case 4: e.data = readBytes(r); break;
      default: r.skipType(t & 7);
    }
  }
  return e;
}

function readConfState(r: Reader, end: number): ConfState {
  const cs: ConfState = { voters: [], learners: [] };
  while (r.pos < end) {
    const t = r.uint32();
    const field = t >>> 3;
    if ((field === 1 || field === 2) && (t & 7) === BYTES) {
      // Packed form (a proto3 writer would use it): accept it too.
      const stop = r.uint32() + r.pos;
      while (r.pos < stop) (field === 1 ? cs.voters : cs.learners).push(readU64(r));
    } else if (field === 1) cs.voters.push(readU64(r));
    else if (field === 2) cs.learners.push(readU64(r));
    else r.skipType(t & 7);
  }
  return cs;
}

function readSnapshotMetadata(r: Reader, end: number): SnapshotMetadata {
  const md: SnapshotMetadata = { confState: { voters: [], learners: [] }, index: 0, term: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t >>> 3) {
      case 1: md.confState = readConfState(r, r.uint32() + r.pos); break;
      case 2: md.index = readNum(r); break;
      case 3: md.term = readNum(r); break;
      default: r.skipType(t & 7);
    }
  }
  return md;
}

function readSnapshot(r: Reader, end: number): Snapshot {
  const s: Snapshot = { data: new Uint8Array(0), metadata: { confState: { voters: [], learners: [] }, index: 0, term: 0 } };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t >>> 3) {
      case 1: s.data = readBytes(r); break;
      case 2: s.metadata = readSnapshotMetadata(r, r.uint32() + r.pos); break;
      default: r.skipType(t & 7);
    }
  }
  return s;
}

function readMessage(r: Reader, end: number): Message {
  const m: Message = {
    type: 0, to: 0n, from: 0n, term: 0, logTerm: 0, index: 0,
    entries: [], commit: 0, reject: false, rejectHint: 0,
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t >>> 3) {
      case 1: m.type = r.int32(); break;
      case 2: m.to = readU64(r); break;
      case 3: m.from = readU64(r); break;
      case 4: m.term = readNum(r); break;
      case 5: m.logTerm = readNum(r); break;
      case 6: m.index = readNum(r); break;
      case 7: m.entries.push(readEntry(r, r.uint32() + r.pos)); break;
      case 8: m.commit = readNum(r); break;
      case 9: m.snapshot = readSnapshot(r, r.uint32() + r.pos); break;
      case 10: m.reject = r.bool(); break;
      case 11: m.rejectHint = readNum(r); break;
      case 12: m.context = readBytes(r); break;
      default: r.skipType(t & 7);
    }
  }
  return m;
}

// ---- public ----------------------------------------------------------------

export function encodeMessage(m: Message): Uint8Array {
  const w = Writer.create();
  writeMessage(w, m);
  return w.finish();
}

export function decodeMessage(b: Uint8Array): Message {
  const r = Reader.create(b);
  return readMessage(r, r.len);
}

/** raftpb.MessageBatch: field 1, repeated Message. */
export function encodeBatch(msgs: readonly Message[]): Uint8Array {
  const w = Writer.create();
  for (const m of msgs) {
    w.uint32(tag(1, BYTES)).fork();
    writeMessage(w, m);
    w.ldelim();
  }
  return w.finish();
}

export function decodeBatch(b: Uint8Array): Message[] {
  const r = Reader.create(b);
  const out: Message[] = [];
  while (r.pos < r.len) {
    const t = r.uint32();
    if (t >>> 3 === 1) out.push(readMessage(r, r.uint32() + r.pos));
    else r.skipType(t & 7);
  }
  return out;
}

export function encodeEntry(e: Entry): Uint8Array {
  const w = Writer.create();
  writeEntry(w, e);
  return w.finish();
}

export function decodeEntry(b: Uint8Array): Entry {
  const r = Reader.create(b);
  return readEntry(r, r.len);
}

export function encodeSnapshot(s: Snapshot): Uint8Array {
  const w = Writer.create();
  writeSnapshot(w, s);
  return w.finish();
}

export function decodeSnapshot(b: Uint8Array): Snapshot {
  const r = Reader.create(b);
  return readSnapshot(r, r.len);
}

export function encodeConfState(cs: ConfState): Uint8Array {
  const w = Writer.create();
  writeConfState(w, cs);
  return w.finish();
}

export function decodeConfState(b: Uint8Array): ConfState {
  const r = Reader.create(b);
  return readConfState(r, r.len);
}

export function encodeHardState(hs: HardState): Uint8Array {
  const w = Writer.create();
  w.uint32(tag(1, VARINT));
  num(w, hs.term);
  w.uint32(tag(2, VARINT));
  u64(w, hs.vote);
  w.uint32(tag(3, VARINT));
  num(w, hs.commit);
  return w.finish();
}

export function decodeHardState(b: Uint8Array): HardState {
  const r = Reader.create(b);
  const hs: HardState = { term: 0, vote: 0n, commit: 0 };
  while (r.pos < r.len) {
    const t = r.uint32();
    switch (t >>> 3) {
      case 1: hs.term = readNum(r); break;
      case 2: hs.vote = readU64(r); break;
      case 3: hs.commit = readNum(r); break;
      default: r.skipType(t & 7);
    }
  }
  return hs;
}

/** raftpb.ConfChange; `id` is etcd's proposal id (the server's wait registry key). */
export interface ConfChangeWire extends ConfChange {
  id: bigint;
}

export function encodeConfChange(cc: ConfChange & { id?: bigint }): Uint8Array {
  const w = Writer.create();
  w.uint32(tag(1, VARINT));
  u64(w, cc.id ?? 0n);
  w.uint32(tag(2, VARINT)).int32(cc.type);
  w.uint32(tag(3, VARINT));
  u64(w, cc.nodeId);
  w.uint32(tag(4, BYTES)).bytes(cc.context);
  return w.finish();
}

export function decodeConfChange(b: Uint8Array): ConfChangeWire {
  const r = Reader.create(b);
  const cc: ConfChangeWire = { id: 0n, type: 0, nodeId: 0n as MemberId, context: new Uint8Array(0) };
  while (r.pos < r.len) {
    const t = r.uint32();
    switch (t >>> 3) {
      case 1: cc.id = readU64(r); break;
      case 2: cc.type = r.int32(); break;
      case 3: cc.nodeId = readU64(r); break;
      case 4: cc.context = readBytes(r); break;
      default: r.skipType(t & 7);
    }
  }
  return cc;
}

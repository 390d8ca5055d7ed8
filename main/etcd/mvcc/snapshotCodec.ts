// The store's binary image, written into Raft snapshots by the member.
//
// Layout (all integers unsigned LEB128 varints unless noted):
//
//   magic        8 bytes "PHMVCC1\n"
//   currentRev
//   compactRev+1 (compactRev is -1 when never compacted)
//   keyCount, then keyCount × { len, key bytes }      keys ascending
//   recordCount, then recordCount × record            revision order
//     record = keyId (index into the key table), main, sub, version,
//              and unless version is 0 (a tombstone):
//              create, flags (1 = has lease), [lease: 8 bytes int64 BE],
//              valueLen, value bytes
//   crc          4 bytes big-endian CRC-32C of everything before it
//
// The key tree is not stored: replaying the records in revision order into
// empty key indexes rebuilds every generation exactly (a tombstone closes a
// generation), because compaction only ever drops a prefix of a key's history.

import { crc32c } from './crc32c';
import { toKeyString } from './keyBytes';
import type { KeyIndex, RevisionRecord } from './keyIndex';
import { EMPTY, StoreState } from './storeState';

const MAGIC = new TextEncoder().encode('PHMVCC1\n');

class Writer {
  buf: Uint8Array;
  pos = 0;
  private view: DataView;

  constructor(capacity: number) {
    this.buf = new Uint8Array(Math.max(64, capacity));
    this.view = new DataView(this.buf.buffer);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  varint(v: number): void {
    this.ensure(8);
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
  }

  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.raw(b);
  }

  raw(b: Uint8Array): void {
    const n = b.length;
    this.ensure(n);
    const buf = this.buf;
    let pos = this.pos;
    // TypedArray.set has a large fixed cost; most keys and values are short
    if (n <= 32) for (let i = 0; i < n; i++) buf[pos++] = b[i]!;
    else {
      buf.set(b, pos);
      pos += n;
    }
    this.pos = pos;
  }

  int64(v: bigint): void {
    this.ensure(8);
    this.view.setBigInt64(this.pos, v);
    this.pos += 8;
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }

  u32(v: number): void {
    this.ensure(4);
    this.view.setUint32(this.pos, v);
    this.pos += 4;
  }
}

class Reader {
  pos = 0;
  private readonly view: DataView;

  constructor(private readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  varint(): number {
    let v = 0;
    let mul = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.byte();
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 0x80;
    }
    throw new Error('mvcc snapshot: varint too long');
  }

  byte(): number {
    if (this.pos >= this.buf.length) throw new Error('mvcc snapshot: truncated');
    return this.buf[this.pos++]!;
  }

  /** A view into the reader's buffer (decodeSnapshot reads a private copy of the image). */
  bytes(): Uint8Array {
    const n = this.varint();
    if (this.pos + n > this.buf.length) throw new Error('mvcc snapshot: truncated');
    const out = n === 0 ? EMPTY : this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  int64(): bigint {
    if (this.pos + 8 > this.buf.length) throw new Error('mvcc snapshot: truncated');
    const v = this.view.getBigInt64(this.pos);
    this.pos += 8;
    return v;
  }
}

export function encodeSnapshot(s: StoreState): Uint8Array {
  const w = new Writer(s.totalBytes + s.log.length * 8 + 64);
  w.raw(MAGIC);
  w.varint(s.currentRev);
  w.varint(s.compactMainRev + 1);
  const keyIds = new Map<KeyIndex, number>();
  w.varint(s.tree.size);
  s.tree.forEach((ki) => {
    keyIds.set(ki, keyIds.size);
    w.bytes(ki.bytes);
  });
  w.varint(s.log.length);
  for (const r of s.log) {
    w.varint(keyIds.get(r.index)!);
    w.varint(r.main);
    w.varint(r.sub);
    w.varint(r.version);
    if (r.version === 0) continue;
    w.varint(r.create);
    w.u8(r.lease !== 0n ? 1 : 0);
    if (r.lease !== 0n) w.int64(r.lease);
    w.bytes(r.value);
  }
  const body = w.buf.subarray(0, w.pos);
  w.u32(crc32c(body));
  return w.buf.slice(0, w.pos);
}

export function decodeSnapshot(data: Uint8Array): StoreState {
  if (data.length < MAGIC.length + 4) throw new Error('mvcc snapshot: truncated');
  for (let i = 0; i < MAGIC.length; i++) {
    if (data[i] !== MAGIC[i]) throw new Error('mvcc snapshot: bad magic');
  }
  const bodyEnd = data.length - 4;
  const want = new DataView(data.buffer, data.byteOffset + bodyEnd, 4).getUint32(0);
  if (crc32c(data.subarray(0, bodyEnd)) !== want) throw new Error('mvcc snapshot: checksum mismatch');

  // One private copy of the image: restored keys and values are views into
  // it, which is far cheaper than 2 allocations per key, and never pins the
  // caller's (possibly much larger) buffer. It is freed once every restored
  // value has been overwritten or compacted away.
  const r = new Reader(data.slice(0, bodyEnd));
  r.pos = MAGIC.length;
  const s = new StoreState();
  s.currentRev = r.varint();
  s.compactMainRev = r.varint() - 1;
  const keyCount = r.varint();
  const keys: KeyIndex[] = new Array(keyCount);
  let prevKey: string | undefined;
  for (let i = 0; i < keyCount; i++) {
    const bytes = r.bytes();
    const key = toKeyString(bytes);
    if (prevKey !== undefined && key <= prevKey) throw new Error('mvcc snapshot: keys out of order');
    prevKey = key;
    keys[i] = s.tree.getOrCreate(key, bytes);
  }
  const recordCount = r.varint();
  for (let i = 0; i < recordCount; i++) {
    const ki = keys[r.varint()];
    if (ki === undefined) throw new Error('mvcc snapshot: bad key id');
    const main = r.varint();
    const sub = r.varint();
    const version = r.varint();
    let create = 0;
    let lease = 0n;
    let value: Uint8Array = EMPTY;
    if (version !== 0) {
      create = r.varint();
      if (r.byte() & 1) lease = r.int64();
      value = r.bytes();
    }
    const rec: RevisionRecord = { index: ki, main, sub, create, version, value, lease, keptAt: 0 };
    const live = ki.latest();
    if (version === 0) ki.appendTombstone(rec);
    else ki.appendPut(rec);
    s.appendRecord(rec, live);
  }
  if (r.pos !== bodyEnd) throw new Error('mvcc snapshot: trailing bytes');
  return s;
}

// The bytes etcd keeps per revision in its "key" bucket: the bucket key is the
// revision (8-byte big-endian main, '_', 8-byte big-endian sub, plus 't' for a
// tombstone) and the value is the marshalled mvccpb.KeyValue (fields 1 key,
// 2 create_revision, 3 mod_revision, 4 version, 5 value, 6 lease; zero values
// omitted, as gogoproto writes them). HashKV checksums exactly these bytes, so
// producing them byte for byte makes our HashKV equal to etcd's for the same
// history; the sizes feed dbSize.

import { isTombstone, type RevisionRecord } from './keyIndex';

const REV_BYTES = 17;

/** Bytes of the revision key (17, or 18 for a tombstone). */
export function revisionKeySize(r: RevisionRecord): number {
  return isTombstone(r) ? REV_BYTES + 1 : REV_BYTES;
}

export function encodeRevisionKey(r: RevisionRecord): Uint8Array {
  const out = new Uint8Array(revisionKeySize(r));
  writeRevisionKey(r, out, 0);
  return out;
}

/** Writes the revision key at `pos`; returns the position after it. */
export function writeRevisionKey(r: RevisionRecord, out: Uint8Array, pos: number): number {
  pos = writeUint64(out, pos, r.main);
  out[pos++] = 0x5f; // '_'
  pos = writeUint64(out, pos, r.sub);
  if (isTombstone(r)) out[pos++] = 0x74; // 't'
  return pos;
}

/** Big-endian uint64 of a safe integer, without BigInt. */
function writeUint64(out: Uint8Array, pos: number, v: number): number {
  const hi = Math.floor(v / 0x100000000);
  const lo = v >>> 0;
  out[pos] = hi >>> 24;
  out[pos + 1] = (hi >>> 16) & 0xff;
  out[pos + 2] = (hi >>> 8) & 0xff;
  out[pos + 3] = hi & 0xff;
  out[pos + 4] = lo >>> 24;
  out[pos + 5] = (lo >>> 16) & 0xff;
  out[pos + 6] = (lo >>> 8) & 0xff;
  out[pos + 7] = lo & 0xff;
  return pos + 8;
}

/** Size of the marshalled mvccpb.KeyValue of a record. */
export function keyValueSize(r: RevisionRecord): number {
  const key = r.index.bytes.length;
  let n = 1 + varintSize(key) + key;
  if (isTombstone(r)) return n; // a tombstone stores KeyValue{Key} only
  if (r.create !== 0) n += 1 + varintSize(r.create);
  if (r.main !== 0) n += 1 + varintSize(r.main);
  if (r.version !== 0) n += 1 + varintSize(r.version);
  if (r.value.length !== 0) n += 1 + varintSize(r.value.length) + r.value.length;
  if (r.lease !== 0n) n += 1 + bigVarintSize(r.lease);
  return n;
}

/** The record's stored size: revision key plus marshalled value. */
export function recordSize(r: RevisionRecord): number {
  return revisionKeySize(r) + keyValueSize(r);
}

export function encodeKeyValue(r: RevisionRecord): Uint8Array {
  const out = new Uint8Array(keyValueSize(r));
  writeKeyValue(r, out, 0);
  return out;
}

/** Writes the marshalled KeyValue at `pos` (out must have keyValueSize(r) room); returns the position after it. */
export function writeKeyValue(r: RevisionRecord, out: Uint8Array, pos: number): number {
  const tag = (field: number, wire: number) => {
    out[pos++] = (field << 3) | wire;
  };
  const varint = (v: number) => {
    while (v >= 0x80) {
      out[pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    out[pos++] = v;
  };
  const bytes = (b: Uint8Array) => {
    varint(b.length);
    if (b.length <= 32) for (let i = 0; i < b.length; i++) out[pos++] = b[i]!;
    else {
      out.set(b, pos);
      pos += b.length;
    }
  };
  tag(1, 2);
  bytes(r.index.bytes);
  if (isTombstone(r)) return pos;
  if (r.create !== 0) (tag(2, 0), varint(r.create));
  if (r.main !== 0) (tag(3, 0), varint(r.main));
  if (r.version !== 0) (tag(4, 0), varint(r.version));
  if (r.value.length !== 0) (tag(5, 2), bytes(r.value));
  if (r.lease !== 0n) {
    tag(6, 0);
    let v = BigInt.asUintN(64, r.lease); // int64 varint: negatives take 10 bytes
    while (v >= 0x80n) {
      out[pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    out[pos++] = Number(v);
  }
  return pos;
}

export function varintSize(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 0x80);
    n++;
  }
  return n;
}

function bigVarintSize(v: bigint): number {
  let u = BigInt.asUintN(64, v);
  let n = 1;
  while (u >= 0x80n) {
    u >>= 7n;
    n++;
  }
  return n;
}

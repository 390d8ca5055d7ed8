// bbolt v1.3.6's on-disk structures (etcd-io/bbolt page.go, db.go meta,
// bucket.go bucket header), shared by the reader and the writer. All integers
// are little-endian.
//
//   page header (16 bytes): id u64 | flags u16 | count u16 | overflow u32
//     a page of `overflow` extra pages spans 4096·(1 + overflow) bytes
//   leaf element (16 bytes):   flags u32 (1 = bucket) | pos u32 | ksize u32 | vsize u32
//   branch element (16 bytes): pos u32 | ksize u32 | pgid u64
//     pos counts from the element's own first byte; the key (and a leaf's
//     value right after it) lie in the page's data area after all elements
//   meta (at offset 16 of pages 0 and 1): magic u32 | version u32 |
//     pageSize u32 | flags u32 | root bucket {root u64, sequence u64} |
//     freelist u64 | pgid u64 (high-water mark) | txid u64 |
//     checksum u64 = FNV-1a 64 of the 56 bytes before it
//   bucket value (16 bytes): root u64 | sequence u64; root 0 means an inline
//     bucket whose leaf page (id 0) follows the header inside the value
//   freelist page: count ids u64 after the header (count 0xFFFF: the first
//     u64 is the real count)

export const PAGE_SIZE = 4096;
export const PAGE_HEADER_SIZE = 16;
export const ELEMENT_SIZE = 16;
export const BUCKET_HEADER_SIZE = 16;
export const META_SIZE = 64;

export const BRANCH_PAGE = 0x01;
export const LEAF_PAGE = 0x02;
export const META_PAGE = 0x04;
export const FREELIST_PAGE = 0x10;

/** Leaf element flag: the value is a nested bucket. */
export const BUCKET_LEAF = 0x01;

export const MAGIC = 0xed0cdaed;
export const VERSION = 2;

/** bbolt's maxInlineBucketSize: a bucket no larger than a quarter page, with no nested buckets, is stored inline. */
export const MAX_INLINE_BUCKET_SIZE = PAGE_SIZE / 4;

export interface Meta {
  magic: number;
  version: number;
  pageSize: number;
  flags: number;
  root: bigint;
  sequence: bigint;
  freelist: bigint;
  pgid: bigint;
  txid: bigint;
  checksum: bigint;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const U64 = (1n << 64n) - 1n;

/** FNV-1a 64 (Go's hash/fnv New64a), the meta page checksum. */
export function fnv64a(b: Uint8Array): bigint {
  let h = FNV_OFFSET;
  for (let i = 0; i < b.length; i++) h = ((h ^ BigInt(b[i]!)) * FNV_PRIME) & U64;
  return h;
}

export function readMeta(buf: Buffer, pageOffset: number): Meta {
  const o = pageOffset + PAGE_HEADER_SIZE;
  return {
    magic: buf.readUInt32LE(o),
    version: buf.readUInt32LE(o + 4),
    pageSize: buf.readUInt32LE(o + 8),
    flags: buf.readUInt32LE(o + 12),
    root: buf.readBigUInt64LE(o + 16),
    sequence: buf.readBigUInt64LE(o + 24),
    freelist: buf.readBigUInt64LE(o + 32),
    pgid: buf.readBigUInt64LE(o + 40),
    txid: buf.readBigUInt64LE(o + 48),
    checksum: buf.readBigUInt64LE(o + 56),
  };
}

/** Writes a meta page (header and meta with its checksum) at page `id`. */
export function writeMetaPage(buf: Buffer, id: number, m: Omit<Meta, 'checksum' | 'magic' | 'version' | 'pageSize' | 'flags'>): void {
  const p = id * PAGE_SIZE;
  writePageHeader(buf, p, id, META_PAGE, 0, 0);
  const o = p + PAGE_HEADER_SIZE;
  buf.writeUInt32LE(MAGIC, o);
  buf.writeUInt32LE(VERSION, o + 4);
  buf.writeUInt32LE(PAGE_SIZE, o + 8);
  buf.writeUInt32LE(0, o + 12);
  buf.writeBigUInt64LE(m.root, o + 16);
  buf.writeBigUInt64LE(m.sequence, o + 24);
  buf.writeBigUInt64LE(m.freelist, o + 32);
  buf.writeBigUInt64LE(m.pgid, o + 40);
  buf.writeBigUInt64LE(m.txid, o + 48);
  buf.writeBigUInt64LE(fnv64a(buf.subarray(o, o + 56)), o + 56);
}

export function writePageHeader(buf: Buffer, off: number, id: number, flags: number, count: number, overflow: number): void {
  buf.writeUInt32LE(id >>> 0, off);
  buf.writeUInt32LE(Math.floor(id / 0x100000000), off + 4);
  buf.writeUInt16LE(flags, off + 8);
  buf.writeUInt16LE(count, off + 10);
  buf.writeUInt32LE(overflow, off + 12);
}

/** A u64 that must fit a JS number (page ids, sizes). */
export function readU64(buf: Buffer, off: number): number {
  const hi = buf.readUInt32LE(off + 4);
  if (hi >= 0x200000) throw new Error(`bbolt: 64-bit value at ${off} out of range`);
  return hi * 0x100000000 + buf.readUInt32LE(off);
}

export function writeU64(buf: Buffer, off: number, v: number): void {
  buf.writeUInt32LE(v >>> 0, off);
  buf.writeUInt32LE(Math.floor(v / 0x100000000), off + 4);
}

export function pageTypeName(flags: number): string {
  if (flags & BRANCH_PAGE) return 'branch';
  if (flags & LEAF_PAGE) return 'leaf';
  if (flags & META_PAGE) return 'meta';
  if (flags & FREELIST_PAGE) return 'freelist';
  return `unknown<${flags.toString(16).padStart(2, '0')}>`;
}

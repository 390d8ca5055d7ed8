// Writes a compact bbolt v1.3.6 database from sorted bucket contents, in one
// pass straight into one buffer (the layout is in ./page.ts):
//
//   page 0, 1   meta (txids 2 and 3, otherwise equal)
//   page 2      the freelist, empty: every page is in use
//   page 3…     each bucket's leaf pages in key order, then its branch
//               levels up to one root page; nested buckets before the
//               bucket holding them; the root bucket (the bucket names) last
//
// Leaf pages are filled to the byte: a leaf closes at a page boundary when
// the next element would not fit and less than an eighth of the page is
// left; otherwise the element is added and the leaf runs on into overflow
// pages (up to 16 pages), so large values waste little. bbolt reads any node
// size and re-splits nodes when it writes to them. A bucket whose page would
// be at most a quarter page, with no nested buckets, is stored inline in its
// parent's value, as bbolt stores it.

import {
  BRANCH_PAGE,
  BUCKET_HEADER_SIZE,
  BUCKET_LEAF,
  ELEMENT_SIZE,
  FREELIST_PAGE,
  LEAF_PAGE,
  MAX_INLINE_BUCKET_SIZE,
  PAGE_HEADER_SIZE,
  PAGE_SIZE,
  writeMetaPage,
  writePageHeader,
  writeU64,
} from './page';

/** A bucket's entries in ascending key order, written into pages without materialising them. */
export interface EntrySource {
  readonly length: number;
  keySize(i: number): number;
  valueSize(i: number): number;
  writeKey(i: number, out: Buffer, pos: number): void;
  writeValue(i: number, out: Buffer, pos: number): void;
  /** True when entry i is a nested bucket (its value is a bucket value). */
  isBucket?(i: number): boolean;
}

/** A bucket: plain entries (ascending keys; a BucketSpec value is a nested bucket), or a source for large ones. */
export type BucketSpec = { entries: [Uint8Array, Uint8Array | BucketSpec][] } | { source: EntrySource };

export interface WriteOptions {
  /** Expected file size, to allocate once. */
  sizeHint?: number;
}

const FIRST_DATA_PAGE = 3;
const MAX_NODE_PAGES = 16;
const MIN_WASTE = PAGE_SIZE / 8;

class Pages {
  buf: Buffer;
  next = FIRST_DATA_PAGE;

  constructor(hint: number) {
    this.buf = Buffer.allocUnsafe(Math.max(hint, 64 * PAGE_SIZE));
    this.buf.fill(0, 0, FIRST_DATA_PAGE * PAGE_SIZE);
  }

  /** Allocates n consecutive pages; returns the first id. */
  alloc(n: number): number {
    const id = this.next;
    this.next += n;
    const need = this.next * PAGE_SIZE;
    if (need > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, Math.floor(this.buf.length * 1.5)));
      this.buf.copy(grown, 0, 0, id * PAGE_SIZE);
      this.buf = grown;
    }
    return id;
  }
}

interface ChildRef {
  key: Buffer;
  pgid: number;
}

/** The database file for a root bucket whose entries are all buckets. */
export function writeBolt(root: { entries: [Uint8Array, BucketSpec][] }, opts: WriteOptions = {}): Buffer {
  const w = new Pages(opts.sizeHint ?? 0);
  writePageHeader(w.buf, 2 * PAGE_SIZE, 2, FREELIST_PAGE, 0, 0);
  const rootPgid = writeTree(w, toSource(w, root));
  const pgid = w.next;
  for (const id of [0, 1]) {
    writeMetaPage(w.buf, id, { root: BigInt(rootPgid), sequence: 0n, freelist: 2n, pgid: BigInt(pgid), txid: BigInt(2 + id) });
  }
  return w.buf.subarray(0, pgid * PAGE_SIZE);
}

/** Writes nested buckets first, then gives the bucket's entries as a source. */
function toSource(w: Pages, spec: BucketSpec): EntrySource {
  if ('source' in spec) return spec.source;
  const keys = spec.entries.map(([k]) => k);
  const values: Uint8Array[] = [];
  const buckets: boolean[] = [];
  for (const [, v] of spec.entries) {
    const nested = !(v instanceof Uint8Array);
    buckets.push(nested);
    values.push(nested ? bucketValue(w, v) : v);
  }
  return {
    length: keys.length,
    keySize: (i) => keys[i]!.length,
    valueSize: (i) => values[i]!.length,
    writeKey: (i, out, pos) => out.set(keys[i]!, pos),
    writeValue: (i, out, pos) => out.set(values[i]!, pos),
    isBucket: (i) => buckets[i]!,
  };
}

/** A nested bucket's value in its parent: the bucket header, and its leaf page when inline. */
function bucketValue(w: Pages, spec: BucketSpec): Buffer {
  const src = toSource(w, spec);
  let size = PAGE_HEADER_SIZE;
  let inline = true;
  for (let i = 0; i < src.length && inline; i++) {
    size += ELEMENT_SIZE + src.keySize(i) + src.valueSize(i);
    if (size > MAX_INLINE_BUCKET_SIZE || src.isBucket?.(i)) inline = false;
  }
  if (!inline) {
    const value = Buffer.alloc(BUCKET_HEADER_SIZE);
    writeU64(value, 0, writeTree(w, src));
    return value;
  }
  const value = Buffer.alloc(BUCKET_HEADER_SIZE + size);
  writeLeaf(value, BUCKET_HEADER_SIZE, 0, src, 0, src.length, 0);
  return value;
}

/** Writes a bucket's pages; returns its root page id. */
function writeTree(w: Pages, src: EntrySource): number {
  let level = writeLeaves(w, src);
  while (level.length > 1) level = writeBranches(w, level);
  return level[0]!.pgid;
}

function writeLeaves(w: Pages, src: EntrySource): ChildRef[] {
  const out: ChildRef[] = [];
  const flush = (start: number, end: number, size: number) => {
    const pages = Math.max(1, Math.ceil(size / PAGE_SIZE));
    const id = w.alloc(pages);
    const off = id * PAGE_SIZE;
    const dataEnd = writeLeaf(w.buf, off, id, src, start, end, pages - 1);
    w.buf.fill(0, dataEnd, off + pages * PAGE_SIZE);
    const k = off + PAGE_HEADER_SIZE + (end - start) * ELEMENT_SIZE;
    out.push({ key: Buffer.from(w.buf.subarray(k, k + (end > start ? src.keySize(start) : 0))), pgid: id });
  };
  let start = 0;
  let size = PAGE_HEADER_SIZE;
  for (let i = 0; i < src.length; i++) {
    const s = ELEMENT_SIZE + src.keySize(i) + src.valueSize(i);
    if (i > start) {
      const pages = Math.ceil(size / PAGE_SIZE);
      const room = pages * PAGE_SIZE;
      if (size + s > room && (room - size <= MIN_WASTE || pages >= MAX_NODE_PAGES || size + s > MAX_NODE_PAGES * PAGE_SIZE)) {
        flush(start, i, size);
        start = i;
        size = PAGE_HEADER_SIZE;
      }
    }
    size += s;
  }
  flush(start, src.length, size);
  return out;
}

/** Writes entries [start, end) as one leaf page at `off`; returns the end of its data. */
function writeLeaf(buf: Buffer, off: number, id: number, src: EntrySource, start: number, end: number, overflow: number): number {
  const count = end - start;
  if (count > 0xffff) throw new Error(`bbolt writer: ${count} elements do not fit one page`);
  writePageHeader(buf, off, id, LEAF_PAGE, count, overflow);
  let data = off + PAGE_HEADER_SIZE + count * ELEMENT_SIZE;
  for (let i = start; i < end; i++) {
    const e = off + PAGE_HEADER_SIZE + (i - start) * ELEMENT_SIZE;
    const ks = src.keySize(i);
    const vs = src.valueSize(i);
    buf.writeUInt32LE(src.isBucket?.(i) ? BUCKET_LEAF : 0, e);
    buf.writeUInt32LE(data - e, e + 4);
    buf.writeUInt32LE(ks, e + 8);
    buf.writeUInt32LE(vs, e + 12);
    src.writeKey(i, buf, data);
    data += ks;
    src.writeValue(i, buf, data);
    data += vs;
  }
  return data;
}

function writeBranches(w: Pages, children: ChildRef[]): ChildRef[] {
  const out: ChildRef[] = [];
  let start = 0;
  let size = PAGE_HEADER_SIZE;
  const flush = (end: number) => {
    const pages = Math.max(1, Math.ceil(size / PAGE_SIZE));
    const id = w.alloc(pages);
    const off = id * PAGE_SIZE;
    const buf = w.buf;
    writePageHeader(buf, off, id, BRANCH_PAGE, end - start, pages - 1);
    let data = off + PAGE_HEADER_SIZE + (end - start) * ELEMENT_SIZE;
    for (let i = start; i < end; i++) {
      const e = off + PAGE_HEADER_SIZE + (i - start) * ELEMENT_SIZE;
      const c = children[i]!;
      buf.writeUInt32LE(data - e, e);
      buf.writeUInt32LE(c.key.length, e + 4);
      writeU64(buf, e + 8, c.pgid);
      c.key.copy(buf, data);
      data += c.key.length;
    }
    buf.fill(0, data, off + pages * PAGE_SIZE);
    out.push({ key: children[start]!.key, pgid: id });
  };
  for (let i = 0; i < children.length; i++) {
    const s = ELEMENT_SIZE + children[i]!.key.length;
    if (i > start && size + s > PAGE_SIZE) {
      flush(i);
      start = i;
      size = PAGE_HEADER_SIZE;
    }
    size += s;
  }
  flush(children.length);
  return out;
}

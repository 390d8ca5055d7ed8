// Writes a compact bbolt v1.3.6 database from sorted bucket contents (the
// layout is in ./page.ts). Two steps: planBolt decides every node's pages from
// the entries' sizes alone (and writes the few small values that must exist
// first: inline buckets, branch keys), then the plan's bytes are written
// either into one buffer (writeBolt) or page run by page run into fixed-size
// chunks (BoltPlan.chunks), so that a large database streams without ever
// being held whole:
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

/** The root bucket: its entries are all buckets. */
export type RootSpec = { entries: [Uint8Array, BucketSpec][] };

const FIRST_DATA_PAGE = 3;
const MAX_NODE_PAGES = 16;
const MIN_WASTE = PAGE_SIZE / 8;

interface ChildRef {
  key: Buffer;
  pgid: number;
}

/** One node: `pages` pages from page `id`, holding entries [start, end) of a bucket, or branch elements for children. */
type NodeOp =
  | { id: number; pages: number; src: EntrySource; start: number; end: number }
  | { id: number; pages: number; children: ChildRef[]; start: number; end: number };

/** Where every page of the database goes; the sources are read again when the bytes are written. */
export class BoltPlan {
  /** @internal */
  readonly ops: NodeOp[] = [];
  /** @internal */
  next = FIRST_DATA_PAGE;
  /** @internal */
  rootPgid = 0;

  /** The file's size in bytes (the high-water mark). */
  get size(): number {
    return this.next * PAGE_SIZE;
  }

  /** @internal */
  alloc(n: number): number {
    const id = this.next;
    this.next += n;
    return id;
  }

  /** The whole file in one buffer. */
  toBuffer(): Buffer {
    const buf = Buffer.allocUnsafe(this.size);
    this.writeHead(buf, 0);
    for (const op of this.ops) writeNode(op, buf, op.id * PAGE_SIZE);
    return buf;
  }

  /** The file in order, as fresh buffers of `chunkBytes` (a multiple of the page size; the last one holds the rest). */
  *chunks(chunkBytes: number): Generator<Buffer> {
    if (chunkBytes <= 0 || chunkBytes % PAGE_SIZE !== 0) throw new Error('bbolt writer: chunk size must be a multiple of the page size');
    const size = this.size;
    let done = 0; // bytes in chunks already yielded
    let chunk = Buffer.allocUnsafe(Math.min(chunkBytes, size));
    let used = 0;
    const pieces: [bytes: number, write: (buf: Buffer, off: number) => void][] = [
      [FIRST_DATA_PAGE * PAGE_SIZE, (buf, off) => this.writeHead(buf, off)],
      ...this.ops.map((op): [number, (buf: Buffer, off: number) => void] => [op.pages * PAGE_SIZE, (buf, off) => writeNode(op, buf, off)]),
    ];
    for (const [bytes, write] of pieces) {
      if (used + bytes <= chunk.length) {
        write(chunk, used);
        used += bytes;
      } else {
        // a node that straddles chunks is written aside, then copied across
        const node = Buffer.allocUnsafe(bytes);
        write(node, 0);
        for (let from = 0; from < bytes; ) {
          const n = Math.min(bytes - from, chunk.length - used);
          node.copy(chunk, used, from, from + n);
          from += n;
          used += n;
          if (used === chunk.length && from < bytes) {
            yield chunk;
            done += chunk.length;
            chunk = Buffer.allocUnsafe(Math.min(chunkBytes, size - done));
            used = 0;
          }
        }
      }
      if (used === chunk.length) {
        yield chunk;
        done += chunk.length;
        if (done === size) return;
        chunk = Buffer.allocUnsafe(Math.min(chunkBytes, size - done));
        used = 0;
      }
    }
  }

  /** Meta pages 0 and 1, and the empty freelist page 2. */
  private writeHead(buf: Buffer, off: number): void {
    buf.fill(0, off, off + FIRST_DATA_PAGE * PAGE_SIZE);
    writePageHeader(buf, off + 2 * PAGE_SIZE, 2, FREELIST_PAGE, 0, 0);
    const meta = { root: BigInt(this.rootPgid), sequence: 0n, freelist: 2n, pgid: BigInt(this.next) };
    const view = off === 0 ? buf : buf.subarray(off);
    for (const id of [0, 1]) writeMetaPage(view, id, { ...meta, txid: BigInt(2 + id) });
  }
}

/** Plans the database file for a root bucket. */
export function planBolt(root: RootSpec): BoltPlan {
  const plan = new BoltPlan();
  plan.rootPgid = planTree(plan, toSource(plan, root));
  return plan;
}

/** The database file in one buffer. */
export function writeBolt(root: RootSpec): Buffer {
  return planBolt(root).toBuffer();
}

/** Plans nested buckets first, then gives the bucket's entries as a source. */
function toSource(plan: BoltPlan, spec: BucketSpec): EntrySource {
  if ('source' in spec) return spec.source;
  const keys = spec.entries.map(([k]) => k);
  const values: Uint8Array[] = [];
  const buckets: boolean[] = [];
  for (const [, v] of spec.entries) {
    const nested = !(v instanceof Uint8Array);
    buckets.push(nested);
    values.push(nested ? bucketValue(plan, v) : v);
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
function bucketValue(plan: BoltPlan, spec: BucketSpec): Buffer {
  const src = toSource(plan, spec);
  let size = PAGE_HEADER_SIZE;
  let inline = true;
  for (let i = 0; i < src.length && inline; i++) {
    size += ELEMENT_SIZE + src.keySize(i) + src.valueSize(i);
    if (size > MAX_INLINE_BUCKET_SIZE || src.isBucket?.(i)) inline = false;
  }
  if (!inline) {
    const value = Buffer.alloc(BUCKET_HEADER_SIZE);
    writeU64(value, 0, planTree(plan, src));
    return value;
  }
  const value = Buffer.alloc(BUCKET_HEADER_SIZE + size);
  writeLeaf(value, BUCKET_HEADER_SIZE, 0, src, 0, src.length, 0);
  return value;
}

/** Plans a bucket's pages; returns its root page id. */
function planTree(plan: BoltPlan, src: EntrySource): number {
  let level = planLeaves(plan, src);
  while (level.length > 1) level = planBranches(plan, level);
  return level[0]!.pgid;
}

function planLeaves(plan: BoltPlan, src: EntrySource): ChildRef[] {
  const out: ChildRef[] = [];
  const flush = (start: number, end: number, size: number) => {
    const pages = Math.max(1, Math.ceil(size / PAGE_SIZE));
    const id = plan.alloc(pages);
    plan.ops.push({ id, pages, src, start, end });
    const key = Buffer.allocUnsafe(end > start ? src.keySize(start) : 0);
    if (end > start) src.writeKey(start, key, 0);
    out.push({ key, pgid: id });
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

function planBranches(plan: BoltPlan, children: ChildRef[]): ChildRef[] {
  const out: ChildRef[] = [];
  let start = 0;
  let size = PAGE_HEADER_SIZE;
  const flush = (end: number) => {
    const pages = Math.max(1, Math.ceil(size / PAGE_SIZE));
    const id = plan.alloc(pages);
    plan.ops.push({ id, pages, children, start, end });
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

/** Writes one planned node (its pages, zero-filled past its data) at `off`. */
function writeNode(op: NodeOp, buf: Buffer, off: number): void {
  const end = 'src' in op ? writeLeaf(buf, off, op.id, op.src, op.start, op.end, op.pages - 1) : writeBranch(buf, off, op);
  buf.fill(0, end, off + op.pages * PAGE_SIZE);
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

function writeBranch(buf: Buffer, off: number, op: { id: number; pages: number; children: ChildRef[]; start: number; end: number }): number {
  writePageHeader(buf, off, op.id, BRANCH_PAGE, op.end - op.start, op.pages - 1);
  let data = off + PAGE_HEADER_SIZE + (op.end - op.start) * ELEMENT_SIZE;
  for (let i = op.start; i < op.end; i++) {
    const e = off + PAGE_HEADER_SIZE + (i - op.start) * ELEMENT_SIZE;
    const c = op.children[i]!;
    buf.writeUInt32LE(data - e, e);
    buf.writeUInt32LE(c.key.length, e + 4);
    writeU64(buf, e + 8, c.pgid);
    c.key.copy(buf, data);
    data += c.key.length;
  }
  return data;
}

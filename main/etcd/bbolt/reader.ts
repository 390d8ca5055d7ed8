// Reads a bbolt v1.3.6 database held in memory (a snapshot file): picks the
// valid meta page with the higher txid as bbolt's Open does, walks buckets
// (nested and inline ones too) in key order, and checks the file as
// tx.Check() does, so that a corrupt file is refused with bbolt's own wording
// rather than read as garbage. The layout is in ./page.ts.

import {
  BRANCH_PAGE,
  BUCKET_HEADER_SIZE,
  BUCKET_LEAF,
  ELEMENT_SIZE,
  FREELIST_PAGE,
  LEAF_PAGE,
  MAGIC,
  META_SIZE,
  PAGE_HEADER_SIZE,
  PAGE_SIZE,
  VERSION,
  fnv64a,
  pageTypeName,
  readMeta,
  readU64,
  type Meta,
} from './page';

const NO_FREELIST = 0xffffffffffffffffn;

/** A page: where its header starts in `buf`, and where its bytes end. */
interface PageRef {
  buf: Buffer;
  off: number;
  end: number;
  id: number;
  flags: number;
  count: number;
  overflow: number;
}

/** One leaf entry; `value` of a nested bucket is its bucket header (and inline page). */
export interface BoltEntry {
  key: Buffer;
  value: Buffer;
  isBucket: boolean;
}

export class BoltDb {
  readonly meta: Meta;
  readonly root: BoltBucket;
  private readonly buf: Buffer;

  private constructor(buf: Buffer, meta: Meta) {
    this.buf = buf;
    this.meta = meta;
    this.root = new BoltBucket(this, Number(meta.root), undefined);
  }

  /** Opens a database image (extra bytes after it, such as etcd's sha256 trailer, are ignored). */
  static open(file: Uint8Array): BoltDb {
    const buf = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
    if (buf.length < 2 * PAGE_SIZE) throw new Error(`bbolt: file size too small (${buf.length} bytes)`);
    const metas = [0, 1].map((i) => ({ m: readMeta(buf, i * PAGE_SIZE), err: validateMeta(buf, i) }));
    const ok = metas.filter((x) => x.err === undefined).map((x) => x.m);
    if (ok.length === 0) throw new Error(`bbolt: ${metas[0]!.err}`);
    const meta = ok.reduce((a, b) => (b.txid > a.txid ? b : a));
    if (meta.pageSize !== PAGE_SIZE) throw new Error(`bbolt: unsupported page size ${meta.pageSize}`);
    if (Number(meta.pgid) * PAGE_SIZE > buf.length) {
      throw new Error(`bbolt: file size too small: ${buf.length} bytes for ${meta.pgid} pages`);
    }
    return new BoltDb(buf, meta);
  }

  /** tx.Size(): the high-water mark in bytes. */
  get size(): number {
    return Number(this.meta.pgid) * PAGE_SIZE;
  }

  /** @internal a page of the file, bounds-checked. */
  page(id: number): PageRef {
    const hw = Number(this.meta.pgid);
    if (id >= hw) throw new Error(`bbolt: page ${id}: out of bounds: ${hw}`);
    const off = id * PAGE_SIZE;
    const overflow = this.buf.readUInt32LE(off + 12);
    if (id + overflow >= hw) throw new Error(`bbolt: page ${id}: overflow ${overflow} past high-water mark ${hw}`);
    const p = pageAt(this.buf, off, off + (1 + overflow) * PAGE_SIZE, id);
    if (p.id !== id) throw new Error(`bbolt: page ${id}: header says page ${p.id}`);
    return p;
  }

  /** Page ids on the freelist (tx.Check's "freed"). */
  freePages(): number[] {
    if (this.meta.freelist === NO_FREELIST) return [];
    const p = this.page(Number(this.meta.freelist));
    if (!(p.flags & FREELIST_PAGE)) throw new Error(`bbolt: page ${p.id}: invalid freelist page type: ${pageTypeName(p.flags)}`);
    let n = p.count;
    let at = p.off + PAGE_HEADER_SIZE;
    if (n === 0xffff) {
      n = readU64(p.buf, at);
      at += 8;
    }
    if (at + n * 8 > p.end) throw new Error(`bbolt: page ${p.id}: freelist overruns its page`);
    const ids: number[] = new Array(n);
    for (let i = 0; i < n; i++) ids[i] = readU64(p.buf, at + i * 8);
    return ids;
  }

  /**
   * tx.Check(): every page below the high-water mark is reachable exactly once
   * or free, reachable pages are branch or leaf pages, and (beyond bbolt 1.3.6)
   * keys ascend within each bucket. Returns the errors, bbolt's wording.
   */
  check(): string[] {
    const errors: string[] = [];
    const hw = Number(this.meta.pgid);
    const freed = new Set<number>();
    let free: number[] = [];
    try {
      free = this.freePages();
    } catch (err) {
      errors.push((err as Error).message.replace(/^bbolt: /, ''));
    }
    for (const id of free) {
      if (freed.has(id)) errors.push(`page ${id}: already freed`);
      freed.add(id);
    }
    const reachable = new Set<number>([0, 1]);
    if (this.meta.freelist !== NO_FREELIST && errors.length === 0) {
      const fl = this.page(Number(this.meta.freelist));
      for (let i = 0; i <= fl.overflow; i++) reachable.add(fl.id + i);
    }
    const visit = (b: BoltBucket): void => {
      if (b.rootPgid === 0) return; // inline buckets use no pages
      const walk = (id: number): void => {
        if (id >= hw) {
          errors.push(`page ${id}: out of bounds: ${hw}`);
          return;
        }
        let p: PageRef;
        try {
          p = this.page(id);
        } catch (err) {
          errors.push((err as Error).message.replace(/^bbolt: /, ''));
          return;
        }
        for (let i = 0; i <= p.overflow; i++) {
          if (reachable.has(id + i)) errors.push(`page ${id + i}: multiple references`);
          reachable.add(id + i);
        }
        if (freed.has(id)) errors.push(`page ${id}: reachable freed`);
        else if (!(p.flags & BRANCH_PAGE) && !(p.flags & LEAF_PAGE)) errors.push(`page ${id}: invalid type: ${pageTypeName(p.flags)}`);
        else if (p.flags & BRANCH_PAGE) for (let i = 0; i < p.count; i++) walk(branchChild(p, i));
      };
      walk(b.rootPgid);
    };
    const checkBucket = (b: BoltBucket): void => {
      visit(b);
      let prev: Buffer | undefined;
      try {
        b.forEach((e) => {
          if (prev !== undefined && Buffer.compare(prev, e.key) >= 0) throw new Error(`keys out of order in bucket at page ${b.rootPgid}`);
          prev = e.key;
          if (e.isBucket) checkBucket(b.childBucket(e.value));
        });
      } catch (err) {
        errors.push((err as Error).message.replace(/^bbolt: /, ''));
      }
    };
    checkBucket(this.root);
    for (let i = 0; i < hw; i++) {
      if (!reachable.has(i) && !freed.has(i) && this.meta.freelist !== NO_FREELIST) errors.push(`page ${i}: unreachable unfreed`);
    }
    return errors;
  }
}

export class BoltBucket {
  /** @internal */
  constructor(
    private readonly db: BoltDb,
    readonly rootPgid: number,
    private readonly inline: PageRef | undefined,
  ) {}

  /** Every entry in key order. */
  forEach(fn: (e: BoltEntry) => void): void {
    const walk = (p: PageRef): void => {
      if (p.flags & LEAF_PAGE) {
        for (let i = 0; i < p.count; i++) fn(leafEntry(p, i));
      } else if (p.flags & BRANCH_PAGE) {
        for (let i = 0; i < p.count; i++) walk(this.db.page(branchChild(p, i)));
      } else {
        throw new Error(`bbolt: page ${p.id}: invalid type: ${pageTypeName(p.flags)}`);
      }
    };
    walk(this.inline ?? this.db.page(this.rootPgid));
  }

  /** The nested bucket named `name`, or undefined. */
  bucket(name: string | Uint8Array): BoltBucket | undefined {
    const key = typeof name === 'string' ? Buffer.from(name) : name;
    let found: BoltBucket | undefined;
    this.forEach((e) => {
      if (found === undefined && e.isBucket && Buffer.compare(e.key, key) === 0) found = this.childBucket(e.value);
    });
    return found;
  }

  /** The nested bucket stored in a bucket entry's value. */
  childBucket(value: Buffer): BoltBucket {
    if (value.length < BUCKET_HEADER_SIZE) throw new Error('bbolt: bucket value too short');
    const root = readU64(value, 0);
    if (root !== 0) return new BoltBucket(this.db, root, undefined);
    const p = pageAt(value, BUCKET_HEADER_SIZE, value.length, 0);
    if (!(p.flags & LEAF_PAGE)) throw new Error('bbolt: inline bucket is not a leaf page');
    return new BoltBucket(this.db, 0, p);
  }
}

function validateMeta(buf: Buffer, i: number): string | undefined {
  const m = readMeta(buf, i * PAGE_SIZE);
  if (m.magic !== MAGIC) return 'invalid database';
  if (m.version !== VERSION) return 'version mismatch';
  const o = i * PAGE_SIZE + PAGE_HEADER_SIZE;
  if (fnv64a(buf.subarray(o, o + META_SIZE - 8)) !== m.checksum) return 'checksum error';
  return undefined;
}

function pageAt(buf: Buffer, off: number, end: number, id: number): PageRef {
  if (off + PAGE_HEADER_SIZE > end) throw new Error(`bbolt: page ${id}: truncated`);
  const p: PageRef = {
    buf,
    off,
    end,
    id: readU64(buf, off),
    flags: buf.readUInt16LE(off + 8),
    count: buf.readUInt16LE(off + 10),
    overflow: buf.readUInt32LE(off + 12),
  };
  if (off + PAGE_HEADER_SIZE + p.count * ELEMENT_SIZE > end) throw new Error(`bbolt: page ${id}: ${p.count} elements overrun the page`);
  return p;
}

function leafEntry(p: PageRef, i: number): BoltEntry {
  const e = p.off + PAGE_HEADER_SIZE + i * ELEMENT_SIZE;
  const b = p.buf;
  const flags = b.readUInt32LE(e);
  const k = e + b.readUInt32LE(e + 4);
  const ksize = b.readUInt32LE(e + 8);
  const vsize = b.readUInt32LE(e + 12);
  if (k + ksize + vsize > p.end) throw new Error(`bbolt: page ${p.id}: element ${i} overruns the page`);
  return { key: b.subarray(k, k + ksize), value: b.subarray(k + ksize, k + ksize + vsize), isBucket: (flags & BUCKET_LEAF) !== 0 };
}

function branchChild(p: PageRef, i: number): number {
  return readU64(p.buf, p.off + PAGE_HEADER_SIZE + i * ELEMENT_SIZE + 8);
}

// The write-ahead log: Raft's entries and hard state, made durable before the
// member acknowledges anything. Modelled on etcd's wal package (wal/doc.go);
// the byte encoding is our own and more compact, the layout and the recovery
// rules are etcd's.
//
// # Files
//
// A WAL is a directory (`<data-dir>/member/wal`) of segments named
// `%016x-%016x.wal` = `<seq>-<index>`: seq counts segments from 0 without
// gaps; index is the first entry index the segment may hold (the last index
// + 1 when it was cut). A segment is preallocated to 64 MiB (of zeros, except
// the first, which is sparse), so appends never change the file size and
// fdatasync flushes data only; when a write takes it past 64 MiB it is
// truncated to its real length and a new one is cut. A spare preallocated
// file is made ready once the current one is half full (pipeline.ts); a cut writes
// the header into it, fsyncs and renames it, so a segment that exists always
// has its complete header.
//
// # Records
//
// Every record is framed as (all integers little-endian):
//
//     u32 length   bytes that follow the crc: 1 (type) + payload length; never 0
//     u32 crc      rolling CRC-32C: crc32c(crc of the previous record, type ‖ payload)
//     u8  type     1 metadata, 2 entry, 3 state, 4 crc, 5 snapshot (etcd's numbers)
//     ...payload
//
// Payloads (u64 = two u32 halves, low first; values stay below 2^53):
//
//     metadata  opaque bytes given to Wal.create (member and cluster id)
//     entry     u64 term, u64 index, u8 entry type, data…
//     state     u64 term, u64 vote (member id), u64 commit
//     snapshot  u64 index, u64 term — "a snapshot at index exists"
//     crc       u32 rolling crc of everything before this segment
//
// The crc chain runs across segments: each segment opens with a crc record
// carrying the previous segment's final value (0 for the first), followed by
// the metadata and then the latest hard state (or, in the first segment, the
// snapshot marker {0,0}). A zero length marks the end of the written data.
//
// # Reading (Wal.open)
//
// Reading starts at the last segment whose index ≤ the snapshot's index and
// runs to the newest. Entries at or below the snapshot are skipped. An entry
// at index i replaces everything read so far at ≥ i: a new leader may have
// overwritten an uncommitted tail. The last state record wins. A non-zero
// snapshot ref must match a snapshot record, or open fails.
//
// A bad record in the final segment that is a torn write (zeros follow it,
// or one of its 512-byte sectors is all zeros) is cut away: the data after it
// is zeroed and appending resumes there. Any other bad record — and any bad
// record in an earlier segment, all of which were fsynced before the next was
// cut — is corruption, reported with the file and offset.

import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import type { Entry, HardState } from '../raft/types';
import {
  BatchEncoder,
  RecordType,
  type WalSnapshotRef,
  decodeCrc,
  decodeEntry,
  decodeSnapshot,
  decodeState,
  isEmptyHardState,
} from './record';
import { SegmentPipeline } from './pipeline';
import { readLog, segmentsFor, type SegmentReads } from './logReader';
import { endOfNonZero } from './reader';
import {
  type SegmentName,
  closeFd,
  fdatasync,
  fsyncDir,
  fsyncFd,
  ftruncate,
  listSegments,
  openFd,
  preallocate,
  segmentName,
  writeAllAt,
  writeAllAtSync,
} from './segment';

export type { WalSnapshotRef } from './record';

export const DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;

export interface WalOptions {
  /** Preallocated size; a segment is cut once a write passes it (default 64 MiB). */
  segmentBytes?: number;
  /** Files validSnapshotRefs read just before, reused by open instead of read again. */
  reads?: SegmentReads;
}

export interface WalContents {
  wal: Wal;
  metadata: Uint8Array;
  hardState: HardState;
  entries: Entry[];
}

const EMPTY_STATE: HardState = { term: 0, vote: 0n, commit: 0 };

export class Wal {
  private chain: Promise<void> = Promise.resolve();
  /** Set by the first failed write: the file's tail is then unknown, so nothing more may be appended. */
  private failure: Error | undefined;
  private closing = false;
  private readonly pipeline: SegmentPipeline;

  private constructor(
    private readonly dir: string,
    private readonly metadata: Uint8Array,
    private readonly segmentBytes: number,
    private segments: SegmentName[],
    private fd: number,
    private offset: number,
    private crc: number,
    private lastIndex: number,
    private hardState: HardState,
  ) {
    this.pipeline = new SegmentPipeline(dir, segmentBytes);
  }

  /**
   * The spare segment is prepared once the current one is half full, not at
   * open: writing its 64 MB of zeros costs a fifth of a second of CPU and
   * disk, which three members starting together would otherwise pay before
   * their first election. Half a segment of appends leaves it ample time.
   */
  private prepareSpareWhenDue(): void {
    if (this.offset >= this.segmentBytes / 2) this.pipeline.start();
  }

  /**
   * The snapshot markers a restart may start from: those at or below the
   * last hard state's commit, plus {0,0} (etcd 3.5's ValidSnapshotEntries).
   * Pair with Snapshotter.loadNewestAvailable so a snapshot file written
   * just before a crash — whose marker never reached the log — is not picked.
   * Read-only: a torn tail is ignored, not repaired.
   */
  static validSnapshotRefs(dir: string, reads?: SegmentReads): WalSnapshotRef[] {
    const { segs } = segmentsFor(dir, Infinity);
    const refs: WalSnapshotRef[] = [];
    let commit = 0;
    readLog(
      dir,
      segs,
      0,
      (r) => {
        if (r.type === RecordType.Snapshot) refs.push(decodeSnapshot(r.payload));
        if (r.type === RecordType.State) commit = decodeState(r.payload).commit;
      },
      reads,
    );
    return refs.filter((ref) => ref.index <= commit || ref.index === 0);
  }

  /** True when `dir` holds at least one segment. */
  static exists(dir: string): boolean {
    return listSegments(dir).length > 0;
  }

  static async create(dir: string, metadata: Uint8Array, opts: WalOptions = {}): Promise<Wal> {
    const segmentBytes = opts.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    const madeDir = !fs.existsSync(dir);
    fs.mkdirSync(dir, { recursive: true });
    if (Wal.exists(dir)) throw new Error(`wal: already exists in ${dir}`);
    removeTmpFiles(dir);
    const seg = { seq: 0, index: 0, name: segmentName(0, 0) };
    const header = new BatchEncoder().crc(0).metadata(metadata).snapshot({ index: 0, term: 0 }).finish(0);
    const fd = await writeFirstSegment(dir, seg.name, header.bytes, segmentBytes);
    if (madeDir) await fsyncDir(dirname(dir));
    const md = new Uint8Array(metadata);
    return new Wal(dir, md, segmentBytes, [seg], fd, header.bytes.length, header.crc, 0, EMPTY_STATE);
  }

  static async open(dir: string, from: WalSnapshotRef, opts: WalOptions = {}): Promise<WalContents> {
    const segmentBytes = opts.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    const { segs, start } = segmentsFor(dir, from.index);
    removeTmpFiles(dir);

    const entries: Entry[] = [];
    let hardState = EMPTY_STATE;
    let metadata: Uint8Array | undefined;
    let matched = from.index === 0;
    const tail = readLog(dir, segs, start, (r) => {
      switch (r.type) {
        case RecordType.Entry: {
          const e = decodeEntry(r.payload);
          if (e.index <= from.index) break;
          const pos = e.index - from.index - 1;
          if (pos > entries.length) throw new Error(`entry ${e.index} leaves a gap after ${from.index + entries.length}`);
          entries.length = pos;
          entries.push(e);
          break;
        }
        case RecordType.State:
          hardState = decodeState(r.payload);
          break;
        case RecordType.Metadata:
          if (metadata && Buffer.compare(metadata, r.payload) !== 0) throw new Error('conflicting metadata found');
          metadata ??= new Uint8Array(r.payload);
          break;
        case RecordType.Snapshot: {
          const snap = decodeSnapshot(r.payload);
          if (snap.index === from.index) {
            if (snap.term !== from.term) throw new Error(`snapshot mismatch: term ${snap.term}, want ${from.term}`);
            matched = true;
          }
          break;
        }
        case RecordType.Crc:
          decodeCrc(r.payload);
          break;
        default:
          throw new Error(`unknown record type ${r.type}`);
      }
    }, opts.reads);
    if (!matched) throw new Error(`wal: snapshot not found: no marker for index ${from.index} term ${from.term}`);
    if (!metadata) throw new Error(`wal: no metadata record in ${dir}`);

    const lastSeg = segs[segs.length - 1];
    const fd = await openFd(join(dir, lastSeg.name), 'r+');
    try {
      await repairTail(fd, tail.buf, tail.end, tail.size, segmentBytes);
    } catch (err) {
      await closeFd(fd);
      throw err;
    }
    const lastIndex = entries.length > 0 ? entries[entries.length - 1].index : from.index;
    const wal = new Wal(dir, metadata, segmentBytes, segs, fd, tail.end, tail.crc, lastIndex, hardState);
    return { wal, metadata, hardState, entries };
  }

  /**
   * Appends `entries`, then `hardState` (skipped when undefined or empty), as
   * one write; fdatasync when `sync`. Resolves once the bytes are durable
   * (sync) or written (no sync). Calls run one at a time, in call order.
   */
  save(hardState: HardState | undefined, entries: Entry[], sync: boolean): Promise<void> {
    return this.enqueue(async () => {
      const enc = new BatchEncoder();
      for (const e of entries) enc.entry(e);
      const withState = hardState !== undefined && !isEmptyHardState(hardState);
      if (withState) enc.state(hardState);
      if (enc.empty) return;
      await this.append(enc, sync);
      if (entries.length > 0) this.lastIndex = entries[entries.length - 1].index;
      if (withState) this.hardState = { ...hardState };
      this.prepareSpareWhenDue();
      if (this.offset >= this.segmentBytes) await this.cut();
    });
  }

  /** Records (fsynced) that a snapshot at `ref` exists, so open(ref) can start there. */
  saveSnapshot(ref: WalSnapshotRef): Promise<void> {
    return this.enqueue(async () => {
      await this.append(new BatchEncoder().snapshot(ref), true);
      if (ref.index > this.lastIndex) this.lastIndex = ref.index;
      this.prepareSpareWhenDue();
      if (this.offset >= this.segmentBytes) await this.cut();
    });
  }

  /**
   * Deletes the segments that can only hold entries below `index`: all those
   * before the last segment whose first index ≤ `index` (etcd's
   * ReleaseLockTo rule). The segment being written is never deleted.
   */
  releaseTo(index: number): Promise<void> {
    return this.enqueue(async () => {
      let keepFrom = 0;
      this.segments.forEach((s, i) => {
        if (s.index <= index) keepFrom = i;
      });
      keepFrom = Math.min(keepFrom, this.segments.length - 1);
      if (keepFrom === 0) return;
      for (const s of this.segments.slice(0, keepFrom)) fs.rmSync(join(this.dir, s.name), { force: true });
      this.segments = this.segments.slice(keepFrom);
      await fsyncDir(this.dir);
    });
  }

  /** Waits for queued writes, syncs and closes. Idempotent. */
  close(): Promise<void> {
    if (this.closing) return this.chain;
    const done = this.enqueue(async () => {
      await this.pipeline.close();
      await fdatasync(this.fd);
      await closeFd(this.fd);
    });
    this.closing = true;
    return done;
  }

  /** Index of the last entry appended (or of the snapshot marker, if later). */
  get lastEntryIndex(): number {
    return this.lastIndex;
  }

  private enqueue(op: () => Promise<void>): Promise<void> {
    if (this.closing) return Promise.reject(new Error('wal: closed'));
    const run = this.chain.then(async () => {
      if (this.failure) throw this.failure;
      try {
        await op();
      } catch (err) {
        this.failure = err as Error;
        throw err;
      }
    });
    this.chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async append(enc: BatchEncoder, sync: boolean): Promise<void> {
    const { bytes, crc } = enc.finish(this.crc);
    writeAllAtSync(this.fd, bytes, this.offset);
    if (sync) await fdatasync(this.fd);
    this.offset += bytes.length;
    this.crc = crc;
  }

  /** Seals the current segment at its real length and starts the next (etcd's cut). */
  private async cut(): Promise<void> {
    await ftruncate(this.fd, this.offset);
    await fsyncFd(this.fd);
    const cur = this.segments[this.segments.length - 1];
    const next = { seq: cur.seq + 1, index: this.lastIndex + 1, name: segmentName(cur.seq + 1, this.lastIndex + 1) };
    const enc = new BatchEncoder().crc(this.crc).metadata(this.metadata);
    if (!isEmptyHardState(this.hardState)) enc.state(this.hardState);
    const header = enc.finish(this.crc);
    const spare = await this.pipeline.take();
    let fd: number;
    try {
      await writeAllAt(spare.fd, header.bytes, 0);
      await fsyncFd(spare.fd);
      fs.renameSync(spare.path, join(this.dir, next.name));
      await fsyncDir(this.dir);
      fd = spare.fd;
    } catch (err) {
      await closeFd(spare.fd);
      throw err;
    }
    await closeFd(this.fd);
    this.fd = fd;
    this.segments.push(next);
    this.offset = header.bytes.length;
    this.crc = header.crc;
  }
}

/**
 * Writes a new log's first segment as `<name>.tmp`, reserves its size,
 * fsyncs, renames; returns its fd. The size is only extended (sparse, etcd's
 * own fallback where fallocate is missing), not written as zeros like the
 * spares (pipeline.ts): a member's very first start then writes no 64 MB
 * before it can elect, and appends into this one segment cost a few percent
 * more (bench/wal.bench.ts).
 */
async function writeFirstSegment(dir: string, name: string, header: Buffer, segmentBytes: number): Promise<number> {
  const tmp = join(dir, `${name}.tmp`);
  const fd = await openFd(tmp, 'w+');
  try {
    await writeAllAt(fd, header, 0);
    await ftruncate(fd, Math.max(header.length, segmentBytes));
    await fsyncFd(fd);
    fs.renameSync(tmp, join(dir, name));
    await fsyncDir(dir);
    return fd;
  } catch (err) {
    await closeFd(fd);
    throw err;
  }
}

/** Zeroes whatever follows the last good record and restores the preallocation. */
async function repairTail(fd: number, buf: Buffer, end: number, fileSize: number, segmentBytes: number): Promise<void> {
  // buf holds every non-zero byte read (segmentFile.ts), so this is the file's dirty end.
  const dirtyEnd = endOfNonZero(buf, end);
  if (dirtyEnd > end) await writeAllAt(fd, Buffer.alloc(dirtyEnd - end), end);
  const size = Math.max(fileSize, segmentBytes);
  if (fileSize < size) await preallocate(fd, fileSize, size);
  if (dirtyEnd > end || fileSize < size) await fsyncFd(fd);
}

function removeTmpFiles(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    if (name.endsWith('.wal.tmp')) fs.rmSync(join(dir, name), { force: true });
  }
}

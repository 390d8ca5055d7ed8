// Reading a run of segments in order: the crc chain across them, where each
// error is reported, and which bad records count as a torn tail (only in the
// newest segment — every older one was fsynced before the next was cut).

import { join } from 'node:path';
import { isTornTail, scanSegment, type ScanResult, type ScannedRecord } from './reader';
import { FRAME_HEADER } from './record';
import { listSegments, type SegmentName } from './segment';
import { SegmentFile } from './segmentFile';

export interface LogTail {
  /** The newest segment's bytes up to at least the last non-zero byte read; the rest of the file is taken as zeros (segmentFile.ts). */
  buf: Buffer;
  /** The newest segment's size in bytes. */
  size: number;
  /** Offset just past its last good record: where appending resumes. */
  end: number;
  /** Rolling crc at `end`. */
  crc: number;
}

/**
 * The segments of `dir` in order, checked for gaps, and the position of the
 * one to start reading at for a snapshot at `fromIndex`: the last whose first
 * index ≤ fromIndex (earlier ones only hold entries the snapshot covers).
 */
export function segmentsFor(dir: string, fromIndex: number): { segs: SegmentName[]; start: number } {
  const segs = listSegments(dir);
  if (segs.length === 0) throw new Error(`wal: no segments in ${dir}`);
  segs.forEach((s, i) => {
    if (s.seq !== segs[0].seq + i) throw new Error(`wal: segment ${s.name} out of sequence in ${dir}`);
  });
  let start = -1;
  segs.forEach((s, i) => {
    if (s.index <= fromIndex) start = i;
  });
  if (start < 0) throw new Error(`wal: file not found: no segment at or before index ${fromIndex} in ${dir}`);
  return { segs, start };
}

/**
 * Feeds every good record of segs[start..] to `visit`, in order. An error
 * thrown by `visit` is re-thrown naming the file and offset. Returns where
 * the newest segment's good records end; a torn tail after that is left for
 * the caller to repair (or to ignore, when only reading).
 */
/**
 * Segment files already read during one start, by path: a restart reads the
 * log twice (the valid snapshot markers, then the log from the chosen
 * snapshot on), and nothing writes the files in between.
 */
export type SegmentReads = Map<string, SegmentFile>;

export function readLog(dir: string, segs: SegmentName[], start: number, visit: (r: ScannedRecord) => void, reads?: SegmentReads): LogTail {
  let seed: number | undefined;
  let tail: LogTail | undefined;
  for (let i = start; i < segs.length; i++) {
    const path = join(dir, segs[i].name);
    let file = reads?.get(path);
    if (!file) {
      file = SegmentFile.read(path);
      reads?.set(path, file);
    }
    const { buf, res, records, size } = scanFile(file, seed);
    const where = (offset: number) => `${path} at offset ${offset}`;
    for (const r of records) {
      try {
        visit(r);
      } catch (err) {
        throw new Error(`wal: ${(err as Error).message} (${where(r.offset)})`);
      }
    }
    const last = i === segs.length - 1;
    if (res.failure && !(last && isTornTail(buf, res.failure))) {
      throw new Error(`wal: corrupt record in ${where(res.failure.offset)}: ${res.failure.reason}`);
    }
    if (res.end === 0) throw new Error(`wal: segment ${path} has no valid header`);
    seed = res.crc;
    if (last) tail = { buf, size, end: res.end, crc: res.crc };
  }
  return tail!;
}

/**
 * Scans a segment as if its whole file were in memory: from the bytes up to
 * just past its last non-zero one (plus a record header's worth), given more
 * zeros and scanned again whenever the scan reached the end of what it was
 * given — a record whose last bytes are zeros, a length that claims more, or
 * a clean end before the file's — until it stops inside them or has the whole file.
 */
function scanFile(file: SegmentFile, seed: number | undefined): { buf: Buffer; res: ScanResult; records: ScannedRecord[]; size: number } {
  let length = Math.min(file.size, file.dataEnd + FRAME_HEADER);
  for (;;) {
    const buf = file.materialize(length);
    const records: ScannedRecord[] = [];
    const res = scanSegment(buf, seed, (r) => records.push(r));
    const reachedEnd = res.failure ? res.failure.claimedEnd >= buf.length : true;
    if (!reachedEnd || buf.length >= file.size) return { buf, res, records, size: file.size };
    length = Math.min(file.size, Math.max(2 * length, length + 64 * 1024));
  }
}

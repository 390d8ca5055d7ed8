// Reading a run of segments in order: the crc chain across them, where each
// error is reported, and which bad records count as a torn tail (only in the
// newest segment — every older one was fsynced before the next was cut).

import * as fs from 'node:fs';
import { join } from 'node:path';
import { isTornTail, scanSegment, type ScannedRecord } from './reader';
import { listSegments, type SegmentName } from './segment';

export interface LogTail {
  /** The newest segment's bytes as read. */
  buf: Buffer;
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
export function readLog(dir: string, segs: SegmentName[], start: number, visit: (r: ScannedRecord) => void): LogTail {
  let seed: number | undefined;
  let tail: LogTail | undefined;
  for (let i = start; i < segs.length; i++) {
    const path = join(dir, segs[i].name);
    const buf = fs.readFileSync(path);
    const where = (offset: number) => `${path} at offset ${offset}`;
    const res = scanSegment(buf, seed, (r) => {
      try {
        visit(r);
      } catch (err) {
        throw new Error(`wal: ${(err as Error).message} (${where(r.offset)})`);
      }
    });
    const last = i === segs.length - 1;
    if (res.failure && !(last && isTornTail(buf, res.failure))) {
      throw new Error(`wal: corrupt record in ${where(res.failure.offset)}: ${res.failure.reason}`);
    }
    if (res.end === 0) throw new Error(`wal: segment ${path} has no valid header`);
    seed = res.crc;
    if (last) tail = { buf, end: res.end, crc: res.crc };
  }
  return tail!;
}

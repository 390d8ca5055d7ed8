// Scanning a segment's bytes into records, and telling a torn tail (a crash
// mid-write, which recovery may cut away) from corruption (which it must not).

import { crc32c } from './crc32c';
import { FRAME_HEADER, RecordType } from './record';

export interface ScannedRecord {
  type: RecordType;
  /** The payload after the type byte; a view into the segment buffer. */
  payload: Buffer;
  offset: number;
}

export interface ScanFailure {
  offset: number;
  reason: string;
  /** End of the bytes the bad record claims (clamped to the buffer). */
  claimedEnd: number;
}

export interface ScanResult {
  /** Offset just past the last good record. */
  end: number;
  /** Rolling crc after the last good record. */
  crc: number;
  failure?: ScanFailure;
}

/**
 * Walks the framed records of one segment, checking each against the rolling
 * crc. `seed` is the crc the previous segment ended with, or undefined when
 * this is the first segment read (its leading crc record then supplies it).
 * Stops at the first bad record — or cleanly at the end of the buffer.
 */
export function scanSegment(buf: Buffer, seed: number | undefined, onRecord: (r: ScannedRecord) => void): ScanResult {
  let at = 0;
  let crc = seed ?? 0;
  const fail = (reason: string, claimedEnd: number): ScanResult => ({
    end: at,
    crc,
    failure: { offset: at, reason, claimedEnd: Math.min(claimedEnd, buf.length) },
  });
  // Bounded: every iteration advances `at` by at least FRAME_HEADER + 1 or returns.
  while (at < buf.length) {
    if (buf.length - at < FRAME_HEADER) return fail('short record header', buf.length);
    const len = buf.readUInt32LE(at);
    if (len === 0) return fail('zero record length', at + FRAME_HEADER);
    const end = at + FRAME_HEADER + len;
    if (end > buf.length) return fail(`record of ${len} bytes runs past the end of the file`, end);
    const type = buf[at + FRAME_HEADER] as RecordType;
    let start = crc;
    if (at === 0) {
      if (type !== RecordType.Crc || len !== 5) return fail('segment does not start with a crc record', end);
      const prev = buf.readUInt32LE(at + FRAME_HEADER + 1);
      if (seed !== undefined && prev !== seed) return fail('crc chain broken between segments', end);
      start = prev;
    } else if (type === RecordType.Crc) {
      return fail('crc record inside a segment', end);
    }
    const got = crc32c(start, buf, at + FRAME_HEADER, end);
    if (got !== buf.readUInt32LE(at + 4)) return fail('crc mismatch', end);
    onRecord({ type, payload: buf.subarray(at + FRAME_HEADER + 1, end), offset: at });
    crc = got;
    at = end;
  }
  return { end: at, crc };
}

/** The unit a disk persists atomically, at the least (etcd's minSectorSize). */
export const SECTOR = 512;

/**
 * Compared a chunk at a time (a native memcmp): a restart checks the whole
 * preallocated tail of the last segment, 64 MB of zeros, and a byte loop
 * over it cost a member ~150 ms of its start.
 */
const ZEROS = new Uint8Array(64 * 1024);

function allZero(buf: Uint8Array, from: number, to: number): boolean {
  for (let at = from; at < to; at += ZEROS.length) {
    const n = Math.min(ZEROS.length, to - at);
    if (Buffer.compare(buf.subarray(at, at + n), ZEROS.subarray(0, n)) !== 0) return false;
  }
  return true;
}

/**
 * Whether a bad record in the final segment is the torn tail of a write that
 * never completed (and was therefore never acknowledged):
 * - nothing but zeros follows it (preallocated space, or the file ends), or
 * - one of its sector-sized pieces is all zeros: the disk persisted the
 *   sectors of the last write out of order and this one never landed
 *   (etcd's isTornEntry).
 * Anything else is corruption of data that was once durable.
 */
export function isTornTail(buf: Buffer, f: ScanFailure): boolean {
  if (allZero(buf, f.claimedEnd, buf.length)) return true;
  let at = f.offset;
  while (at < f.claimedEnd) {
    const next = Math.min(f.claimedEnd, (Math.floor(at / SECTOR) + 1) * SECTOR);
    if (allZero(buf, at, next)) return true;
    at = next;
  }
  return false;
}

/** Offset just past the last non-zero byte at or after `from` (or `from`). */
export function endOfNonZero(buf: Uint8Array, from: number): number {
  for (let hi = buf.length; hi > from; ) {
    const lo = Math.max(from, hi - ZEROS.length);
    if (!allZero(buf, lo, hi)) for (let i = hi; i > lo; i--) if (buf[i - 1] !== 0) return i;
    hi = lo;
  }
  return from;
}

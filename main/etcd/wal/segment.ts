// Segment files: their names, listing them, and the few fd-level file
// operations the WAL needs (positional writes, fdatasync, directory fsync)
// wrapped as promises over raw descriptors — cheaper per call than FileHandle.

import * as fs from 'node:fs';
import { join } from 'node:path';

export interface SegmentName {
  /** Position in the chain; consecutive, starting at 0. */
  seq: number;
  /** Index of the first entry the segment may hold (last index + 1 when it was cut). */
  index: number;
  name: string;
}

const SEGMENT_RE = /^([0-9a-f]{16})-([0-9a-f]{16})\.wal$/;

const hex16 = (n: number) => n.toString(16).padStart(16, '0');

/** etcd's `%016x-%016x.wal`. */
export function segmentName(seq: number, index: number): string {
  return `${hex16(seq)}-${hex16(index)}.wal`;
}

export function parseSegmentName(name: string): SegmentName | undefined {
  const m = SEGMENT_RE.exec(name);
  if (!m) return undefined;
  return { seq: parseInt(m[1], 16), index: parseInt(m[2], 16), name };
}

/** Segments in `dir`, by sequence. Other files (.tmp leftovers, locks) are ignored. */
export function listSegments(dir: string): SegmentName[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const segs = names.map(parseSegmentName).filter((s): s is SegmentName => s !== undefined);
  return segs.sort((a, b) => a.seq - b.seq);
}

export const openFd = (path: string, flags: string) =>
  new Promise<number>((res, rej) => fs.open(path, flags, 0o600, (e, fd) => (e ? rej(e) : res(fd))));

export const closeFd = (fd: number) => new Promise<void>((res, rej) => fs.close(fd, (e) => (e ? rej(e) : res())));

export const fdatasync = (fd: number) => new Promise<void>((res, rej) => fs.fdatasync(fd, (e) => (e ? rej(e) : res())));

export const fsyncFd = (fd: number) => new Promise<void>((res, rej) => fs.fsync(fd, (e) => (e ? rej(e) : res())));

export const ftruncate = (fd: number, len: number) =>
  new Promise<void>((res, rej) => fs.ftruncate(fd, len, (e) => (e ? rej(e) : res())));

/**
 * Writes all of `buf` at `position` synchronously. On the append path the
 * write only copies into the page cache (microseconds), and doing it inline
 * saves a thread-pool round trip per save: measured ~25% more synced saves/s
 * than an async write followed by an async fdatasync.
 */
export function writeAllAtSync(fd: number, buf: Uint8Array, position: number): void {
  let done = 0;
  while (done < buf.length) {
    const n = fs.writeSync(fd, buf, done, buf.length - done, position + done);
    if (n <= 0) throw new Error(`wal: write made no progress at offset ${position + done}`);
    done += n;
  }
}

/** Writes all of `buf` at `position`, looping over short writes (bounded: each step makes progress). */
export async function writeAllAt(fd: number, buf: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const n = await new Promise<number>((res, rej) =>
      fs.write(fd, buf, done, buf.length - done, position + done, (e, written) => (e ? rej(e) : res(written))),
    );
    if (n <= 0) throw new Error(`wal: write made no progress at offset ${position + done}`);
    done += n;
  }
}

/** Makes a rename, create or unlink in `dir` durable. */
export async function fsyncDir(dir: string): Promise<void> {
  const fd = await openFd(dir, 'r');
  try {
    await fsyncFd(fd);
  } finally {
    await closeFd(fd);
  }
}

/**
 * Reserves `size` bytes so later appends inside it change no file size and
 * fdatasync need not flush size metadata. Written zeros (rather than a sparse
 * ftruncate) also allocate the blocks now; see bench/wal.bench.ts for why.
 */
export async function preallocate(fd: number, from: number, size: number): Promise<void> {
  if (size <= from) return;
  const chunk = Buffer.alloc(Math.min(1 << 20, size - from));
  for (let at = from; at < size; at += chunk.length) {
    await writeAllAt(fd, chunk.subarray(0, Math.min(chunk.length, size - at)), at);
  }
}

export const segmentPath = (dir: string, s: SegmentName) => join(dir, s.name);

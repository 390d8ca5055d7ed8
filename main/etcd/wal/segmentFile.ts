// Reading one segment file without reading its preallocated zero tail.
//
// A segment is preallocated (64 MB by default) and its records fill it from
// the start. A restart needs only the records: like etcd's decoder, which
// stops at the first zero frame length, the file is read a chunk at a time
// until a chunk that is all zeros, and only the chunks holding a non-zero
// byte are kept. Reading and checking all 64 MB of a mostly empty segment
// instead cost three members starting together a large share of their start.
//
// The scan (logReader.ts) sees the bytes up to just past the last non-zero
// one read. When a record reaches further (a payload holding a whole chunk
// of zeros, say), materialize reads the file on from where it stopped, so
// the records are always exactly the file's. Past the bytes read, the file
// is taken to be zeros, as etcd takes it; a tail check (reader.ts) judges
// the bytes read.

import * as fs from 'node:fs';
import { endOfNonZero } from './reader';

const CHUNK = 1 << 20;

export class SegmentFile {
  private readTo = 0;
  private dataEndValue = 0;
  private readonly kept: { at: number; bytes: Buffer }[] = [];

  private constructor(
    private readonly path: string,
    /** The file's size in bytes. */
    readonly size: number,
  ) {}

  /** Reads `path` up to its first all-zero chunk (or its end). */
  static read(path: string): SegmentFile {
    const fd = fs.openSync(path, 'r');
    try {
      const file = new SegmentFile(path, fs.fstatSync(fd).size);
      file.readFrom(fd, file.size, true);
      return file;
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Offset just past the last non-zero byte read so far (0 when none is). */
  get dataEnd(): number {
    return this.dataEndValue;
  }

  /** The file's first `length` bytes (at most its size), reading on from the file where needed. */
  materialize(length: number): Buffer {
    const want = Math.min(length, this.size);
    if (want > this.readTo) {
      const fd = fs.openSync(this.path, 'r');
      try {
        this.readFrom(fd, want, false);
      } finally {
        fs.closeSync(fd);
      }
    }
    const buf = Buffer.alloc(want);
    for (const k of this.kept) {
      if (k.at >= buf.length) break;
      k.bytes.copy(buf, k.at, 0, Math.min(k.bytes.length, buf.length - k.at));
    }
    return buf;
  }

  /** Reads chunks from readTo until `until`, or (stopAtZeros) the first chunk holding nothing but zeros. */
  private readFrom(fd: number, until: number, stopAtZeros: boolean): void {
    const scratch = Buffer.allocUnsafe(CHUNK);
    while (this.readTo < until) {
      const n = fs.readSync(fd, scratch, 0, Math.min(CHUNK, this.size - this.readTo), this.readTo);
      if (n <= 0) break; // the file shrank meanwhile: what was read is all there is
      const nonZero = endOfNonZero(scratch.subarray(0, n), 0);
      if (nonZero > 0) {
        this.kept.push({ at: this.readTo, bytes: Buffer.from(scratch.subarray(0, nonZero)) });
        this.dataEndValue = this.readTo + nonZero;
      }
      this.readTo += n;
      if (stopAtZeros && nonZero === 0) break;
    }
  }
}

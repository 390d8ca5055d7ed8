// Reading one segment file without holding its preallocated zero tail.
//
// A segment is preallocated with written zeros (64 MB by default) and a
// restart reads it twice (the valid snapshot markers, then the log itself).
// Reading the whole file into a fresh buffer each time cost a member most of
// its start on a small VM: three members faulting in 2 × 64 MB each at once
// took seconds of system time. Instead the file is read a chunk at a time
// into one scratch buffer, only the chunks holding a non-zero byte are kept,
// and the scan sees the bytes up to just past the last non-zero one. Every
// byte after that is known to be zero, so the scan can be given more of them
// (materialize) whenever a record reaches that far, and the checks of
// reader.ts (torn tail: nothing but zeros after a bad record) judge exactly
// what they would judge on the whole file.

import * as fs from 'node:fs';
import { endOfNonZero } from './reader';

const CHUNK = 1 << 20;

export class SegmentFile {
  private constructor(
    /** The file's size in bytes. */
    readonly size: number,
    /** Offset just past the last non-zero byte (0 when the file is all zeros). */
    readonly dataEnd: number,
    private readonly kept: { at: number; bytes: Buffer }[],
  ) {}

  static read(path: string): SegmentFile {
    const fd = fs.openSync(path, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const scratch = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, size)));
      const kept: { at: number; bytes: Buffer }[] = [];
      let dataEnd = 0;
      let at = 0;
      while (at < size) {
        const n = fs.readSync(fd, scratch, 0, Math.min(scratch.length, size - at), at);
        if (n <= 0) break; // the file shrank meanwhile: what was read is all there is
        const nonZero = endOfNonZero(scratch.subarray(0, n), 0);
        if (nonZero > 0) {
          kept.push({ at, bytes: Buffer.from(scratch.subarray(0, nonZero)) });
          dataEnd = at + nonZero;
        }
        at += n;
      }
      return new SegmentFile(Math.min(size, at), dataEnd, kept);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** The file's first `length` bytes (at most its size); whatever lies past dataEnd is zeros. */
  materialize(length: number): Buffer {
    const buf = Buffer.alloc(Math.min(length, this.size));
    for (const k of this.kept) {
      if (k.at >= buf.length) break;
      k.bytes.copy(buf, k.at, 0, Math.min(k.bytes.length, buf.length - k.at));
    }
    return buf;
  }
}

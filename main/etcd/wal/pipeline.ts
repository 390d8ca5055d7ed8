// Makes the next segment file ready before it is needed, like etcd's
// filePipeline (Wal starts it once the current segment is half full): preallocating 64 MiB of zeros takes long enough (hundreds of
// milliseconds on a busy disk) that doing it inside a cut would stall every
// save queued behind it. Spares are `<n>.spare.wal.tmp`; Wal.open/create
// delete leftovers, so a crash mid-preparation leaves nothing that matters.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { closeFd, fsyncFd, openFd, preallocate } from './segment';

export interface SpareSegment {
  fd: number;
  path: string;
}

export class SegmentPipeline {
  private next: Promise<SpareSegment> | undefined;
  private count = 0;

  constructor(
    private readonly dir: string,
    private readonly segmentBytes: number,
  ) {}

  /** Starts preparing a spare in the background if none is on the way. */
  start(): void {
    this.next ??= this.prepare();
  }

  /** A zero-filled, fsynced spare of segmentBytes; the next start() prepares the following one. */
  async take(): Promise<SpareSegment> {
    const spare = await (this.next ?? this.prepare());
    this.next = undefined;
    return spare;
  }

  /** Discards the spare (waiting for its preparation to finish first). */
  async close(): Promise<void> {
    const pending = this.next;
    this.next = undefined;
    if (!pending) return;
    try {
      const spare = await pending;
      await closeFd(spare.fd);
      fs.rmSync(spare.path, { force: true });
    } catch {
      // A spare that failed to prepare was never used; its own error path removed it.
    }
  }

  private prepare(): Promise<SpareSegment> {
    const path = join(this.dir, `${this.count++}.spare.wal.tmp`);
    const p = (async () => {
      const fd = await openFd(path, 'w+');
      try {
        await preallocate(fd, 0, this.segmentBytes);
        await fsyncFd(fd);
        return { fd, path };
      } catch (err) {
        await closeFd(fd);
        fs.rmSync(path, { force: true });
        throw err;
      }
    })();
    // Failure surfaces when the spare is taken; never as an unhandled rejection.
    p.catch(() => undefined);
    return p;
  }
}

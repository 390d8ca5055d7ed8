// A long-running response of newline-delimited JSON (watch streams, the
// trace stream) that follows the socket's backpressure: it is `ready` while
// the response holds less than WRITE_BUFFER_BYTES not yet handed to the
// kernel, and again at the response's 'drain'. A producer holds its lines
// meanwhile and writes them once `onWritable` fires, so what waits for a slow
// client waits in the producer's bounded queue instead of in the socket's
// unbounded buffer. The budget is a few times the socket's high-water mark
// (16 KiB): a burst to a fast client leaves in a few large writes instead of
// one drain cycle per 16 KiB.
//
// Lines that arrive together (one etcd watch response, a burst of initial
// state) leave in one socket write: the response is corked until the end of
// the tick instead of paying a TLS record and a syscall per line.

import type { ServerResponse } from 'node:http';

/** What a response may hold for its socket before producers wait for 'drain'. */
export const WRITE_BUFFER_BYTES = 64 * 1024;

export class LineStream {
  private corked = false;
  private backedUp = false;
  /** Lines written since the response last drained (what the socket still holds, roughly). */
  private sinceDrain = 0;
  private writable: (() => void) | undefined;
  private readonly uncork = (): void => {
    this.corked = false;
    this.res.uncork();
  };

  constructor(private readonly res: ServerResponse) {
    res.on('drain', () => {
      this.sinceDrain = 0;
      if (!this.backedUp) return; // a drain below the budget: nobody was refused
      this.backedUp = false;
      this.writable?.();
    });
  }

  /** False while the response is backed up (or ended): a producer keeps its line and waits for onWritable. */
  get ready(): boolean {
    return !this.backedUp && !this.res.writableEnded;
  }

  /** Writes one line. Producers write while `ready`; past that only a stream's last line (an ERROR event) or a bounded preamble. */
  write(line: string): void {
    if (this.res.writableEnded) return;
    if (!this.corked) {
      this.corked = true;
      this.res.cork();
      process.nextTick(this.uncork);
    }
    this.sinceDrain++;
    // Past the socket's high-water mark res.write returns false, so 'drain' follows once it has flushed.
    if (!this.res.write(`${line}\n`) && this.res.writableLength >= WRITE_BUFFER_BYTES) this.backedUp = true;
  }

  /** Called each time the response has drained after it turned not ready. */
  onWritable(cb: () => void): void {
    this.writable = cb;
  }

  /** Lines written and not yet drained to the socket. */
  get pending(): number {
    return this.backedUp ? this.sinceDrain : 0;
  }

  end(): void {
    if (!this.res.writableEnded) this.res.end();
  }
}

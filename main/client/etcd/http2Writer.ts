// The sending side of http2Connection.ts: frames queued during one event-loop
// turn go out in one socket write (setImmediate), as node:http2 batches them,
// and the socket's backpressure is respected. The connection asks canWrite()
// before it queues DATA or opens a stream: no while a turn's batch already
// holds MAX_BATCH_BYTES (one large body must not be copied whole into one
// write), and no while congested — socket.write answered false with
// CONGESTED_BYTES or more still in the socket (the kernel's send buffer is
// full: the server does not read) and 'drain' has not come. A false with
// little left over is not waited for: Node answers false for any write past
// its 16 KiB high-water mark, even one the kernel took at once, and busy
// batches of creates would wait for that 'drain' for nothing. It holds DATA in its streams and new streams in
// its wait queue meanwhile, and resumes on onWritable. So only small control
// frames (PING and SETTINGS acknowledgements, WINDOW_UPDATE,
// RST_STREAM) are queued here. A server that keeps provoking those while not
// reading would still grow the queue, so past MAX_HELD_FRAMES the connection
// is given up (golang.org/x/net/http2 closes a connection past 10,000 queued
// control frames for the same reason).

import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { frameHeader } from './http2Frames';

export const MAX_HELD_FRAMES = 10_000;
export const MAX_BATCH_BYTES = 256 << 10;
export const CONGESTED_BYTES = 1 << 20;

export interface FrameWriterEvents {
  /** After canWrite() said no: the batch went out, or the socket drained; held DATA and streams may go now. */
  onWritable(): void;
  /** More than MAX_HELD_FRAMES queued while congested. */
  onFlood(): void;
}

export class FrameWriter {
  private out: Buffer[] = [];
  private scheduled = false;
  private congested_ = false;
  /** Bytes in `out`. */
  private queued = 0;
  /** canWrite() said no since the last onWritable. */
  private refused = false;
  /** Frames queued since the socket last refused more. */
  private held = 0;
  /** Set once the connection failed: nothing more is queued or written. */
  closed = false;

  constructor(private readonly socket: Socket | TLSSocket, private readonly events: FrameWriterEvents) {
    socket.on('drain', () => {
      if (this.closed) return;
      this.congested_ = false;
      this.held = 0;
      this.writable();
      this.schedule();
    });
  }

  /** Whether DATA may be queued or a stream opened now; a no is answered later by onWritable. */
  canWrite(): boolean {
    if (!this.congested_ && this.queued < MAX_BATCH_BYTES) return true;
    this.refused = true;
    return false;
  }

  /** For tests and debugging: whether the socket refused more, and the bytes queued here and in the socket. */
  get backlog(): { congested: boolean; bytes: number } {
    return { congested: this.congested_, bytes: this.queued + this.socket.writableLength };
  }

  /** Raw bytes (the client preface) before any frame. */
  raw(bytes: Buffer): void {
    this.out.push(bytes);
    this.queued += bytes.length;
    this.schedule();
  }

  frame(type: number, flags: number, streamId: number, payload: Buffer): void {
    if (this.closed) return;
    this.out.push(frameHeader(type, flags, streamId, payload.length));
    if (payload.length > 0) this.out.push(payload);
    this.queued += 9 + payload.length;
    if (this.congested_ && ++this.held > MAX_HELD_FRAMES) {
      this.events.onFlood();
      return;
    }
    this.schedule();
  }

  /** A frame whose payload is one 32-bit value (WINDOW_UPDATE's increment, RST_STREAM's code). */
  u32Frame(type: number, streamId: number, value: number): void {
    const p = Buffer.allocUnsafe(4);
    p.writeUInt32BE(value, 0);
    this.frame(type, 0, streamId, p);
  }

  /** Writes what is queued (a GOAWAY last) and ends the socket. */
  end(): void {
    const bytes = Buffer.concat(this.out);
    this.out = [];
    this.queued = 0;
    this.closed = true;
    this.socket.end(bytes);
  }

  private schedule(): void {
    if (this.scheduled || this.congested_) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.closed || this.congested_ || this.out.length === 0) return;
      const bytes = this.out.length === 1 ? this.out[0] : Buffer.concat(this.out, this.queued);
      this.out = [];
      this.queued = 0;
      if (!this.socket.write(bytes) && this.socket.writableLength >= CONGESTED_BYTES) this.congested_ = true;
      else this.writable();
    });
  }

  private writable(): void {
    if (!this.refused) return;
    this.refused = false;
    this.events.onWritable();
  }
}

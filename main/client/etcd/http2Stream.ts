// A stream of http2Connection.ts as its caller sees it (write, cancel) and as
// the connection keeps it: its id, flow-control windows, the data queued for
// the server's window, and which sides have ended.

import type { HeaderField } from '../../common/http2/hpackDecoder';

/**
 * How a stream ended: both sides finished, the server reset it, the server
 * broke the protocol on it (we reset it with `code`), or the connection went.
 */
export type StreamOutcome =
  | { kind: 'closed' }
  | { kind: 'reset'; code: number }
  | { kind: 'error'; code: number; message: string }
  | { kind: 'failed'; message: string; unprocessed: boolean };

export interface StreamHandlers {
  /** A response header block, or trailers; endStream when the server's side ends with it. */
  onHeaders(fields: HeaderField[], endStream: boolean): void;
  onData(chunk: Buffer, endStream: boolean): void;
  /** Called once, unless the stream was cancelled by us. */
  onClose(outcome: StreamOutcome): void;
}

export interface ClientStream {
  /** Queues data; end sends END_STREAM after it. */
  write(data: Buffer, end: boolean): void;
  /** RST_STREAM(CANCEL); no handler is called afterwards. */
  cancel(): void;
  readonly localEnded: boolean;
}

/** The connection's side of a stream; `conn` is the connection that owns it. */
export class Stream implements ClientStream {
  id = 0;
  sendWindow = 0;
  recvUnacked = 0;
  pending: Buffer[] = [];
  pendingBytes = 0;
  endQueued = false;
  localEnded = false;
  remoteEnded = false;
  done = false;

  constructor(
    readonly conn: StreamOwner,
    readonly headerBlock: Buffer,
    readonly handlers: StreamHandlers,
  ) {}

  write(data: Buffer, end: boolean): void {
    if (this.done || this.endQueued) return;
    if (data.length > 0) {
      this.pending.push(data);
      this.pendingBytes += data.length;
    }
    this.endQueued = end;
    if (this.id !== 0) this.conn.sendData(this);
  }

  cancel(): void {
    this.conn.cancel(this);
  }
}

/** What a stream needs of its connection. */
export interface StreamOwner {
  sendData(s: Stream): void;
  cancel(s: Stream): void;
}

/** The first n queued bytes of a stream, as one buffer. */
export function takeBytes(s: { pending: Buffer[]; pendingBytes: number }, n: number): Buffer {
  s.pendingBytes -= n;
  const first = s.pending[0];
  if (first.length === n) {
    s.pending.shift();
    return first;
  }
  if (first.length > n) {
    s.pending[0] = first.subarray(n);
    return first.subarray(0, n);
  }
  const out = Buffer.allocUnsafe(n);
  let at = 0;
  while (at < n) {
    const b = s.pending[0];
    const take = Math.min(b.length, n - at);
    b.copy(out, at, 0, take);
    at += take;
    if (take === b.length) s.pending.shift();
    else s.pending[0] = b.subarray(take);
  }
  return out;
}

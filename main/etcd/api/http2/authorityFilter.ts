// The HTTP/2 route's socket as grpc-js gets it: the client's bytes pass
// through a HeaderFrameFilter that repairs :authority values nghttp2 would
// refuse (authority.ts); the server's bytes go to the socket untouched.
//
// grpc-js's connection injector emits the Duplex as an http2 server
// 'connection'; Node wraps any stream without a native handle in a
// JSStreamSocket, which only needs 'data'/'end'/'close'/'error', pause/resume,
// write/cork/uncork, end and destroy. The socket's own details (addresses,
// timeouts, keep-alive) are forwarded for anyone who asks the Duplex.

import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { isAcceptedAuthority, repairAuthority } from './authority';
import type { HeaderField } from '../../../common/http2/hpackDecoder';
import { GoAwayScanner } from './goAwayScanner';
import { HeaderFilterError, HeaderFrameFilter, type HeaderFrameFilterOptions } from './headerFrameFilter';

/** The fields with every refused :authority replaced by its host:port, or null if none is refused. */
export function repairAuthorityFields(fields: HeaderField[]): HeaderField[] | null {
  let out: HeaderField[] | null = null;
  fields.forEach((f, i) => {
    if (f.name !== ':authority' || isAcceptedAuthority(f.value)) return;
    out ??= [...fields];
    out[i] = { ...f, value: repairAuthority(f.value) };
  });
  return out;
}

const FRAME_GOAWAY = 0x7;
/** How long a GOAWAY may take to reach a peer before the socket is dropped anyway. */
const GOAWAY_FLUSH_MS = 1000;

export class AuthorityFilteredSocket extends Duplex {
  private readonly frames: HeaderFrameFilter;
  private readonly serverFrames = new GoAwayScanner();
  private goingAway = false;

  constructor(
    readonly socket: Socket,
    opts?: HeaderFrameFilterOptions,
  ) {
    super({ allowHalfOpen: true });
    this.frames = new HeaderFrameFilter(repairAuthorityFields, opts);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => this.push(null));
    socket.on('error', (err) => this.destroy(err));
    socket.on('close', () => this.destroy());
    socket.on('timeout', () => this.emit('timeout'));
    socket.on('drain', () => this.emit('drain'));
  }

  private onData(chunk: Buffer): void {
    let pieces: Buffer[];
    try {
      pieces = this.frames.push(chunk);
    } catch (err) {
      if (err instanceof HeaderFilterError) return this.goAway(err);
      this.destroy(err as Error);
      return;
    }
    let more = true;
    for (const p of pieces) more = this.push(p);
    if (!more) this.socket.pause();
  }

  /**
   * A connection error found here, not by the server behind: the peer gets
   * GOAWAY (RFC 7540 §5.4.1) with the code and the reason as debug data,
   * then the connection ends. Nothing more of its input reaches the server.
   */
  private goAway(err: HeaderFilterError): void {
    const debug = Buffer.from(err.message, 'latin1');
    const frame = Buffer.alloc(9 + 8 + debug.length);
    frame.writeUIntBE(8 + debug.length, 0, 3);
    frame[3] = FRAME_GOAWAY;
    frame.writeUInt32BE(err.lastStreamId, 9);
    frame.writeUInt32BE(err.code, 13);
    debug.copy(frame, 17);
    this.socket.removeAllListeners('data');
    this.goingAway = true;
    this.socket.end(frame, () => this.socket.destroy());
    // A peer that does not read would keep the frame, and the socket, forever.
    setTimeout(() => this.socket.destroy(), GOAWAY_FLUSH_MS).unref();
    this.destroy();
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, cb: (err?: Error | null) => void): void {
    // Accepted by the socket below its high-water mark: done. Otherwise wait
    // for 'drain', so back-pressure reaches the writer.
    const ok = this.socket.write(chunk);
    this.afterServerWrite(chunk);
    if (ok) cb();
    else this.socket.once('drain', () => cb());
  }

  override _writev(chunks: { chunk: Buffer }[], cb: (err?: Error | null) => void): void {
    this.socket.cork();
    let ok = true;
    for (const c of chunks) ok = this.socket.write(c.chunk);
    this.socket.uncork();
    for (const c of chunks) this.afterServerWrite(c.chunk);
    if (ok) cb();
    else this.socket.once('drain', () => cb());
  }

  /** The server ended the connection with an error GOAWAY (goAwayScanner.ts): close it once that is written. */
  private afterServerWrite(chunk: Buffer): void {
    if (this.goingAway || this.serverFrames.push(chunk) === undefined) return;
    this.goingAway = true;
    this.socket.removeAllListeners('data');
    this.socket.end(() => this.socket.destroy());
    setTimeout(() => this.socket.destroy(), GOAWAY_FLUSH_MS).unref();
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.socket.end();
    cb();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    // After GOAWAY the socket closes itself once the frame is written.
    if (!this.goingAway) this.socket.destroy();
    cb(err);
  }

  get remoteAddress(): string | undefined {
    return this.socket.remoteAddress;
  }
  get remotePort(): number | undefined {
    return this.socket.remotePort;
  }
  get remoteFamily(): string | undefined {
    return this.socket.remoteFamily;
  }
  get localAddress(): string | undefined {
    return this.socket.localAddress;
  }
  get localPort(): number | undefined {
    return this.socket.localPort;
  }

  setNoDelay(noDelay?: boolean): this {
    this.socket.setNoDelay(noDelay);
    return this;
  }
  setKeepAlive(enable?: boolean, initialDelay?: number): this {
    this.socket.setKeepAlive(enable, initialDelay);
    return this;
  }
  setTimeout(ms: number, cb?: () => void): this {
    this.socket.setTimeout(ms);
    if (cb) this.once('timeout', cb);
    return this;
  }
  ref(): this {
    this.socket.ref();
    return this;
  }
  unref(): this {
    this.socket.unref();
    return this;
  }
}

/** Wraps a routed HTTP/2 socket for grpc-js. */
export function filterClientAuthority(socket: Socket): AuthorityFilteredSocket {
  return new AuthorityFilteredSocket(socket);
}

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
import { HeaderFrameFilter, type HeaderFrameFilterOptions } from './headerFrameFilter';

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

export class AuthorityFilteredSocket extends Duplex {
  private readonly frames: HeaderFrameFilter;

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
      this.destroy(err as Error);
      return;
    }
    let more = true;
    for (const p of pieces) more = this.push(p);
    if (!more) this.socket.pause();
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, cb: (err?: Error | null) => void): void {
    // Accepted by the socket below its high-water mark: done. Otherwise wait
    // for 'drain', so back-pressure reaches the writer.
    if (this.socket.write(chunk)) cb();
    else this.socket.once('drain', () => cb());
  }

  override _writev(chunks: { chunk: Buffer }[], cb: (err?: Error | null) => void): void {
    this.socket.cork();
    let ok = true;
    for (const c of chunks) ok = this.socket.write(c.chunk);
    this.socket.uncork();
    if (ok) cb();
    else this.socket.once('drain', () => cb());
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.socket.end();
    cb();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.socket.destroy();
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

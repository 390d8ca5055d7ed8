// One HTTP/2 client connection (RFC 9113), framed here rather than through
// node:http2: the API server sends every write to etcd as one short gRPC call,
// and node:http2's per-request machinery (a Duplex per stream, header objects
// built and parsed both ways, an AsyncResource bind per request, nghttp2's
// callbacks into JS) cost about 8 % of the API server's CPU at 64 clients
// (profiled), for a protocol the channel uses a small part of.
//
// What the connection does:
//   - the client preface, our SETTINGS (no push, a large stream window, the
//     header list limit) and a connection WINDOW_UPDATE, then frames both ways;
//   - requests with a header block the caller encoded (the channel encodes
//     with literals that never index, so the server's HPACK table is never
//     touched); responses decoded with a table that mirrors the server's;
//   - flow control both ways: DATA waits for the server's windows, and our
//     windows are reopened as data is consumed (it is consumed on arrival);
//   - the server's SETTINGS (max concurrent streams, initial window, max
//     frame size) are applied and acknowledged; its PINGs answered; with a
//     stream open, our own PING every keepalive interval, and a missing
//     answer tears the connection down (a paused member says nothing);
//   - GOAWAY: no new streams; streams above its last stream id fail as
//     certainly unprocessed; an error code ends the connection at once; our
//     own GOAWAY (a connection error) is followed by a half-close, and the
//     server's bytes are read and dropped for a moment, so that it reads it.
// Writes of one event-loop turn go out in one socket write, and the socket's
// backpressure holds DATA and new streams back (http2Writer.ts).
//
// Bounds against a bad or buggy server, each checked with integers already
// at hand (no allocation per frame):
//   - header blocks (http2HeaderBlock.ts): more than twice our
//     SETTINGS_MAX_HEADER_LIST_SIZE of fragments is a connection error; a
//     decoded list above it resets that stream with FRAME_SIZE_ERROR ("peer
//     header list size exceeded limit", as grpc-go's client says);
//   - WINDOW_UPDATE (§6.9): a zero increment is a stream error (on a stream)
//     or a connection error (on the connection) PROTOCOL_ERROR; a window
//     pushed past 2^31-1, by WINDOW_UPDATE or by a new
//     SETTINGS_INITIAL_WINDOW_SIZE, is FLOW_CONTROL_ERROR, for the stream or
//     the connection likewise;
//   - streams waiting for the server's concurrency limit (zero, or few) are
//     at most maxWaitingStreams; request() refuses more (StreamQueueFullError).

import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import type { HeaderField } from '../../common/http2/hpackDecoder';
import { DEFAULT_MAX_FRAME, DEFAULT_WINDOW, ErrorCode, FIXED_PAYLOAD_SIZE, Flag, FrameReader, FrameType, MAX_FRAME_LIMIT, MAX_STREAM_ID, MAX_WINDOW, PREFACE, Setting, unpad } from './http2Frames';
import { HeaderBlockReader, type ConnectionError } from './http2HeaderBlock';
import { takeBytes } from './http2Stream';
import { Stream, type ClientStream, type StreamHandlers, type StreamOutcome } from './http2Stream';
import { FrameWriter } from './http2Writer';

export type { ClientStream, StreamHandlers, StreamOutcome } from './http2Stream';

export interface Http2ConnectionOptions {
  host: string;
  port: number;
  /** TLS options (ca, cert, key, servername…); absent for cleartext HTTP/2 (prior knowledge). */
  tls?: ConnectionOptions;
  /** Our INITIAL_WINDOW_SIZE: how much a response may send on one stream before we reopen it. */
  streamWindow: number;
  /** The connection's receive window. */
  connectionWindow: number;
  keepaliveTimeMs: number;
  keepaliveTimeoutMs: number;
  /** Our SETTINGS_MAX_HEADER_LIST_SIZE (RFC 7541 sizes: name + value + 32 per field); default DEFAULT_MAX_HEADER_LIST. */
  maxHeaderListSize?: number;
  /** How many streams may wait for the server's concurrency limit; default DEFAULT_MAX_WAITING_STREAMS. */
  maxWaitingStreams?: number;
}

/**
 * node:http2's default maxHeaderListSize, which the etcd client ran under
 * with grpc-js; etcd's responses carry a few short fields.
 */
export const DEFAULT_MAX_HEADER_LIST = 65_536;
/** Far above what the API server has in flight to one member (a create per client, a watch per resource). */
export const DEFAULT_MAX_WAITING_STREAMS = 1_000;
/** How long a connection we sent GOAWAY on is still read before it is destroyed. */
const GOAWAY_LINGER_MS = 1_000;

/** request() when maxWaitingStreams already wait: the call was never sent. */
export class StreamQueueFullError extends Error {
  constructor(waiting: number, serverLimit: number) {
    super(`${waiting} streams already wait for the server's limit of ${serverLimit} concurrent streams (SETTINGS_MAX_CONCURRENT_STREAMS)`);
    this.name = 'StreamQueueFullError';
  }
}

export class Http2Connection {
  private readonly socket: Socket | TLSSocket;
  private readonly streams = new Map<number, Stream>();
  /** Streams waiting for the server's concurrency limit (no id yet). */
  private readonly waiting: Stream[] = [];
  /** Streams with data held back by a flow-control window. */
  private readonly blocked = new Set<Stream>();
  private readonly headerBlocks: HeaderBlockReader;
  private readonly writer: FrameWriter;
  private readonly maxHeaderList: number;
  private readonly maxWaiting: number;
  private nextId = 1;
  private connected = false;
  private failed = false;
  private goawayLast: number | undefined;
  private goawayCode: number = ErrorCode.NO_ERROR;
  /** 0 until the server's first SETTINGS: its limit is unknown until then (grpc-js and grpc-go wait for it too). */
  private peerMaxStreams = 0;
  private peerSettingsSeen = false;
  private peerInitialWindow = DEFAULT_WINDOW;
  private peerMaxFrame = DEFAULT_MAX_FRAME;
  private sendWindow = DEFAULT_WINDOW;
  private recvUnacked = 0;
  private readonly frames = new FrameReader();
  private readonly pinger: NodeJS.Timeout;
  private pingTimer: NodeJS.Timeout | undefined;
  /** Called once the connection takes no new streams (GOAWAY, failure, close). */
  onUnusable: () => void = () => {};

  constructor(private readonly opts: Http2ConnectionOptions) {
    const onConnected = () => {
      this.connected = true;
    };
    this.socket = opts.tls
      ? tlsConnect({ host: opts.host, port: opts.port, ALPNProtocols: ['h2'], ...opts.tls }, () => {
          const s = this.socket as TLSSocket;
          if (s.alpnProtocol !== 'h2') this.fail(`${opts.host}:${opts.port} did not negotiate HTTP/2 (ALPN)`);
          else onConnected();
        })
      : netConnect({ host: opts.host, port: opts.port }, onConnected);
    // Small frames go out at once (a TLS socket passes this to its TCP handle).
    this.socket.setNoDelay(true);
    this.maxHeaderList = opts.maxHeaderListSize ?? DEFAULT_MAX_HEADER_LIST;
    this.headerBlocks = new HeaderBlockReader(this.maxHeaderList, (streamId, endStream, fields, withinLimit) => this.onHeaderBlock(streamId, endStream, fields, withinLimit));
    this.maxWaiting = opts.maxWaitingStreams ?? DEFAULT_MAX_WAITING_STREAMS;
    this.writer = new FrameWriter(this.socket, {
      onWritable: () => {
        for (const s of [...this.blocked]) this.sendData(s);
        this.openWaiting();
      },
      onFlood: () => this.fail('the server does not read: too many frames queued behind socket backpressure'),
    });
    this.socket.on('data', (chunk: Buffer) => {
      // After a GOAWAY of ours the rest is read and dropped (see protocolError).
      if (this.failed) return;
      const err = this.frames.push(chunk, (type, flags, streamId, payload) => {
        this.onFrame(type, flags, streamId, payload);
        return !this.failed;
      });
      if (err) this.protocolError(ErrorCode.FRAME_SIZE_ERROR, err);
    });
    // A server that offers ALPN but not h2 aborts the handshake with a no_application_protocol
    // alert (RFC 7301 §3.2); the error then surfaces from whichever read or write saw it.
    this.socket.on('error', (e) => this.fail(/no application protocol/i.test(e.message) ? `${opts.host}:${opts.port} did not negotiate HTTP/2 (ALPN): ${e.message}` : e.message));
    this.socket.on('close', () => this.fail(this.goawayCode !== ErrorCode.NO_ERROR ? `Session closed with error code ${this.goawayCode}` : 'Connection dropped'));
    const settings = Buffer.alloc(18);
    settings.writeUInt16BE(Setting.ENABLE_PUSH, 0);
    settings.writeUInt32BE(0, 2);
    settings.writeUInt16BE(Setting.INITIAL_WINDOW_SIZE, 6);
    settings.writeUInt32BE(opts.streamWindow, 8);
    settings.writeUInt16BE(Setting.MAX_HEADER_LIST_SIZE, 12);
    settings.writeUInt32BE(this.maxHeaderList, 14);
    this.writer.raw(PREFACE);
    this.frame(FrameType.SETTINGS, 0, 0, settings);
    if (opts.connectionWindow > DEFAULT_WINDOW) this.writer.u32Frame(FrameType.WINDOW_UPDATE, 0, opts.connectionWindow - DEFAULT_WINDOW);
    this.pinger = setInterval(() => this.ping(), opts.keepaliveTimeMs);
    this.pinger.unref();
  }

  /** False once GOAWAY, failure or close: callers open a new connection. */
  get usable(): boolean {
    return !this.failed && this.goawayLast === undefined && this.nextId <= MAX_STREAM_ID;
  }

  get openStreams(): number {
    return this.streams.size + this.waiting.length;
  }

  /** For tests and debugging: see FrameWriter.backlog. */
  get writeBacklog(): { congested: boolean; bytes: number } {
    return this.writer.backlog;
  }

  /**
   * Opens a stream now, or when the server's concurrency limit (and the
   * socket's backpressure) allows; throws StreamQueueFullError when
   * maxWaitingStreams already wait.
   */
  request(headerBlock: Buffer, handlers: StreamHandlers): ClientStream {
    if (!this.usable) throw new Error(this.failed ? 'connection closed' : 'connection is going away');
    const canOpen = this.streams.size < this.peerMaxStreams && this.writer.canWrite();
    if (!canOpen && this.waiting.length >= this.maxWaiting) throw new StreamQueueFullError(this.waiting.length, this.peerMaxStreams);
    const s = new Stream(this, headerBlock, handlers);
    if (canOpen) this.open(s);
    else this.waiting.push(s);
    return s;
  }

  /** Closes the connection; open streams fail as after a drop. */
  close(): void {
    this.fail('Connection dropped');
  }

  private open(s: Stream): void {
    s.id = this.nextId;
    this.nextId += 2;
    s.sendWindow = this.peerInitialWindow;
    this.streams.set(s.id, s);
    // The block in one HEADERS frame, or split into CONTINUATIONs past the server's frame size.
    const block = s.headerBlock;
    const endStream = s.endQueued && s.pendingBytes === 0;
    let at = Math.min(block.length, this.peerMaxFrame);
    this.frame(FrameType.HEADERS, (endStream ? Flag.END_STREAM : 0) | (at === block.length ? Flag.END_HEADERS : 0), s.id, block.subarray(0, at));
    while (at < block.length) {
      const next = Math.min(block.length, at + this.peerMaxFrame);
      this.frame(FrameType.CONTINUATION, next === block.length ? Flag.END_HEADERS : 0, s.id, block.subarray(at, next));
      at = next;
    }
    if (endStream) s.localEnded = true;
    else this.sendData(s);
    if (this.nextId > MAX_STREAM_ID) this.onUnusable();
  }

  /** @internal Writes what the windows allow of a stream's queued data. */
  sendData(s: Stream): void {
    while (s.pendingBytes > 0) {
      // A full batch or a congested socket holds the data as a closed window does (http2Writer.ts).
      const n = this.writer.canWrite() ? Math.min(s.pendingBytes, this.sendWindow, s.sendWindow, this.peerMaxFrame) : 0;
      if (n <= 0) {
        this.blocked.add(s);
        return;
      }
      const payload = takeBytes(s, n);
      this.sendWindow -= n;
      s.sendWindow -= n;
      const last = s.pendingBytes === 0 && s.endQueued;
      this.frame(FrameType.DATA, last ? Flag.END_STREAM : 0, s.id, payload);
      if (last) s.localEnded = true;
    }
    this.blocked.delete(s);
    if (s.endQueued && !s.localEnded) {
      this.frame(FrameType.DATA, Flag.END_STREAM, s.id, Buffer.alloc(0));
      s.localEnded = true;
    }
    this.maybeClosed(s);
  }

  /** @internal */
  cancel(s: Stream): void {
    if (s.done) return;
    s.done = true;
    const w = this.waiting.indexOf(s);
    if (w >= 0) this.waiting.splice(w, 1);
    if (s.id === 0) return;
    this.streams.delete(s.id);
    this.blocked.delete(s);
    if (!this.failed) this.writer.u32Frame(FrameType.RST_STREAM, s.id, ErrorCode.CANCEL);
    this.openWaiting();
  }

  private maybeClosed(s: Stream): void {
    if (s.done || !s.localEnded || !s.remoteEnded) return;
    this.finish(s, { kind: 'closed' });
  }

  private finish(s: Stream, outcome: StreamOutcome): void {
    if (s.done) return;
    s.done = true;
    this.streams.delete(s.id);
    this.blocked.delete(s);
    this.openWaiting();
    s.handlers.onClose(outcome);
  }

  private openWaiting(): void {
    while (this.waiting.length > 0 && this.streams.size < this.peerMaxStreams && this.usable && this.writer.canWrite()) this.open(this.waiting.shift()!);
    if (this.goawayLast !== undefined && this.streams.size === 0 && !this.failed) this.close();
  }

  private fail(message: string, linger = false): void {
    if (this.failed) return;
    this.failed = true;
    this.writer.closed = true;
    clearInterval(this.pinger);
    clearTimeout(this.pingTimer);
    if (linger) setTimeout(() => this.socket.destroy(), GOAWAY_LINGER_MS).unref();
    else this.socket.destroy();
    this.onUnusable();
    const all = [...this.streams.values(), ...this.waiting];
    this.streams.clear();
    this.waiting.length = 0;
    for (const s of all) {
      // Certainly unprocessed: never sent (no id, or no connection), or above the GOAWAY's last stream.
      const unprocessed = s.id === 0 || !this.connected || (this.goawayLast !== undefined && s.id > this.goawayLast);
      this.finish(s, { kind: 'failed', message, unprocessed });
    }
  }

  /** Sends GOAWAY with a connection error and gives up on the connection. */
  private protocolError(code: number, message: string): void {
    const payload = Buffer.alloc(8);
    payload.writeUInt32BE(0, 0);
    payload.writeUInt32BE(code, 4);
    this.frame(FrameType.GOAWAY, 0, 0, payload);
    this.writer.end();
    // Closing at once with the server's bytes still unread would answer with a
    // TCP reset, which can discard the GOAWAY before the server reads it: the
    // socket is half-closed and read (and dropped) until the server closes or
    // GOAWAY_LINGER_MS pass.
    this.fail(message, true);
  }

  /** RST_STREAM with the code; the stream ends with the server at fault (§5.4.2). */
  private streamError(s: Stream, code: number, message: string): void {
    this.writer.u32Frame(FrameType.RST_STREAM, s.id, code);
    this.finish(s, { kind: 'error', code, message });
  }

  private ping(): void {
    if (this.failed || this.pingTimer || this.openStreams === 0) return;
    this.pingTimer = setTimeout(() => {
      this.socket.destroy();
      this.fail('keepalive ping not answered');
    }, this.opts.keepaliveTimeoutMs);
    this.pingTimer.unref();
    this.frame(FrameType.PING, 0, 0, Buffer.alloc(8));
  }

  // ---- reading ----

  private onFrame(type: number, flags: number, streamId: number, payload: Buffer): void {
    if (this.headerBlocks.open && type !== FrameType.CONTINUATION) return this.protocolError(ErrorCode.PROTOCOL_ERROR, 'expected a CONTINUATION frame');
    const size = FIXED_PAYLOAD_SIZE[type];
    if (size !== undefined && (type === FrameType.GOAWAY ? payload.length < size : payload.length !== size)) return this.protocolError(ErrorCode.FRAME_SIZE_ERROR, `frame of type ${type} with a ${payload.length}-byte payload`);
    if (type === FrameType.SETTINGS && payload.length % 6 !== 0) return this.protocolError(ErrorCode.FRAME_SIZE_ERROR, 'SETTINGS payload not a multiple of 6');
    switch (type) {
      case FrameType.DATA:
        return this.onDataFrame(flags, streamId, payload);
      case FrameType.HEADERS:
        return this.connectionError(this.headerBlocks.headers(streamId, flags, payload));
      case FrameType.CONTINUATION:
        return this.connectionError(this.headerBlocks.continuation(streamId, flags, payload));
      case FrameType.RST_STREAM: {
        const s = this.streams.get(streamId);
        if (s) this.finish(s, { kind: 'reset', code: payload.readUInt32BE(0) });
        return;
      }
      case FrameType.SETTINGS:
        if (!(flags & Flag.ACK)) this.onSettings(payload);
        return;
      case FrameType.PING:
        if (flags & Flag.ACK) {
          clearTimeout(this.pingTimer);
          this.pingTimer = undefined;
        } else this.frame(FrameType.PING, Flag.ACK, 0, payload);
        return;
      case FrameType.GOAWAY:
        return this.onGoaway(payload.readUInt32BE(0) & MAX_STREAM_ID, payload.readUInt32BE(4));
      case FrameType.WINDOW_UPDATE:
        return this.onWindowUpdate(streamId, payload.readUInt32BE(0) & MAX_STREAM_ID);
      case FrameType.PUSH_PROMISE:
        return this.protocolError(ErrorCode.PROTOCOL_ERROR, 'PUSH_PROMISE with push disabled');
      default:
        // PRIORITY and unknown frame types are ignored (§5.5).
        return;
    }
  }

  private onDataFrame(flags: number, streamId: number, payload: Buffer): void {
    // Padding counts against the windows too; all of it is consumed now.
    this.recvUnacked += payload.length;
    if (this.recvUnacked >= this.opts.connectionWindow / 2) {
      this.writer.u32Frame(FrameType.WINDOW_UPDATE, 0, this.recvUnacked);
      this.recvUnacked = 0;
    }
    const s = this.streams.get(streamId);
    if (!s || s.remoteEnded) return;
    const data = unpad(flags, payload);
    if (!data) return this.protocolError(ErrorCode.PROTOCOL_ERROR, 'bad padding');
    const endStream = (flags & Flag.END_STREAM) !== 0;
    if (!endStream) {
      s.recvUnacked += payload.length;
      if (s.recvUnacked >= this.opts.streamWindow / 2) {
        this.writer.u32Frame(FrameType.WINDOW_UPDATE, s.id, s.recvUnacked);
        s.recvUnacked = 0;
      }
    } else s.remoteEnded = true;
    s.handlers.onData(data, endStream);
    this.maybeClosed(s);
  }

  private connectionError(e: ConnectionError | undefined): void {
    if (e) this.protocolError(e.code, e.message);
  }

  private onHeaderBlock(streamId: number, endStream: boolean, fields: HeaderField[], withinLimit: boolean): void {
    const s = this.streams.get(streamId);
    if (!s || s.remoteEnded) return;
    if (!withinLimit) return this.streamError(s, ErrorCode.FRAME_SIZE_ERROR, 'peer header list size exceeded limit');
    if (endStream) s.remoteEnded = true;
    s.handlers.onHeaders(fields, endStream);
    this.maybeClosed(s);
  }

  private onSettings(payload: Buffer): void {
    if (!this.peerSettingsSeen) {
      this.peerSettingsSeen = true;
      this.peerMaxStreams = Infinity;
    }
    for (let at = 0; at + 6 <= payload.length; at += 6) {
      const id = payload.readUInt16BE(at);
      const value = payload.readUInt32BE(at + 2);
      if (id === Setting.MAX_CONCURRENT_STREAMS) this.peerMaxStreams = value;
      else if (id === Setting.MAX_FRAME_SIZE) {
        if (value < DEFAULT_MAX_FRAME || value > MAX_FRAME_LIMIT) return this.protocolError(ErrorCode.PROTOCOL_ERROR, `SETTINGS_MAX_FRAME_SIZE ${value} out of range`);
        this.peerMaxFrame = value;
      }
      else if (id === Setting.INITIAL_WINDOW_SIZE) {
        if (value > MAX_WINDOW) return this.protocolError(ErrorCode.FLOW_CONTROL_ERROR, 'initial window size too large');
        // §6.9.2: a new initial size moves every open stream's window by the
        // difference; one pushed past the maximum is a connection error.
        const delta = value - this.peerInitialWindow;
        for (const s of this.streams.values()) if (s.sendWindow + delta > MAX_WINDOW) return this.protocolError(ErrorCode.FLOW_CONTROL_ERROR, `SETTINGS_INITIAL_WINDOW_SIZE ${value} moves stream ${s.id}'s window past 2^31-1`);
        this.peerInitialWindow = value;
        for (const s of this.streams.values()) s.sendWindow += delta;
      }
    }
    this.frame(FrameType.SETTINGS, Flag.ACK, 0, Buffer.alloc(0));
    for (const s of [...this.blocked]) this.sendData(s);
    this.openWaiting();
  }

  private onGoaway(lastStreamId: number, code: number): void {
    this.goawayLast = Math.min(lastStreamId, this.goawayLast ?? lastStreamId);
    this.goawayCode = code;
    this.onUnusable();
    if (code !== ErrorCode.NO_ERROR) return this.fail(`Session closed with error code ${code}`);
    const message = 'the server went away before this stream (GOAWAY)';
    for (const s of [...this.streams.values()]) if (s.id > this.goawayLast) this.finish(s, { kind: 'failed', message, unprocessed: true });
    for (const s of this.waiting.splice(0)) this.finish(s, { kind: 'failed', message, unprocessed: true });
    this.openWaiting();
  }

  private onWindowUpdate(streamId: number, increment: number): void {
    if (streamId === 0) {
      if (increment === 0) return this.protocolError(ErrorCode.PROTOCOL_ERROR, 'WINDOW_UPDATE with a zero increment on the connection');
      if (this.sendWindow + increment > MAX_WINDOW) return this.protocolError(ErrorCode.FLOW_CONTROL_ERROR, 'WINDOW_UPDATE moves the connection window past 2^31-1');
      this.sendWindow += increment;
      for (const s of [...this.blocked]) this.sendData(s);
      return;
    }
    // A stream we no longer follow (closed, cancelled): nothing to send on it, nothing to check.
    const s = this.streams.get(streamId);
    if (!s) return;
    if (increment === 0) return this.streamError(s, ErrorCode.PROTOCOL_ERROR, 'WINDOW_UPDATE with a zero increment');
    if (s.sendWindow + increment > MAX_WINDOW) return this.streamError(s, ErrorCode.FLOW_CONTROL_ERROR, 'WINDOW_UPDATE moves the stream window past 2^31-1');
    s.sendWindow += increment;
    if (this.blocked.has(s)) this.sendData(s);
  }

  private frame(type: number, flags: number, streamId: number, payload: Buffer): void {
    this.writer.frame(type, flags, streamId, payload);
  }
}

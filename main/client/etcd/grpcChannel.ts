// A gRPC client channel to one etcd member, on an HTTP/2 connection of our
// own (http2Connection.ts): the API server's etcd traffic is a handful of
// call shapes (unary KV/Lease calls, bidirectional Watch streams) on one
// connection per member, and grpc-js' general machinery around each call
// (resolver, load balancer, retry and interceptor layers, per-call metadata
// objects) cost the API server about a tenth of its CPU under load
// (profiled: 0.8 s of 11 s busy in grpc-js' own frames); node:http2's
// per-stream machinery most of another tenth. What remains is the protocol:
//   - each call is an HTTP/2 POST to /<service>/<method> with
//     content-type application/grpc and te: trailers; messages are framed as
//     a 1-byte compressed flag, a 4-byte big-endian length and the bytes;
//   - the status comes in trailers (grpc-status, grpc-message), or in the
//     response headers for a trailers-only reply;
//   - a call that ends without a status is mapped as grpc-go maps it: a
//     connection that failed or went away is UNAVAILABLE, a reset stream by
//     its code;
//   - keepalive (in the connection): with a call open, a PING every
//     keepaliveTimeMs; no ack within keepaliveTimeoutMs tears the connection
//     down (a paused member never answers), and every open call fails
//     UNAVAILABLE.
// The connection is made on first use and again after it fails.

import { isIP } from 'node:net';
import { checkServerIdentity, type ConnectionOptions } from 'node:tls';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { HeaderField } from '../../common/http2/hpackDecoder';
import { encodeHeaderBlock } from '../../common/http2/hpackEncoder';
import { frame, GrpcCallError, type ChannelOptions, type ChannelTls, type EtcdChannel, type StreamCall, type StreamHandlers } from './etcdChannel';
import { Http2Connection, type ClientStream, type StreamOutcome } from './http2Connection';
import { ErrorCode } from './http2Frames';

// Flow-control windows big enough for a page of a list (1,000 objects) to
// arrive without waiting on WINDOW_UPDATEs.
const STREAM_WINDOW = 4 << 20;
const SESSION_WINDOW = 16 << 20;

/** grpc-go's mapping of an HTTP status without a grpc-status (status.go httpStatusConvTab). */
function fromHttpStatus(httpStatus: number): number {
  if (httpStatus === 400) return GrpcStatus.INTERNAL;
  if (httpStatus === 401) return GrpcStatus.UNAUTHENTICATED;
  if (httpStatus === 403) return GrpcStatus.PERMISSION_DENIED;
  if (httpStatus === 404) return GrpcStatus.UNIMPLEMENTED;
  if (httpStatus === 429 || httpStatus === 502 || httpStatus === 503 || httpStatus === 504) return GrpcStatus.UNAVAILABLE;
  return GrpcStatus.UNKNOWN;
}

/** A stream reset without a status (grpc-js' mapping of RST_STREAM codes). */
function fromResetCode(code: number): GrpcCallError {
  if (code === ErrorCode.REFUSED_STREAM) return new GrpcCallError(GrpcStatus.UNAVAILABLE, 'Stream refused by server', true);
  if (code === ErrorCode.CANCEL) return new GrpcCallError(GrpcStatus.CANCELLED, 'Call cancelled');
  if (code === ErrorCode.ENHANCE_YOUR_CALM) return new GrpcCallError(GrpcStatus.RESOURCE_EXHAUSTED, 'Bandwidth exhausted or memory limit exceeded');
  if (code === ErrorCode.INADEQUATE_SECURITY) return new GrpcCallError(GrpcStatus.PERMISSION_DENIED, 'Protocol not secure enough');
  return new GrpcCallError(GrpcStatus.INTERNAL, `Received RST_STREAM with code ${code}`);
}

function grpcMessage(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Splits a call's DATA into messages, whatever the chunk boundaries. */
export class MessageReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** The complete messages this chunk finishes; throws on a compressed message (never asked for). */
  push(chunk: Buffer): Buffer[] {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    const out: Buffer[] = [];
    while (this.pendingBytes >= 5) {
      const head = this.pending[0].length >= 5 ? this.pending[0] : this.flatten();
      if (head[0] !== 0) throw new GrpcCallError(GrpcStatus.INTERNAL, 'received a compressed message without grpc-encoding');
      const length = head.readUInt32BE(1);
      if (this.pendingBytes < 5 + length) break;
      const all = this.flatten();
      out.push(all.subarray(5, 5 + length));
      const rest = all.subarray(5 + length);
      this.pending = rest.length > 0 ? [rest] : [];
      this.pendingBytes = rest.length;
    }
    return out;
  }

  private flatten(): Buffer {
    if (this.pending.length > 1) this.pending = [Buffer.concat(this.pending, this.pendingBytes)];
    return this.pending[0];
  }
}

export class GrpcChannel implements EtcdChannel {
  /** The connection calls go on now; replaced after it fails or goes away. */
  private active: Http2Connection | undefined;
  private closed = false;
  private readonly host: string;
  private readonly port: number;
  private readonly tls: ConnectionOptions | undefined;
  private readonly authority: string;
  private readonly scheme: string;
  /** Per method path: the call's constant header fields, HPACK-encoded once. */
  private readonly blocks = new Map<string, Buffer>();

  /** url: "http://host:port" (plaintext HTTP/2) or "https://host:port" (TLS with tls). */
  constructor(url: string, tls: ChannelTls | undefined, private readonly opts: ChannelOptions) {
    const u = new URL(url);
    this.scheme = u.protocol === 'https:' ? 'https' : 'http';
    this.authority = u.host;
    this.host = u.hostname.replace(/^\[(.*)\]$/, '$1');
    this.port = Number(u.port || (this.scheme === 'https' ? 443 : 80));
    const host = this.host;
    this.tls =
      this.scheme === 'https' && tls
        ? {
            ca: tls.ca,
            cert: tls.cert,
            key: tls.key,
            // An IP is not a valid SNI name (RFC 6066): send "localhost", as
            // grpc-js' target name override did, and check the certificate
            // against the IP itself, as etcdctl does.
            ...(isIP(host) !== 0 ? { servername: 'localhost', checkServerIdentity: (_name: string, cert: Parameters<typeof checkServerIdentity>[1]) => checkServerIdentity(host, cert) } : {}),
          }
        : undefined;
  }

  /** One request message, one response message. */
  unary(path: string, request: Uint8Array, deadline: number): Promise<Buffer> {
    return this.unaryFramed(path, frame(request), deadline);
  }

  /** unary() with the request already framed (frame()), as encoders that write the prefix themselves give it. */
  unaryFramed(path: string, framed: Buffer, deadline: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      let response: Buffer | undefined;
      const timeoutMs = Math.max(1, deadline - Date.now());
      let timer: NodeJS.Timeout | undefined;
      const call = this.start(path, { 'grpc-timeout': `${Math.ceil(timeoutMs)}m` }, {
        onMessage: (m) => (response = m),
        onEnd: (err) => {
          clearTimeout(timer);
          if (err) reject(err);
          else if (!response) reject(new GrpcCallError(GrpcStatus.UNIMPLEMENTED, 'No message received'));
          else resolve(response);
        },
      });
      if (!call) return;
      timer = setTimeout(() => call.fail(new GrpcCallError(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded')), timeoutMs);
      call.stream.write(framed, true);
    });
  }

  /** A bidirectional stream; headers are the call's metadata (e.g. hasleader). */
  stream(path: string, metadata: Record<string, string>, handlers: StreamHandlers): StreamCall {
    const call = this.start(path, metadata, handlers);
    return {
      write: (m) => call?.stream.write(frame(m), false),
      cancel: () => call?.fail(new GrpcCallError(GrpcStatus.CANCELLED, 'Cancelled on client')),
    };
  }

  /** Closes the connection; calls still open fail UNAVAILABLE, later ones too. */
  close(): void {
    this.closed = true;
    this.active?.close();
    this.active = undefined;
  }

  private start(path: string, metadata: Record<string, string>, handlers: StreamHandlers): { stream: ClientStream; fail(err: GrpcCallError): void } | undefined {
    let ended = false;
    const end = (err: GrpcCallError | undefined) => {
      if (ended) return;
      ended = true;
      handlers.onEnd(err);
    };
    const reader = new MessageReader();
    let status: GrpcCallError | null | undefined; // null = OK
    let sawResponse = false;
    const takeStatus = (fields: HeaderField[]) => {
      let code: string | undefined;
      let message = '';
      for (const f of fields) {
        if (f.name === 'grpc-status') code = f.value;
        else if (f.name === 'grpc-message') message = f.value;
      }
      if (code === undefined) return;
      const n = Number(code);
      status = n === GrpcStatus.OK ? null : new GrpcCallError(n, grpcMessage(message));
    };
    // The server is done once its side ends with a status; a stream we still
    // have open for writing (a watch) would otherwise stay half-open forever,
    // so our side ends too (END_STREAM, not a reset: nghttp2 counts a reset
    // of a stream it already closed as an invalid frame, and a server closes
    // a connection after enough of those).
    const remoteEnded = () => {
      end(status === undefined ? new GrpcCallError(GrpcStatus.INTERNAL, 'Stream closed without a status') : (status ?? undefined));
      if (!stream.localEnded) stream.write(Buffer.alloc(0), true);
    };
    let stream: ClientStream;
    try {
      stream = this.request(path, metadata, {
        onHeaders: (fields, endStream) => {
          if (!sawResponse) {
            sawResponse = true;
            const httpStatus = Number(fields.find((f) => f.name === ':status')?.value);
            if (httpStatus !== 200) status = new GrpcCallError(fromHttpStatus(httpStatus), `Received HTTP status code ${httpStatus}`);
            else takeStatus(fields);
          } else takeStatus(fields);
          if (endStream) remoteEnded();
        },
        onData: (chunk, endStream) => {
          if (!ended && chunk.length > 0) {
            try {
              for (const m of reader.push(chunk)) handlers.onMessage(m);
            } catch (e) {
              fail(e instanceof GrpcCallError ? e : new GrpcCallError(GrpcStatus.INTERNAL, (e as Error).message));
              return;
            }
          }
          if (endStream) remoteEnded();
        },
        onClose: (outcome: StreamOutcome) => {
          if (outcome.kind === 'closed') return;
          // The server broke a bound on this stream (we reset it): grpc-go's client answers INTERNAL.
          if (outcome.kind === 'error') return end(new GrpcCallError(GrpcStatus.INTERNAL, outcome.message));
          if (status !== undefined) return end(status ?? undefined);
          // The connection failed (refused, dropped, keepalive): UNAVAILABLE, so the caller moves on.
          if (outcome.kind === 'failed') return end(new GrpcCallError(GrpcStatus.UNAVAILABLE, outcome.message, outcome.unprocessed));
          end(outcome.code === 0 ? new GrpcCallError(GrpcStatus.INTERNAL, 'Stream closed without a status') : fromResetCode(outcome.code));
        },
      });
    } catch (e) {
      // Never synchronously from inside unary()/stream(): callers set up after those return.
      process.nextTick(() => end(new GrpcCallError(GrpcStatus.UNAVAILABLE, (e as Error).message, true)));
      return undefined;
    }
    const fail = (err: GrpcCallError) => {
      end(err);
      stream.cancel();
    };
    return { stream, fail };
  }

  private request(path: string, metadata: Record<string, string>, handlers: Parameters<Http2Connection['request']>[1]): ClientStream {
    const block = this.headerBlock(path, metadata);
    let conn = this.connection();
    try {
      return conn.request(block, handlers);
    } catch (e) {
      // A full wait queue on a live connection: a fresh one would not help.
      if (conn.usable) throw e;
      // Out of stream ids, or a connection that just went away: once more on a fresh one.
      if (this.active === conn) this.active = undefined;
      conn = this.connection();
      return conn.request(block, handlers);
    }
  }

  /** :method, :scheme, :path, :authority, content-type and te, encoded once per path; then the call's metadata. */
  private headerBlock(path: string, metadata: Record<string, string>): Buffer {
    let fixed = this.blocks.get(path);
    if (!fixed) {
      const fields = [
        [':method', 'POST'],
        [':scheme', this.scheme],
        [':path', path],
        [':authority', this.authority],
        ['content-type', 'application/grpc'],
        ['te', 'trailers'],
      ];
      fixed = encodeHeaderBlock(fields.map(([name, value]) => ({ name, value, sensitive: false })));
      this.blocks.set(path, fixed);
    }
    const extra = Object.entries(metadata).map(([name, value]) => ({ name, value, sensitive: false }));
    return extra.length === 0 ? fixed : Buffer.concat([fixed, encodeHeaderBlock(extra)]);
  }

  private connection(): Http2Connection {
    if (this.closed) throw new Error('channel closed');
    const current = this.active;
    if (current?.usable) return current;
    const c = new Http2Connection({
      host: this.host,
      port: this.port,
      tls: this.tls,
      streamWindow: STREAM_WINDOW,
      connectionWindow: SESSION_WINDOW,
      keepaliveTimeMs: this.opts.keepaliveTimeMs,
      keepaliveTimeoutMs: this.opts.keepaliveTimeoutMs,
    });
    // Open calls see the failure on their streams; the next call reconnects.
    c.onUnusable = () => {
      if (this.active === c) this.active = undefined;
    };
    this.active = c;
    return c;
  }
}

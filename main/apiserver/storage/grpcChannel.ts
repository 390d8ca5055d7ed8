// A gRPC client channel to one etcd member, straight on node:http2: the API
// server's etcd traffic is a handful of call shapes (unary KV/Lease calls,
// bidirectional Watch streams) on one connection per member, and grpc-js'
// general machinery around each call (resolver, load balancer, retry and
// interceptor layers, per-call metadata objects) cost the API server about a
// tenth of its CPU under load (profiled: 0.8 s of 11 s busy in grpc-js' own
// frames). What remains is the protocol itself:
//   - each call is an HTTP/2 POST to /<service>/<method> with
//     content-type application/grpc and te: trailers; messages are framed as
//     a 1-byte compressed flag, a 4-byte big-endian length and the bytes;
//   - the status comes in trailers (grpc-status, grpc-message), or in the
//     response headers for a trailers-only reply;
//   - a call that ends without a status is mapped as grpc-go maps it: a
//     connection that failed or went away is UNAVAILABLE, a reset stream by
//     its code;
//   - keepalive: with a call open, a PING every keepaliveTimeMs; no ack within
//     keepaliveTimeoutMs tears the connection down (a paused member never
//     answers), and every open call fails UNAVAILABLE.
// The connection is made on first use and again after it fails.

import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders, type SecureClientSessionOptions } from 'node:http2';
import { isIP } from 'node:net';
import { checkServerIdentity } from 'node:tls';
import { status as GrpcStatus } from '@grpc/grpc-js';

/**
 * A call's end when it is not OK: grpc's status code and message, and
 * whether the server certainly never processed the request (it was never
 * sent, the stream was refused, or a GOAWAY said the server stopped below
 * it) — only then may a write be tried again elsewhere (clientv3's
 * isSafeRetryMutableRPC).
 */
export class GrpcCallError extends Error {
  constructor(readonly code: number, readonly details: string, readonly unprocessed = false) {
    super(details);
    this.name = 'GrpcCallError';
  }
}

export interface ChannelTls {
  ca?: Buffer;
  cert: Buffer;
  key: Buffer;
}

export interface ChannelOptions {
  /** PING interval while a call is open. */
  keepaliveTimeMs: number;
  /** How long a PING may go unanswered before the connection is dropped. */
  keepaliveTimeoutMs: number;
}

/** A streaming call: write messages, end or cancel it; onMessage/onEnd as it runs. */
export interface StreamCall {
  write(message: Uint8Array): void;
  cancel(): void;
}

export interface StreamHandlers {
  onMessage(message: Buffer): void;
  /** The call is over: undefined for OK, else why. Called once. */
  onEnd(err: GrpcCallError | undefined): void;
}

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
  if (code === constants.NGHTTP2_REFUSED_STREAM) return new GrpcCallError(GrpcStatus.UNAVAILABLE, 'Stream refused by server', true);
  if (code === constants.NGHTTP2_CANCEL) return new GrpcCallError(GrpcStatus.CANCELLED, 'Call cancelled');
  if (code === constants.NGHTTP2_ENHANCE_YOUR_CALM) return new GrpcCallError(GrpcStatus.RESOURCE_EXHAUSTED, 'Bandwidth exhausted or memory limit exceeded');
  if (code === constants.NGHTTP2_INADEQUATE_SECURITY) return new GrpcCallError(GrpcStatus.PERMISSION_DENIED, 'Protocol not secure enough');
  return new GrpcCallError(GrpcStatus.INTERNAL, `Received RST_STREAM with code ${code}`);
}

function grpcMessage(raw: string | string[] | undefined): string {
  const text = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** 1 byte compressed flag (0), 4 bytes length, the message. */
export function frame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
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

export class GrpcChannel {
  private session: ClientHttp2Session | undefined;
  /** Per connection that received a GOAWAY: the last stream id the server says it processed. */
  private readonly goawayLastStream = new WeakMap<ClientHttp2Session, number>();
  private open = 0;
  private closed = false;
  private readonly authority: string;
  private readonly connectOptions: SecureClientSessionOptions;

  /** url: "http://host:port" (plaintext HTTP/2) or "https://host:port" (TLS with tls). */
  constructor(url: string, tls: ChannelTls | undefined, private readonly opts: ChannelOptions) {
    const u = new URL(url);
    this.authority = `${u.protocol}//${u.host}`;
    const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
    this.connectOptions = {
      settings: { initialWindowSize: STREAM_WINDOW, enablePush: false },
      maxSessionMemory: 64,
      ...(u.protocol === 'https:' && tls
        ? {
            ca: tls.ca,
            cert: tls.cert,
            key: tls.key,
            ALPNProtocols: ['h2'],
            // An IP is not a valid SNI name (RFC 6066): send "localhost", as
            // grpc-js' target name override did, and check the certificate
            // against the IP itself, as etcdctl does.
            ...(isIP(host) !== 0 ? { servername: 'localhost', checkServerIdentity: (_name: string, cert: Parameters<typeof checkServerIdentity>[1]) => checkServerIdentity(host, cert) } : {}),
          }
        : {}),
    };
  }

  /** One request message, one response message. */
  unary(path: string, request: Uint8Array, deadline: number): Promise<Buffer> {
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
      call.stream.end(frame(request));
    });
  }

  /** A bidirectional stream; headers are the call's metadata (e.g. hasleader). */
  stream(path: string, metadata: Record<string, string>, handlers: StreamHandlers): StreamCall {
    const call = this.start(path, metadata, handlers);
    return {
      write: (m) => {
        if (call && !call.stream.destroyed && !call.stream.closed) call.stream.write(frame(m));
      },
      cancel: () => call?.fail(new GrpcCallError(GrpcStatus.CANCELLED, 'Cancelled on client')),
    };
  }

  /** Closes the connection; calls still open fail UNAVAILABLE, later ones too. */
  close(): void {
    this.closed = true;
    this.session?.destroy();
    this.session = undefined;
  }

  private start(path: string, metadata: Record<string, string>, handlers: StreamHandlers): { stream: ClientHttp2Stream; fail(err: GrpcCallError): void } | undefined {
    let ended = false;
    const end = (err: GrpcCallError | undefined) => {
      if (ended) return;
      ended = true;
      handlers.onEnd(err);
    };
    let stream: ClientHttp2Stream;
    let session: ClientHttp2Session;
    try {
      ({ stream, session } = this.request(path, metadata));
    } catch (e) {
      // Never synchronously from inside unary()/stream(): callers set up after those return.
      process.nextTick(() => end(new GrpcCallError(GrpcStatus.UNAVAILABLE, (e as Error).message, true)));
      return undefined;
    }
    this.open++;
    const reader = new MessageReader();
    let status: GrpcCallError | null | undefined; // null = OK
    let failure: Error | undefined;
    const takeStatus = (h: IncomingHttpHeaders) => {
      const code = h['grpc-status'];
      if (code === undefined) return;
      const n = Number(code);
      status = n === GrpcStatus.OK ? null : new GrpcCallError(n, grpcMessage(h['grpc-message']));
    };
    stream.on('response', (h) => {
      const httpStatus = Number(h[':status']);
      if (httpStatus !== 200) status = new GrpcCallError(fromHttpStatus(httpStatus), `Received HTTP status code ${httpStatus}`);
      else takeStatus(h);
    });
    stream.on('trailers', takeStatus);
    stream.on('data', (chunk: Buffer) => {
      if (ended) return;
      try {
        for (const m of reader.push(chunk)) handlers.onMessage(m);
      } catch (e) {
        fail(e instanceof GrpcCallError ? e : new GrpcCallError(GrpcStatus.INTERNAL, (e as Error).message));
      }
    });
    stream.on('error', (e: Error) => (failure ??= e));
    // The server is done once its side ends with a status; a stream we still
    // have open for writing (a watch) would otherwise stay half-open forever,
    // so our side ends too (END_STREAM, not a reset: nghttp2 counts a reset
    // of a stream it already closed as an invalid frame, and a server closes
    // a connection after enough of those).
    stream.on('end', () => {
      if (status === undefined) return;
      end(status ?? undefined);
      if (!stream.writableEnded && !stream.destroyed) stream.end();
    });
    stream.on('close', () => {
      this.open--;
      if (status !== undefined) return end(status ?? undefined);
      // The connection failed (refused, dropped, keepalive): UNAVAILABLE, so the caller moves on.
      if (session.destroyed) {
        // Never given an id (the connection failed first), or above the last stream a GOAWAY said the server handled.
        const last = this.goawayLastStream.get(session);
        const unprocessed = stream.id === undefined || (last !== undefined && stream.id > last);
        return end(new GrpcCallError(GrpcStatus.UNAVAILABLE, failure?.message ?? 'Connection dropped', unprocessed));
      }
      if (stream.rstCode !== undefined && stream.rstCode !== constants.NGHTTP2_NO_ERROR) return end(fromResetCode(stream.rstCode));
      end(new GrpcCallError(failure ? GrpcStatus.UNAVAILABLE : GrpcStatus.INTERNAL, failure?.message ?? 'Stream closed without a status'));
    });
    const fail = (err: GrpcCallError) => {
      end(err);
      if (!stream.closed && !stream.destroyed) stream.close(constants.NGHTTP2_CANCEL);
    };
    return { stream, fail };
  }

  private request(path: string, metadata: Record<string, string>): { stream: ClientHttp2Stream; session: ClientHttp2Session } {
    const headers = { ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', ...metadata };
    let session = this.connection();
    try {
      return { stream: session.request(headers), session };
    } catch {
      // Out of stream ids, or a session that just went away: once more on a fresh connection.
      if (this.session === session) this.session = undefined;
      session.close();
      session = this.connection();
      return { stream: session.request(headers), session };
    }
  }

  private connection(): ClientHttp2Session {
    if (this.closed) throw new Error('channel closed');
    const current = this.session;
    if (current && !current.closed && !current.destroyed) return current;
    const s = connect(this.authority, this.connectOptions);
    this.session = s;
    const forget = () => {
      if (this.session === s) this.session = undefined;
    };
    // Open calls see the failure on their streams; the next call reconnects.
    s.on('error', forget);
    s.on('goaway', (_code: number, lastStreamID: number) => {
      this.goawayLastStream.set(s, lastStreamID);
      forget();
    });
    s.on('close', forget);
    s.once('connect', () => {
      try {
        s.setLocalWindowSize(SESSION_WINDOW);
      } catch {
        // The session closed meanwhile.
      }
    });
    const pinger = setInterval(() => this.ping(s), this.opts.keepaliveTimeMs);
    pinger.unref();
    s.once('close', () => clearInterval(pinger));
    return s;
  }

  private ping(s: ClientHttp2Session): void {
    if (this.open === 0 || s !== this.session || s.connecting || s.destroyed) return;
    const timer = setTimeout(() => s.destroy(new Error('keepalive ping not answered')), this.opts.keepaliveTimeoutMs);
    timer.unref();
    try {
      s.ping((err) => {
        clearTimeout(timer);
        if (err && !s.destroyed) s.destroy(err);
      });
    } catch {
      clearTimeout(timer);
    }
  }
}

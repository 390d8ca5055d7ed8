// The gRPC channel the etcd client (etcdClient.ts, etcdWatch.ts) calls
// through, and what both of its transports share: `--etcd-client-transport`
// picks our own HTTP/2 client (grpcChannel.ts, "builtin", the default) or
// @grpc/grpc-js (grpcJsChannel.ts, "grpc-js": a well-known client to compare
// against when a member misbehaves). Both give the same statuses and the same
// `unprocessed` verdict; grpcChannel.test.ts runs one suite against each.

/** The values of --etcd-client-transport. */
export const CHANNEL_TRANSPORTS = ['builtin', 'grpc-js'] as const;
export type ChannelTransport = (typeof CHANNEL_TRANSPORTS)[number];

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

/** One etcd member's gRPC channel: unary calls and bidirectional streams, connected on first use. */
export interface EtcdChannel {
  /** One request message, one response message. */
  unary(path: string, request: Uint8Array, deadline: number): Promise<Buffer>;
  /** unary() with the request already framed (frame()), as encoders that write the prefix themselves give it. */
  unaryFramed(path: string, framed: Buffer, deadline: number): Promise<Buffer>;
  /** A bidirectional stream; metadata are the call's headers (e.g. hasleader). */
  stream(path: string, metadata: Record<string, string>, handlers: StreamHandlers): StreamCall;
  /** Closes the connection; calls still open fail UNAVAILABLE, later ones too. */
  close(): void;
}

/** 1 byte compressed flag (0), 4 bytes length, the message. */
export function frame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

// The etcd client's channel on @grpc/grpc-js (`--etcd-client-transport=grpc-js`):
// the same contract as grpcChannel.ts (etcdChannel.ts) on a grpc-js Client
// with identity serializers, so the etcd client's own encoders and decoders
// (etcdWire.ts, proto-loader) stay as they are. Kept as the reference to run
// the channel suites against and as a fallback; grpcChannel.ts is the default
// because grpc-js' per-call layers cost the API server about a tenth of its
// CPU under load.
//
// Settings, as the etcd client had them on grpc-js: keepalive pings only
// while a call is open (etcd answers pings without a stream with GOAWAY
// too_many_pings), no receive limit (clientv3's MaxCallRecvMsgSize is
// math.MaxInt32; grpc-js' default of 4 MiB would cut a page of a large list).
//
// A call whose connection a GOAWAY with an error code ended is UNAVAILABLE,
// as grpc-go and grpcChannel.ts report it (grpc-js says INTERNAL).
// grpc-js keeps whether a call reached the server to itself; a call is
// reported certainly unprocessed (GrpcCallError.unprocessed) when its status
// says so: no connection could be made ("No connection established"), or the
// server refused the stream ("Stream refused by server", after grpc-js' own
// transparent retry).

import { Client, Metadata, status as GrpcStatus, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import { clientUrlChannel } from '../../common/tlsChannel';
import { GrpcCallError, type ChannelOptions, type ChannelTls, type EtcdChannel, type StreamCall, type StreamHandlers } from './etcdChannel';

const identity = (b: Buffer): Buffer => b;
const toBuffer = (m: Uint8Array): Buffer => (Buffer.isBuffer(m) ? m : Buffer.from(m.buffer, m.byteOffset, m.byteLength));

/** grpc-js' words for a call whose connection a GOAWAY with an error code ended. */
const SESSION_CLOSED = /triggered by internal client error: (Session closed with error code \d+)$/;

function callError(e: { code: number; details: string }): GrpcCallError {
  // grpc-js answers INTERNAL there; grpc-go (and grpcChannel.ts) UNAVAILABLE, which moves the client to another member.
  const closed = e.code === GrpcStatus.INTERNAL ? SESSION_CLOSED.exec(e.details) : null;
  if (closed) return new GrpcCallError(GrpcStatus.UNAVAILABLE, closed[1]);
  const unprocessed = e.code === GrpcStatus.UNAVAILABLE && (e.details.startsWith('No connection established') || e.details === 'Stream refused by server');
  return new GrpcCallError(e.code, e.details, unprocessed);
}

export class GrpcJsChannel implements EtcdChannel {
  private readonly client: Client;
  private closed = false;

  /** url: "http://host:port" (plaintext HTTP/2) or "https://host:port" (TLS with tls). */
  constructor(url: string, tls: ChannelTls | undefined, opts: ChannelOptions) {
    const ch = clientUrlChannel(url, tls);
    if (!ch) throw new Error(`etcd endpoint ${url}: ${url.startsWith('https:') ? 'https needs a client certificate and key' : 'unsupported scheme'}`);
    this.client = new Client(ch.target, ch.credentials, {
      ...ch.options,
      'grpc.keepalive_time_ms': opts.keepaliveTimeMs,
      'grpc.keepalive_timeout_ms': opts.keepaliveTimeoutMs,
      'grpc.keepalive_permit_without_calls': 0,
      'grpc.max_receive_message_length': -1,
    });
  }

  unary(path: string, request: Uint8Array, deadline: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      if (this.closed) return process.nextTick(() => reject(new GrpcCallError(GrpcStatus.UNAVAILABLE, 'channel closed', true)));
      this.client.makeUnaryRequest(path, identity, identity, toBuffer(request), new Metadata(), { deadline }, (err: ServiceError | null, res?: Buffer) => {
        if (err) reject(callError(err));
        else if (!res) reject(new GrpcCallError(GrpcStatus.UNIMPLEMENTED, 'No message received'));
        else resolve(res);
      });
    });
  }

  /** grpc-js frames messages itself: the 5-byte prefix is dropped (a view, no copy). */
  unaryFramed(path: string, framed: Buffer, deadline: number): Promise<Buffer> {
    return this.unary(path, framed.subarray(5), deadline);
  }

  stream(path: string, metadata: Record<string, string>, handlers: StreamHandlers): StreamCall {
    if (this.closed) {
      process.nextTick(() => handlers.onEnd(new GrpcCallError(GrpcStatus.UNAVAILABLE, 'channel closed', true)));
      return { write: () => {}, cancel: () => {} };
    }
    const md = new Metadata();
    for (const [k, v] of Object.entries(metadata)) md.set(k, v);
    const call: ClientDuplexStream<Buffer, Buffer> = this.client.makeBidiStreamRequest(path, identity, identity, md, {});
    let ended = false;
    call.on('data', (m: Buffer) => {
      if (!ended) handlers.onMessage(m);
    });
    // 'status' comes for every end, OK or not; 'error' repeats a non-OK one.
    call.on('error', () => {});
    call.on('status', (s: { code: number; details: string }) => {
      if (ended) return;
      ended = true;
      handlers.onEnd(s.code === GrpcStatus.OK ? undefined : callError(s));
    });
    return {
      write: (m) => {
        if (!ended) call.write(toBuffer(m));
      },
      cancel: () => call.cancel(),
    };
  }

  close(): void {
    this.closed = true;
    this.client.close();
  }
}

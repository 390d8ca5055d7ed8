// A follower's way to the primary lessor: LeaseKeepAlive and LeaseTimeToLive
// re-sent as ordinary gRPC calls to the leader's client URL (from the
// membership, published through Raft). etcd forwards the same two requests
// over the leader's peer URL at /leases and /leases/internal; going through
// the client port gives the same answers with the client API we already
// serve, and needs nothing new on the peer listener.
//
// Clients are kept per URL and closed after a minute unused. A call that
// fails with Unavailable (leader down, connection refused) is reported as
// retryable so the caller can ask the member for the leader again.

import { makeClientConstructor, Metadata, type ChannelCredentials, type ChannelOptions, type Client, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import { clientUrlChannel, type ClientPem } from '../../common/tlsChannel';
import { EtcdError, GrpcCode, type GrpcCodeValue } from '../errors';
import { etcdService } from '../../common/etcdProtos';

const IDLE_CLOSE_MS = 60_000;

export interface ForwardedTimeToLive {
  TTL: string;
  grantedTTL: string;
  keys: Buffer[];
}

interface LeaseClient extends Client {
  LeaseKeepAlive(metadata: Metadata, options: { deadline: number }): ClientDuplexStream<{ ID: string }, { TTL: string }>;
  LeaseTimeToLive(
    req: { ID: string; keys: boolean },
    metadata: Metadata,
    options: { deadline: number },
    cb: (err: ServiceError | null, res?: ForwardedTimeToLive) => void,
  ): void;
}

/** A forward that may succeed against the leader later (or another of its URLs). */
export class RetryableForwardError extends Error {}

let LeaseClientCtor: (new (address: string, creds: ChannelCredentials, options: ChannelOptions) => LeaseClient) | undefined;

function clientConstructor() {
  LeaseClientCtor ??= makeClientConstructor(etcdService('Lease'), 'Lease') as unknown as typeof LeaseClientCtor;
  return LeaseClientCtor!;
}

function toError(err: ServiceError): Error {
  if (err.code === GrpcCode.Unavailable || err.code === GrpcCode.DeadlineExceeded) return new RetryableForwardError(err.details);
  return new EtcdError(err.code as GrpcCodeValue, err.details);
}

/** PEM material for calling https client URLs: the CA to verify with, the certificate to present. */
export type ForwardTls = ClientPem;

export class LeaseForwarder {
  private readonly clients = new Map<string, { client: LeaseClient; timer: NodeJS.Timeout }>();

  /** Present when this member serves clients over TLS: forwards to https URLs then use it. */
  constructor(private readonly tls?: ForwardTls) {}

  /** The leader's renewed TTL for `id` (0: not found). */
  keepAlive(url: string, id: bigint, deadline: number): Promise<number> {
    const client = this.client(url);
    return new Promise((resolve, reject) => {
      const stream = client.LeaseKeepAlive(new Metadata(), { deadline });
      let settled = false;
      const settle = (f: () => void) => {
        if (settled) return;
        settled = true;
        f();
        stream.cancel();
      };
      stream.on('data', (res: { TTL: string }) => settle(() => resolve(Number(res.TTL))));
      stream.on('error', (err: ServiceError) => settle(() => reject(toError(err))));
      stream.on('end', () => settle(() => reject(new RetryableForwardError('lease keep-alive stream ended'))));
      stream.write({ ID: id.toString() });
    });
  }

  timeToLive(url: string, id: bigint, keys: boolean, deadline: number): Promise<ForwardedTimeToLive> {
    const client = this.client(url);
    return new Promise((resolve, reject) => {
      client.LeaseTimeToLive({ ID: id.toString(), keys }, new Metadata(), { deadline }, (err, res) => {
        if (err) reject(toError(err));
        else resolve(res!);
      });
    });
  }

  close(): void {
    for (const { client, timer } of this.clients.values()) {
      clearTimeout(timer);
      client.close();
    }
    this.clients.clear();
  }

  private client(url: string): LeaseClient {
    const ch = clientUrlChannel(url, this.tls);
    if (ch === undefined) throw new RetryableForwardError(`cannot forward to ${url}`);
    const target = ch.target;
    const existing = this.clients.get(target);
    if (existing !== undefined) clearTimeout(existing.timer);
    const client = existing?.client ?? new (clientConstructor())(target, ch.credentials, ch.options);
    const timer = setTimeout(() => {
      this.clients.delete(target);
      client.close();
    }, IDLE_CLOSE_MS);
    timer.unref();
    this.clients.set(target, { client, timer });
    return client;
  }
}

// The API server's etcd v3 client: gRPC on our own HTTP/2 channel
// (grpcChannel.ts; grpc-js with --etcd-client-transport=grpc-js, etcdChannel.ts) with etcd's protos in resources/proto/etcd (the definitions
// of etcdProtos.ts), because the watch cache needs what the etcd3 npm
// client hides — prev_kv and progress_notify on one stream, WatchProgressRequest
// (RequestWatchProgress, answered with watch_id -1, which etcd3 npm rejects),
// and exact control over where a watch resumes.
//
// Endpoints are what --etcd-servers gives ("https://127.0.0.1:2379", or bare
// "host:port" = http); with https the client presents --etcd-certfile/keyfile
// and verifies with --etcd-cafile. One connection per endpoint; calls go to the
// current endpoint and move to the next one on UNAVAILABLE (member down, no
// leader), like clientv3's balancer. Reads, compactions and lease grants are
// repeated there (clientv3's repeatable policy); a Txn only when the member
// certainly never processed it (not sent, refused, or above a GOAWAY's last
// stream): a Txn that may have committed fails with its error instead, as
// clientv3's isSafeRetryMutableRPC decides — a retried create would
// otherwise answer AlreadyExists for the caller's own object.
//
// Watches (etcdWatch.ts) share the endpoint rotation.

import { readFileSync } from 'node:fs';
import { status as GrpcStatus, type MethodDefinition } from '@grpc/grpc-js';
import { etcdClientService } from '../../common/etcdProtos';
import { frame, GrpcCallError, type ChannelOptions, type ChannelTls, type ChannelTransport, type EtcdChannel } from './etcdChannel';
import { GrpcChannel } from './grpcChannel';
import { GrpcJsChannel } from './grpcJsChannel';
import { decodeTxnResponse, encodeTxnRequestFrame } from './etcdWire';
import type { KeyValue, Op, RangeRequest, RangeResult, TxnResult } from './etcdTypes';

export type { KeyValue, Op, RangeRequest, RangeResult, TxnResult } from './etcdTypes';

export interface TlsFiles {
  /** --etcd-cafile */
  caFile?: string;
  /** --etcd-certfile */
  certFile: string;
  /** --etcd-keyfile */
  keyFile: string;
}

export interface EtcdClientOptions {
  /** --etcd-servers: URLs or host:port. */
  endpoints: string[];
  /** The files of the flags, or their PEM contents already read (a caller holding certificates in memory). */
  tls?: TlsFiles | ChannelTls;
  /** Deadline of one unary attempt (default 10 s). */
  callTimeoutMs?: number;
  /** --etcd-client-transport: our own HTTP/2 client (default) or grpc-js. */
  transport?: ChannelTransport;
}

/** An etcd gRPC failure; `details` is etcd's text ("etcdserver: mvcc: required revision has been compacted"). */
export class EtcdError extends Error {
  constructor(readonly code: number, readonly details: string, readonly endpoint: string) {
    super(`rpc error: code = ${GrpcStatus[code] ?? code} desc = ${details}`);
    this.name = 'EtcdError';
  }
  get compacted(): boolean {
    return this.details.includes('required revision has been compacted');
  }
  get futureRevision(): boolean {
    return this.details.includes('required revision is a future revision');
  }
}

const MAX_ATTEMPTS_PER_ENDPOINT = 2;
/** Calls clientv3 repeats on another member whatever happened to the first attempt. */
const REPEATABLE = true;
const RETRY_BACKOFF_MS = 150;
const TXN_PATH = '/etcdserverpb.KV/Txn';

type Method = MethodDefinition<unknown, Record<string, unknown>>;

interface Endpoint {
  target: string;
  channel: EtcdChannel;
}

/** etcdserverpb's method definitions (path, serializers) with the wire shapes in wire.ts. */
export function etcdMethod(service: 'KV' | 'Lease' | 'Watch', method: string): Method {
  return (etcdClientService(service) as unknown as Record<string, Method>)[method]!;
}

/**
 * A paused member (SIGSTOP, or stuck) keeps its TCP connection open and says
 * nothing; without pings a watch on it would wait forever. With them the
 * connection fails within KEEPALIVE time + timeout and the watch resumes on
 * another member (kube-apiserver's etcd client pings every 30 s; we are on
 * loopback and want a console's "pause" to show up quickly). etcd's server
 * refuses pings more often than --grpc-keepalive-min-time (5 s).
 */
const KEEPALIVE: ChannelOptions = { keepaliveTimeMs: 6_000, keepaliveTimeoutMs: 3_000 };

function channelFor(endpoint: string, tls: TlsFiles | ChannelTls | undefined, transport: ChannelTransport): Endpoint {
  const url = /^[a-z]+:\/\//.test(endpoint) ? endpoint : `http://${endpoint}`;
  const u = new URL(url);
  let pem: ChannelTls | undefined;
  if (u.protocol === 'https:') {
    if (!tls) throw new Error(`etcd endpoint ${endpoint}: https needs --etcd-certfile and --etcd-keyfile`);
    pem = 'certFile' in tls ? { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile), ca: tls.caFile ? readFileSync(tls.caFile) : undefined } : tls;
  } else if (u.protocol !== 'http:') throw new Error(`etcd endpoint ${endpoint}: unsupported scheme`);
  const channel = transport === 'grpc-js' ? new GrpcJsChannel(url, pem, KEEPALIVE) : new GrpcChannel(url, pem, KEEPALIVE);
  return { target: u.host, channel };
}

export const toBig = (v: unknown): bigint => (v === undefined || v === null || v === '' ? 0n : BigInt(v as string));

export function kvFromWire(w: Record<string, unknown>): KeyValue {
  return {
    key: w.key as Buffer,
    value: (w.value as Buffer) ?? Buffer.alloc(0),
    createRevision: toBig(w.create_revision),
    modRevision: toBig(w.mod_revision),
    version: toBig(w.version),
    lease: toBig(w.lease),
  };
}

/** The range_end that covers every key starting with prefix (clientv3.GetPrefixRangeEnd). */
export function prefixEnd(prefix: string | Buffer): Buffer {
  const b = Buffer.from(prefix);
  for (let i = b.length - 1; i >= 0; i--) {
    if (b[i] < 0xff) {
      const end = Buffer.from(b.subarray(0, i + 1));
      end[i]++;
      return end;
    }
  }
  return Buffer.from([0]);
}

function rangeToWire(r: RangeRequest): Record<string, unknown> {
  return {
    key: Buffer.from(r.key),
    range_end: r.rangeEnd === undefined ? undefined : Buffer.from(r.rangeEnd),
    limit: r.limit ?? 0,
    revision: (r.revision ?? 0n).toString(),
    count_only: r.countOnly ?? false,
    keys_only: r.keysOnly ?? false,
  };
}

function rangeFromWire(w: Record<string, unknown>): RangeResult {
  const header = w.header as { revision: string };
  return { revision: toBig(header?.revision), kvs: ((w.kvs as Record<string, unknown>[]) ?? []).map(kvFromWire), more: w.more === true, count: toBig(w.count) };
}

export class EtcdClient {
  private readonly endpoints: Endpoint[];
  private current = 0;
  private closed = false;
  readonly callTimeoutMs: number;

  constructor(readonly opts: EtcdClientOptions) {
    if (opts.endpoints.length === 0) throw new Error('--etcd-servers must be specified');
    this.callTimeoutMs = opts.callTimeoutMs ?? 10_000;
    this.endpoints = opts.endpoints.map((e) => channelFor(e, opts.tls, opts.transport ?? 'builtin'));
  }

  /** The endpoint calls go to now, and a way to report it broken (used by watches). */
  currentEndpoint(): { index: number; target: string; channel: EtcdChannel } {
    const e = this.endpoints[this.current];
    return { index: this.current, target: e.target, channel: e.channel };
  }

  /** Moves on from a failed endpoint (no-op when another caller already did). */
  failover(index: number): void {
    if (this.current === index) this.current = (index + 1) % this.endpoints.length;
  }

  async range(r: RangeRequest): Promise<RangeResult> {
    return rangeFromWire(await this.unary('KV', 'Range', rangeToWire(r), REPEATABLE));
  }

  /** Compares are equalities: ModRevision(key) = n, or Version(key) = n. */
  async txn(compare: ({ key: string; modRevision: bigint } | { key: string; version: bigint })[], success: Op[], failure: Op[]): Promise<TxnResult> {
    // Every write goes through here: encoded and decoded by hand (etcdWire.ts), not through proto-loader.
    return this.call(TXN_PATH, encodeTxnRequestFrame(compare, success, failure), decodeTxnResponse);
  }

  async leaseGrant(ttlSeconds: number): Promise<bigint> {
    const w = await this.unary('Lease', 'LeaseGrant', { TTL: String(ttlSeconds), ID: '0' }, REPEATABLE);
    if (w.error) throw new Error(String(w.error));
    return toBig(w.ID);
  }

  /** Compact history below revision (physical: wait until it is applied). */
  async compact(revision: bigint, physical = true): Promise<void> {
    await this.unary('KV', 'Compact', { revision: revision.toString(), physical }, REPEATABLE);
  }

  private unary(service: 'KV' | 'Lease', method: string, req: unknown, repeatable = false): Promise<Record<string, unknown>> {
    const def = etcdMethod(service, method);
    return this.call(def.path, frame(def.requestSerialize(req)), (b) => def.responseDeserialize(b), repeatable);
  }

  /** One unary call with the request already encoded and framed; failover and retries as described above. */
  private async call<T>(path: string, framed: Buffer, decode: (response: Buffer) => T, repeatable = false): Promise<T> {
    const attempts = this.endpoints.length * MAX_ATTEMPTS_PER_ENDPOINT;
    let last: EtcdError | undefined;
    for (let i = 0; i < attempts && !this.closed; i++) {
      const index = this.current;
      const ep = this.endpoints[index];
      try {
        return decode(await ep.channel.unaryFramed(path, framed, Date.now() + this.callTimeoutMs));
      } catch (e) {
        if (!(e instanceof GrpcCallError)) throw e;
        const err = new EtcdError(e.code, e.details, ep.target);
        // A write that may have been processed is not sent again; a timed-out one may still commit.
        const retry = err.code === GrpcStatus.UNAVAILABLE ? repeatable || e.unprocessed : repeatable && err.code === GrpcStatus.DEADLINE_EXCEEDED;
        if (!retry) throw err;
        last = err;
        this.failover(index);
        if (i >= this.endpoints.length - 1) await new Promise((r) => setTimeout(r, RETRY_BACKOFF_MS));
      }
    }
    throw last ?? new EtcdError(GrpcStatus.CANCELLED, 'client closed', '');
  }

  close(): void {
    this.closed = true;
    for (const e of this.endpoints) e.channel.close();
  }
}

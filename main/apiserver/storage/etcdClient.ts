// The API server's etcd v3 client: raw gRPC (@grpc/grpc-js + etcd's protos in
// resources/proto/etcd), because the watch cache needs what the etcd3 npm
// client hides — prev_kv and progress_notify on one stream, WatchProgressRequest
// (RequestWatchProgress, answered with watch_id -1, which etcd3 npm rejects),
// and exact control over where a watch resumes.
//
// Endpoints are what --etcd-servers gives ("https://127.0.0.1:2379", or bare
// "host:port" = http); with https the client presents --etcd-certfile/keyfile
// and verifies with --etcd-cafile. One channel per endpoint; calls go to the
// current endpoint and move to the next one on UNAVAILABLE (member down, no
// leader), like clientv3's balancer. Retrying a write whose first attempt
// committed is possible in principle (clientv3 has the same window); the store's
// compare-on-mod_revision txns make such a retry fail its compare rather than
// apply twice.
//
// Watches (etcdWatch.ts) share the endpoint rotation.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPackageDefinition, Metadata, status as GrpcStatus, type ChannelCredentials, type ChannelOptions, type Client, type ServiceClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoDir } from '../../common/resources';
import { clientUrlChannel } from '../../common/tlsChannel';

/** mvccpb.KeyValue with 64-bit fields as bigint. */
export interface KeyValue {
  key: Buffer;
  value: Buffer;
  createRevision: bigint;
  modRevision: bigint;
  version: bigint;
  lease: bigint;
}

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
  tls?: TlsFiles;
  /** Deadline of one unary attempt (default 10 s). */
  callTimeoutMs?: number;
}

export interface RangeRequest {
  key: Buffer | string;
  rangeEnd?: Buffer | string;
  limit?: number;
  revision?: bigint;
  countOnly?: boolean;
  keysOnly?: boolean;
}

export interface RangeResult {
  revision: bigint;
  kvs: KeyValue[];
  more: boolean;
  count: bigint;
}

export type Op =
  | { put: { key: string; value: Uint8Array; lease?: bigint } }
  | { deleteRange: { key: string } }
  | { range: RangeRequest };

export interface TxnResult {
  revision: bigint;
  succeeded: boolean;
  /** One per op of the branch that ran; ranges give their kvs. */
  responses: { kvs?: KeyValue[] }[];
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
const RETRY_BACKOFF_MS = 150;

type Callback = (err: ServiceError | null, res: unknown) => void;
type UnaryMethod = (req: unknown, md: Metadata, opts: { deadline: number }, cb: Callback) => void;
export type GrpcClient = Client & Record<string, UnaryMethod>;

interface Endpoint {
  target: string;
  kv: GrpcClient;
  lease: GrpcClient;
  watch: GrpcClient;
}

let packageDef: ReturnType<typeof loadSync> | undefined;

function etcdServices(): Record<string, ServiceClientConstructor> {
  packageDef ??= loadSync('rpc.proto', {
    includeDirs: [join(protoDir(), 'etcd')],
    keepCase: true,
    longs: String,
    enums: Number,
    defaults: true,
    oneofs: true,
  });
  return (loadPackageDefinition(packageDef) as unknown as { etcdserverpb: Record<string, ServiceClientConstructor> }).etcdserverpb;
}

function channelFor(endpoint: string, tls: TlsFiles | undefined): { target: string; credentials: ChannelCredentials; options: ChannelOptions } {
  const url = /^[a-z]+:\/\//.test(endpoint) ? endpoint : `http://${endpoint}`;
  const pem = tls && { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile), ca: tls.caFile ? readFileSync(tls.caFile) : undefined };
  const ch = clientUrlChannel(url, pem);
  if (!ch) throw new Error(`etcd endpoint ${endpoint}: ${url.startsWith('https:') ? 'https needs --etcd-certfile and --etcd-keyfile' : 'unsupported scheme'}`);
  return { ...ch, options: { ...ch.options, ...KEEPALIVE } };
}

/**
 * A paused member (SIGSTOP, or stuck) keeps its TCP connection open and says
 * nothing; without pings a watch on it would wait forever. With them the
 * channel fails within KEEPALIVE time + timeout and the watch resumes on
 * another member (kube-apiserver's etcd client pings every 30 s; we are on
 * loopback and want a console's "pause" to show up quickly).
 */
const KEEPALIVE: ChannelOptions = {
  // etcd's server refuses pings more often than --grpc-keepalive-min-time
  // (5 s) and pings without an open stream (GOAWAY too_many_pings).
  'grpc.keepalive_time_ms': 6_000,
  'grpc.keepalive_timeout_ms': 3_000,
  'grpc.keepalive_permit_without_calls': 0,
};

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

function opToWire(op: Op): Record<string, unknown> {
  if ('put' in op) return { request_put: { key: Buffer.from(op.put.key), value: Buffer.from(op.put.value), lease: (op.put.lease ?? 0n).toString() } };
  if ('deleteRange' in op) return { request_delete_range: { key: Buffer.from(op.deleteRange.key) } };
  return { request_range: rangeToWire(op.range) };
}

export class EtcdClient {
  private readonly endpoints: Endpoint[];
  private current = 0;
  private closed = false;
  readonly callTimeoutMs: number;

  constructor(readonly opts: EtcdClientOptions) {
    if (opts.endpoints.length === 0) throw new Error('--etcd-servers must be specified');
    const svc = etcdServices();
    this.callTimeoutMs = opts.callTimeoutMs ?? 10_000;
    this.endpoints = opts.endpoints.map((e) => {
      const ch = channelFor(e, opts.tls);
      const make = (name: string) => new svc[name](ch.target, ch.credentials, ch.options) as unknown as GrpcClient;
      return { target: ch.target, kv: make('KV'), lease: make('Lease'), watch: make('Watch') };
    });
  }

  /** The endpoint calls go to now, and a way to report it broken (used by watches). */
  currentEndpoint(): { index: number; target: string; watch: GrpcClient } {
    const e = this.endpoints[this.current];
    return { index: this.current, target: e.target, watch: e.watch };
  }

  /** Moves on from a failed endpoint (no-op when another caller already did). */
  failover(index: number): void {
    if (this.current === index) this.current = (index + 1) % this.endpoints.length;
  }

  async range(r: RangeRequest): Promise<RangeResult> {
    return rangeFromWire(await this.unary('kv', 'Range', rangeToWire(r), true));
  }

  /** Compares are equalities: ModRevision(key) = n, or Version(key) = n. */
  async txn(compare: ({ key: string; modRevision: bigint } | { key: string; version: bigint })[], success: Op[], failure: Op[]): Promise<TxnResult> {
    const w = await this.unary('kv', 'Txn', {
      // result EQUAL (0); target MOD (2) or VERSION (0)
      compare: compare.map((c) =>
        'modRevision' in c
          ? { result: 0, target: 2, key: Buffer.from(c.key), mod_revision: c.modRevision.toString() }
          : { result: 0, target: 0, key: Buffer.from(c.key), version: c.version.toString() },
      ),
      success: success.map(opToWire),
      failure: failure.map(opToWire),
    });
    const header = w.header as { revision: string };
    const responses = ((w.responses as Record<string, unknown>[]) ?? []).map((r) => {
      const range = r.response_range as Record<string, unknown> | undefined;
      return range ? { kvs: rangeFromWire(range).kvs } : {};
    });
    return { revision: toBig(header.revision), succeeded: w.succeeded === true, responses };
  }

  async leaseGrant(ttlSeconds: number): Promise<bigint> {
    const w = await this.unary('lease', 'LeaseGrant', { TTL: String(ttlSeconds), ID: '0' });
    if (w.error) throw new Error(String(w.error));
    return toBig(w.ID);
  }

  /** Compact history below revision (physical: wait until it is applied). */
  async compact(revision: bigint, physical = true): Promise<void> {
    await this.unary('kv', 'Compact', { revision: revision.toString(), physical });
  }

  private async unary(service: 'kv' | 'lease', method: string, req: unknown, idempotent = false): Promise<Record<string, unknown>> {
    const attempts = this.endpoints.length * MAX_ATTEMPTS_PER_ENDPOINT;
    let last: EtcdError | undefined;
    for (let i = 0; i < attempts && !this.closed; i++) {
      const index = this.current;
      const ep = this.endpoints[index];
      try {
        return await new Promise<Record<string, unknown>>((resolve, reject) => {
          ep[service][method](req, new Metadata(), { deadline: Date.now() + this.callTimeoutMs }, (err, res) => {
            if (err) reject(new EtcdError(err.code, err.details || err.message, ep.target));
            else resolve(res as Record<string, unknown>);
          });
        });
      } catch (e) {
        const err = e as EtcdError;
        // A timed-out write may still commit: only reads retry on a deadline.
        if (err.code !== GrpcStatus.UNAVAILABLE && !(idempotent && err.code === GrpcStatus.DEADLINE_EXCEEDED)) throw err;
        last = err;
        this.failover(index);
        if (i >= this.endpoints.length - 1) await new Promise((r) => setTimeout(r, RETRY_BACKOFF_MS));
      }
    }
    throw last ?? new EtcdError(GrpcStatus.CANCELLED, 'client closed', '');
  }

  close(): void {
    this.closed = true;
    for (const e of this.endpoints) for (const c of [e.kv, e.lease, e.watch]) c.close();
  }
}

// The console's per-member etcd client: Maintenance (Status, Alarm,
// Defragment, MoveLeader, Snapshot), Cluster's MemberList and one KV Range, each aimed at ONE
// member, as `etcdctl --endpoints=<that member>` does. The etcd3 npm client
// balances over all hosts and holds calls back behind a circuit breaker after
// failures, which hides exactly what the console wants to see (which member
// answers, and how fast after a restart), so this speaks raw gRPC with the
// same .proto files the members serve.
//
// Channels reconnect quickly (100 ms first, 1 s at most): a member that was
// killed and restarted should be seen as healthy within a probe round.

import { makeClientConstructor, Metadata, status as GrpcStatus, type Client, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js';
import { etcdClientService } from '../../common/etcdProtos';
import { clientUrlChannel, type ClientPem } from '../../common/tlsChannel';

export interface WireHeader {
  cluster_id: string;
  member_id: string;
  revision: string;
  raft_term: string;
}

export interface WireStatus {
  header: WireHeader | null;
  version: string;
  dbSize: string;
  leader: string;
  raftIndex: string;
  raftTerm: string;
  raftAppliedIndex: string;
  errors: string[];
  dbSizeInUse: string;
  isLearner: boolean;
}

export interface WireMember {
  ID: string;
  name: string;
  peerURLs: string[];
  clientURLs: string[];
  isLearner: boolean;
}

export interface WireAlarm {
  memberID: string;
  alarm: number;
}

export interface WireSnapshotChunk {
  remaining_bytes: string;
  blob: Buffer;
}

/** etcd's AlarmType names (etcdctl prints them). */
export const ALARM_NAMES = ['NONE', 'NOSPACE', 'CORRUPT'] as const;

/** A 64-bit id (decimal string from the wire) as etcdctl prints it: 16 hex digits. */
export function idHex(decimal: string | bigint): string {
  return BigInt(decimal).toString(16).padStart(16, '0');
}

type Callback<T> = (err: ServiceError | null, res?: T) => void;
type Unary<Req, Res> = (req: Req, md: Metadata, opts: { deadline: number }, cb: Callback<Res>) => void;

interface MaintenanceStub extends Client {
  Status: Unary<object, WireStatus>;
  Alarm: Unary<{ action: number; memberID: string; alarm: number }, { alarms: WireAlarm[] }>;
  Defragment: Unary<object, object>;
  MoveLeader: Unary<{ targetID: string }, object>;
  Snapshot(req: object, md: Metadata, opts: object): ClientReadableStream<WireSnapshotChunk>;
}

interface ClusterStub extends Client {
  MemberList: Unary<object, { header: WireHeader | null; members: WireMember[] }>;
}

interface KvStub extends Client {
  Range: Unary<{ key: Buffer; range_end?: Buffer; count_only?: boolean; serializable?: boolean }, { count: string; header: WireHeader | null }>;
}

type StubCtor<T> = new (address: string, credentials: unknown, options?: object) => T;

let ctors: { maintenance: StubCtor<MaintenanceStub>; kv: StubCtor<KvStub>; cluster: StubCtor<ClusterStub> } | undefined;

function stubs() {
  if (ctors) return ctors;
  return (ctors = {
    maintenance: makeClientConstructor(etcdClientService('Maintenance'), 'Maintenance') as unknown as StubCtor<MaintenanceStub>,
    kv: makeClientConstructor(etcdClientService('KV'), 'KV') as unknown as StubCtor<KvStub>,
    cluster: makeClientConstructor(etcdClientService('Cluster'), 'Cluster') as unknown as StubCtor<ClusterStub>,
  });
}

/** "DEADLINE_EXCEEDED: ..." — the gRPC code name and the server's message, as etcdctl's errors read. */
export function grpcErrorText(err: ServiceError): string {
  return `${GrpcStatus[err.code] ?? err.code}: ${err.details || err.message}`;
}

/**
 * The supervisor probes members it has just spawned on loopback every 50 ms;
 * while one boots, its port refuses, and a backoff growing to grpc's usual
 * second would keep the channel failing fast ("No connection established")
 * for up to that long after the member listens. A reconnect every 100 ms to
 * a local port costs nothing.
 */
const RECONNECT = { 'grpc.initial_reconnect_backoff_ms': 50, 'grpc.max_reconnect_backoff_ms': 100 };

export class MemberClient {
  private readonly maintenance: MaintenanceStub;
  private readonly kv: KvStub;
  private readonly cluster: ClusterStub;

  /** url: the member's client URL (http://h:p or https://h:p). */
  constructor(
    readonly url: string,
    tls: ClientPem | undefined,
  ) {
    const ch = clientUrlChannel(url, tls);
    if (ch === undefined) throw new Error(`cannot call ${url}: https needs a client certificate`);
    const { maintenance, kv, cluster } = stubs();
    this.maintenance = new maintenance(ch.target, ch.credentials, { ...ch.options, ...RECONNECT });
    this.kv = new kv(ch.target, ch.credentials, { ...ch.options, ...RECONNECT });
    this.cluster = new cluster(ch.target, ch.credentials, { ...ch.options, ...RECONNECT });
  }

  private unary<Req, Res>(fn: Unary<Req, Res>, stub: Client, req: Req, timeoutMs: number): Promise<Res> {
    return new Promise((resolve, reject) => {
      fn.call(stub, req, new Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => {
        if (err) reject(Object.assign(new Error(grpcErrorText(err)), { code: err.code, details: err.details }));
        else resolve(res!);
      });
    });
  }

  status(timeoutMs = 1_000): Promise<WireStatus> {
    return this.unary(this.maintenance.Status, this.maintenance, {}, timeoutMs);
  }

  /** `etcdctl member list`: every member the cluster has (linearizable on etcd 3.4, which has no serializable MemberList). */
  async memberList(timeoutMs = 2_000): Promise<{ header: WireHeader | null; members: WireMember[] }> {
    return this.unary(this.cluster.MemberList, this.cluster, {}, timeoutMs);
  }

  /** AlarmList: action GET, member 0, alarm NONE (goes through Raft on the server). */
  async alarms(timeoutMs = 1_000): Promise<WireAlarm[]> {
    const res = await this.unary(this.maintenance.Alarm, this.maintenance, { action: 0, memberID: '0', alarm: 0 }, timeoutMs);
    return res.alarms;
  }

  defragment(timeoutMs = 30_000): Promise<object> {
    return this.unary(this.maintenance.Defragment, this.maintenance, {}, timeoutMs);
  }

  /** Must be sent to the current leader; targetId as a decimal string. */
  moveLeader(targetIdDecimal: string, timeoutMs = 10_000): Promise<object> {
    return this.unary(this.maintenance.MoveLeader, this.maintenance, { targetID: targetIdDecimal }, timeoutMs);
  }

  /** `etcdctl endpoint health`: a linearizable get of "health" (succeeds only with a leader and a quorum). */
  async healthRead(timeoutMs = 1_000): Promise<void> {
    await this.unary(this.kv.Range, this.kv, { key: Buffer.from('health') }, timeoutMs);
  }

  /** How many keys the whole keyspace holds (linearizable count over "\0".."\0"). */
  async countKeys(timeoutMs = 5_000): Promise<number> {
    const res = await this.unary(this.kv.Range, this.kv, { key: Buffer.from([0]), range_end: Buffer.from([0]), count_only: true }, timeoutMs);
    return Number(res.count);
  }

  /** The Snapshot stream; cancel() on it ends the call. */
  snapshot(): ClientReadableStream<WireSnapshotChunk> {
    return this.maintenance.Snapshot({}, new Metadata(), {});
  }

  close(): void {
    this.maintenance.close();
    this.kv.close();
    this.cluster.close();
  }
}

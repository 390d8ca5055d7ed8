// What the client port serves from: the EtcdServer interface the gRPC
// services call, and the etcdserverpb messages it speaks in. The member
// (../server/member.ts) implements it; tests drive the services with a fake.
// The API layer depends on nothing of the server but this.

import type { Registry } from 'prom-client';
import type { AtLeader } from '../atLeader';
import type { LeaseTimeToLive } from '../lease/leaseRequests';
import type {
  CompactionRequest,
  DeleteRangeRequest,
  DeleteRangeResult,
  LeaseId,
  PutRequest,
  PutResult,
  RangeRequest,
  RangeResult,
  Revision,
  TxnRequest,
  TxnResult,
} from '../mvcc/types';
import type { MemberId } from '../raft/types';
import type { WatchableStore } from '../watch/watchableStore';

/** The flags the client services read (a subset of the member's configuration). */
export interface ClientServiceConfig {
  /** Milliseconds: request timeouts and the leader monitor's period derive from it. */
  electionTimeout: number;
  /** Bytes: the largest request, and (plus gRPC overhead) the largest watch reply. */
  maxRequestBytes: number;
  maxTxnOps: number;
  /** Milliseconds between progress notifications to progress_notify watchers. */
  watchProgressNotifyInterval?: number;
}

/** etcdserverpb.ResponseHeader. */
export interface ResponseHeader {
  clusterId: bigint;
  memberId: MemberId;
  /** Omitted (0) on Cluster responses, as etcd does. */
  revision: Revision;
  raftTerm: number;
}

/** etcdserverpb.Member. */
export interface MemberInfo {
  id: MemberId;
  name: string;
  peerUrls: string[];
  clientUrls: string[];
  isLearner: boolean;
}

/** etcdserverpb.StatusResponse (less the header). */
export interface StatusInfo {
  version: string;
  dbSize: number;
  dbSizeInUse: number;
  leader: MemberId;
  raftIndex: number;
  raftTerm: number;
  raftAppliedIndex: number;
  errors: string[];
  isLearner: boolean;
}

/** etcdserverpb.AlarmType. */
export enum AlarmType {
  None = 0,
  NoSpace = 1,
  Corrupt = 2,
}

/** etcdserverpb.AlarmRequest.AlarmAction. */
export enum AlarmAction {
  Get = 0,
  Activate = 1,
  Deactivate = 2,
}

export interface AlarmRequest {
  action: AlarmAction;
  memberId: MemberId;
  alarm: AlarmType;
}

export interface AlarmMember {
  memberId: MemberId;
  alarm: AlarmType;
}

export interface WithHeader<T> {
  header: ResponseHeader;
  result: T;
}

/**
 * What the gRPC services call. Every method fills the header as etcd does;
 * failures are thrown as EtcdError (../errors.ts).
 */
export interface EtcdServer {
  /** Linearizable (ReadIndex) unless req.serializable. */
  range(req: RangeRequest): Promise<WithHeader<RangeResult>>;
  put(req: PutRequest): Promise<WithHeader<PutResult>>;
  deleteRange(req: DeleteRangeRequest): Promise<WithHeader<DeleteRangeResult>>;
  /** A read-only txn is served like a linearizable read, without a proposal. */
  txn(req: TxnRequest): Promise<WithHeader<TxnResult>>;
  compact(req: CompactionRequest): Promise<WithHeader<void>>;

  memberList(): Promise<WithHeader<MemberInfo[]>>;
  status(): Promise<WithHeader<StatusInfo>>;

  // Maintenance (etcd v3rpc/maintenance.go); optional so that test doubles
  // may leave them out (the RPC is then unimplemented).
  /** etcd Hash: a hash of the whole store; the header revision is the store's. */
  hash?(): Promise<WithHeader<number>>;
  /** etcd HashKV at `revision` (0 = current). */
  hashKV?(revision: Revision): Promise<WithHeader<{ hash: number; compactRevision: Revision }>>;
  /** A point-in-time bbolt backend file (../backend/), without its sha256 trailer: whole, or produced chunk by chunk. */
  snapshotBody?(): Promise<Uint8Array | SnapshotBody>;
  /** Local, no Raft: shrinks the allocated size to what is in use (the member's dbSpace.ts). */
  defragment?(): Promise<WithHeader<void>>;
  /** Leader only: hands leadership to `target` and waits until it leads. */
  moveLeader?(target: MemberId): Promise<WithHeader<void>>;
  /** etcd Alarm: GET / ACTIVATE / DEACTIVATE, through Raft; the alarms the response lists. */
  alarm?(req: AlarmRequest): Promise<WithHeader<AlarmMember[]>>;

  // Watch (etcd v3rpc/watch.go); optional so that test doubles may leave it out.
  /** The member's watchable store; it follows the store across snapshot restores. */
  watchable?(): WatchableStore;
  /** The header of a response served at `revision` (streams build their own replies). */
  responseHeader?(revision: Revision): ResponseHeader;

  // Leases (etcd v3_server.go); optional so that test doubles may leave them
  // out (the Lease RPCs are then unimplemented). Grant and revoke go through
  // Raft; keep-alive and time-to-live are answered by the leader's lessor,
  // so a follower answers with the leader's client URLs to forward to.
  /** id 0n: the member picks one. Returns the id and the effective TTL (raised to the minimum). */
  leaseGrant?(id: LeaseId, ttl: number): Promise<WithHeader<{ id: LeaseId; ttl: number }>>;
  /** Deletes the lease's keys in one revision; Errors.leaseNotFound() if unknown. */
  leaseRevoke?(id: LeaseId): Promise<WithHeader<void>>;
  /** The renewed TTL (seconds); null: no such lease. The header is taken before the renewal. */
  leaseKeepAlive?(id: LeaseId): Promise<WithHeader<AtLeader<number | null>>>;
  /** Remaining and granted TTL, keys if asked (sorted); null: no such lease. */
  leaseTimeToLive?(id: LeaseId, keys: boolean): Promise<WithHeader<AtLeader<LeaseTimeToLive | null>>>;
  /** Every lease this member knows (local, no Raft). */
  leaseLeases?(): Promise<WithHeader<LeaseId[]>>;

  // Membership changes (the member's membershipChanges.ts); optional so that test doubles
  // may leave them out. Each goes through Raft as a ConfChange and answers
  // with the member list once applied.
  memberAdd?(peerUrls: string[], isLearner: boolean): Promise<WithHeader<{ member: MemberInfo; members: MemberInfo[] }>>;
  memberRemove?(id: MemberId): Promise<WithHeader<MemberInfo[]>>;
  memberUpdate?(id: MemberId, peerUrls: string[]): Promise<WithHeader<MemberInfo[]>>;
  /** Leader only; a follower answers with the leader's client URLs to forward to. */
  memberPromote?(id: MemberId): Promise<WithHeader<AtLeader<MemberInfo[]>>>;

  /** True while this member knows a leader (for `hasleader` metadata). */
  hasLeader(): boolean;
  /**
   * True while this member is a Raft learner. The client port then serves
   * only Status and serializable Range, as etcd's interceptor does
   * ("etcdserver: rpc not supported for learner"). Absent: never a learner.
   */
  isLearner?(): boolean;
  /** For /health: a leader is known and a linearizable read succeeds. */
  health(): Promise<{ health: boolean; reason: string }>;
  /** Prometheus registry for /metrics. */
  readonly metrics: Registry;
  readonly config: ClientServiceConfig;
}

/** A snapshot produced in pieces: its size up front, then its bytes in order. */
export interface SnapshotBody {
  readonly size: number;
  /** Fresh buffers of chunkBytes (the last one holds the rest). */
  chunks(chunkBytes: number): Iterable<Uint8Array>;
}

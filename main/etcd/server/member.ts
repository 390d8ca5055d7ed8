// One running etcd member: the EtcdServer the gRPC layer calls, on top of the
// Raft loop (raftLoop.ts) and the state machine (stateMachine.ts).
// startMember.ts builds and starts it; stop() shuts it down.
//
// Writes go through the proposal pipeline (proposals.ts): a waiter per
// request id, resolved when the entry is applied. Reads: serializable from
// local state at once; linearizable after a batched ReadIndex round
// (linearizableReads.ts).
//
// Maintenance calls are answered by maintenance.ts.
//
// Time: one interval per member ticks Raft and checks every deadline.

import type { Registry } from 'prom-client';
import {
  AlarmAction,
  AlarmType,
  type AlarmMember,
  type AlarmRequest,
  type EtcdServer,
  type MemberInfo,
  type ResponseHeader,
  type SnapshotBody,
  type StatusInfo,
  type WithHeader,
} from '../api/etcdServer';
import type { AtLeader } from '../atLeader';
import { Errors } from '../errors';
import { LeaseRequests, type LeaseTimeToLive } from '../lease/leaseRequests';
import type {
  CompactionRequest,
  DeleteRangeRequest,
  DeleteRangeResult,
  LeaseId,
  PutRequest,
  PutResult,
  RangeRequest,
  RangeResult,
  RequestOp,
  TxnRequest,
  TxnResult,
} from '../mvcc/types';
import type { ConfChange, HardState, MemberId, ReadState, SoftState } from '../raft/types';
import { WatchableStore } from '../watch/watchableStore';
import { registerWatchMetrics } from '../watch/watchMetrics';
import { COST_LEASE, costPut, costTxn, quotaAvailable } from './alarms';
import { DbSpace } from './dbSpace';
import { IdGenerator } from './idGenerator';
import { idToHex } from './ids';
import { LinearizableReads } from './linearizableReads';
import { Maintenance } from './maintenance';
import type { MemberConfig } from './memberConfig';
import { MembershipChanges, PeerActivity } from './membershipChanges';
import type { MemberMetrics } from './metrics';
import { Proposals, type RequestBody } from './proposals';
import type { RaftLoop } from './raftLoop';
import type { StateMachine } from './stateMachine';

/** Resend period of a ReadIndex that got no answer (etcd 3.5 readIndexRetryTime). */
const READ_INDEX_RETRY_MS = 500;

function isReadOnlyOps(ops: RequestOp[]): boolean {
  return ops.every((op) => 'range' in op || ('txn' in op && isReadOnlyTxn(op.txn)));
}

export function isReadOnlyTxn(t: TxnRequest): boolean {
  return isReadOnlyOps(t.success) && isReadOnlyOps(t.failure);
}

export class Member implements EtcdServer {
  readonly metrics: Registry;
  /** Resolves once this member's attributes are published (it then serves like etcd's ReadyNotify). */
  ready: Promise<void> = Promise.resolve();
  clientPorts: number[] = [];
  peerPorts: number[] = [];
  /**
   * Resolves once the member has stopped, whether stop() was called or it
   * stopped itself after a fatal error (a failed WAL write): a process
   * hosting it should then exit, as etcd does.
   */
  readonly closed: Promise<void>;
  private markClosed: () => void = () => {};
  private stopping?: Promise<void>;
  private stopFn: () => Promise<void> = async () => {};
  private readonly proposals: Proposals;
  private readonly reads: LinearizableReads;
  private readonly ids: IdGenerator;
  private readonly reqTimeoutMs: number;
  private term: number;
  private stopped = false;
  /** Lease grant/revoke/keep-alive/time-to-live and expiry (../lease/leaseRequests.ts). */
  readonly leaseRequests: LeaseRequests;
  private readonly watches: WatchableStore;
  private readonly space = new DbSpace(() => this.sm.store.sizes().dbSize);
  /** Member add/remove/update/promote (./membershipChanges.ts). */
  readonly membershipChanges: MembershipChanges;
  /** Whether the stream to a peer is up (startMember points it at the transport). */
  isPeerActive: (id: MemberId) => boolean = () => false;
  private readonly peerActivity = new PeerActivity();
  private readonly maintenance: Maintenance;

  constructor(
    readonly config: MemberConfig,
    readonly id: MemberId,
    readonly clusterId: bigint,
    private readonly loop: RaftLoop,
    private readonly sm: StateMachine,
    private readonly memberMetrics: MemberMetrics,
    initialHardState: HardState,
    private readonly log: (line: string) => void,
  ) {
    this.closed = new Promise((resolve) => (this.markClosed = resolve));
    this.metrics = memberMetrics.registry;
    this.term = initialHardState.term;
    this.ids = new IdGenerator(id, Date.now());
    // etcd ReqTimeout: 5 s plus two election timeouts.
    this.reqTimeoutMs = 5000 + 2 * config.electionTimeout;
    this.proposals = new Proposals({
      loop,
      ids: this.ids,
      metrics: memberMetrics,
      maxRequestBytes: config.maxRequestBytes,
      requestTimeoutMs: this.reqTimeoutMs,
      electionTimeoutMs: config.electionTimeout,
      heartbeatMs: config.heartbeatInterval,
    });
    this.leaseRequests = new LeaseRequests({
      lessor: () => this.sm.lessor,
      isLeader: () => this.loop.isLeader,
      lead: () => this.loop.lead,
      leaderClientUrls: (lead) => this.sm.membership.get(lead)?.clientUrls ?? [],
      propose: (body) => this.propose(body),
      nextRequestId: () => this.ids.next(),
      appliedAll: () => this.appliedAll(),
      isStopped: () => this.stopped,
      electionTimeoutMs: config.electionTimeout,
      requestTimeoutMs: this.reqTimeoutMs,
      now: () => Date.now(),
      log,
    });
    sm.onTermEntry = () => this.leaseRequests.onTermEntry();
    this.membershipChanges = new MembershipChanges({
      localId: id,
      strict: config.strictReconfigCheck ?? true,
      membership: () => this.sm.membership,
      activeSince: (peer) => this.peerActivity.activeSince(peer),
      progress: () => this.loop.learnerProgress(),
      leaderClientUrls: () => (this.loop.lead === 0n ? [] : (this.sm.membership.get(this.loop.lead)?.clientUrls ?? [])),
      nextRequestId: () => this.ids.next(),
      now: () => Date.now(),
      propose: (cc, requestId) => this.proposeConfChange(cc, requestId),
    });
    this.reads = new LinearizableReads({
      nextId: () => this.ids.next(),
      sendReadIndex: (ctx) => this.loop.readIndex(ctx),
      appliedIndex: () => this.loop.applied,
      now: () => Date.now(),
      timeoutMs: this.reqTimeoutMs,
      retryMs: READ_INDEX_RETRY_MS,
    });
    this.watches = new WatchableStore(sm);
    sm.restoreListeners.push(() => this.watches.reattach());
    registerWatchMetrics(memberMetrics.registry, this.watches);
    this.maintenance = new Maintenance({
      id,
      clusterId,
      loop,
      sm,
      space: this.space,
      term: () => this.term,
      header: (revision) => this.header(revision),
      propose: (body) => this.propose(body),
      isStopped: () => this.stopped,
      requestTimeoutMs: this.reqTimeoutMs,
      heartbeatMs: config.heartbeatInterval,
    });
  }

  // ---- lifecycle

  /** Graceful: no new requests, pending ones fail with "server stopped", then Raft, transport and WAL close. */
  stop(): Promise<void> {
    return (this.stopping ??= this.stopFn().finally(() => this.markClosed()));
  }

  /** @internal used by startMember only */
  setLifecycle(stopFn: () => Promise<void>, ready: Promise<void>, clientPorts: number[], peerPorts: number[]): void {
    this.stopFn = stopFn;
    this.ready = ready;
    this.clientPorts = clientPorts;
    this.peerPorts = peerPorts;
  }

  // ---- hooks from the Raft loop

  onLeaderChange(previous: MemberId, soft: SoftState): void {
    if (soft.lead !== 0n) {
      this.log(`raft.node: ${idToHex(this.id)} elected leader ${idToHex(soft.lead)} at term ${this.term}`);
      this.proposals.onLeaderElected(Date.now());
    } else {
      this.log(`raft.node: ${idToHex(this.id)} lost leader ${idToHex(previous)} at term ${this.term}`);
    }
    this.reads.onLeaderChanged(previous, soft.lead);
    this.leaseRequests.onLeaderChange(soft.lead === this.id);
  }

  onReadStates(states: ReadState[]): void {
    for (const rs of states) this.reads.onReadState(rs);
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  onHardState(hs: HardState): void {
    this.term = hs.term;
  }

  onApplied(index: number): void {
    this.reads.onApplied(index);
    this.space.sizes(); // raise the allocated high-water mark
  }

  onOutcome(o: { id: bigint; value: unknown } | { id: bigint; error: Error }): void {
    this.proposals.onOutcome(o);
  }

  /** Driven by the member's interval. */
  onTimer(): void {
    const now = Date.now();
    this.proposals.tick(now);
    this.reads.tick();
    this.peerActivity.observe(this.sm.membership.list().map((m) => m.id).filter((p) => p !== this.id), this.isPeerActive, now);
    this.memberMetrics.dbTotalSize.set(this.space.sizes().dbSize);
  }

  stopRequests(): void {
    this.stopped = true;
    this.proposals.stop(Errors.stopped());
    this.reads.stop(Errors.stopped());
    this.watches.dispose();
  }

  // ---- EtcdServer

  async range(req: RangeRequest): Promise<WithHeader<RangeResult>> {
    if (!req.serializable) await this.linearizableBarrier();
    const result = this.sm.store.range(req);
    return { header: this.header(result.revision), result };
  }

  async put(req: PutRequest): Promise<WithHeader<PutResult>> {
    this.checkQuota(costPut(req));
    const result = (await this.propose({ put: req })) as PutResult;
    return { header: this.header(result.revision), result };
  }

  async deleteRange(req: DeleteRangeRequest): Promise<WithHeader<DeleteRangeResult>> {
    const result = (await this.propose({ deleteRange: req })) as DeleteRangeResult;
    return { header: this.header(result.revision), result };
  }

  async txn(req: TxnRequest): Promise<WithHeader<TxnResult>> {
    this.checkQuota(costTxn(req));
    if (isReadOnlyTxn(req)) {
      await this.linearizableBarrier();
      const result = this.sm.store.txn(req);
      return { header: this.header(result.revision), result };
    }
    const result = (await this.propose({ txn: req })) as TxnResult;
    return { header: this.header(result.revision), result };
  }

  async compact(req: CompactionRequest): Promise<WithHeader<void>> {
    await this.propose({ compaction: req });
    return { header: this.header(this.sm.store.currentRevision), result: undefined };
  }

  // ---- Leases (../lease/leaseRequests.ts)

  async leaseGrant(id: LeaseId, ttl: number): Promise<WithHeader<{ id: LeaseId; ttl: number }>> {
    this.checkQuota(COST_LEASE);
    const result = await this.leaseRequests.grant(id, ttl);
    return { header: this.header(this.sm.store.currentRevision), result };
  }

  async leaseRevoke(id: LeaseId): Promise<WithHeader<void>> {
    await this.leaseRequests.revoke(id);
    return { header: this.header(this.sm.store.currentRevision), result: undefined };
  }

  async leaseKeepAlive(id: LeaseId): Promise<WithHeader<AtLeader<number | null>>> {
    // etcd fills the keep-alive header before renewing
    const header = this.header(this.sm.store.currentRevision);
    return { header, result: await this.leaseRequests.keepAlive(id) };
  }

  async leaseTimeToLive(id: LeaseId, keys: boolean): Promise<WithHeader<AtLeader<LeaseTimeToLive | null>>> {
    const result = await this.leaseRequests.timeToLive(id, keys);
    return { header: this.header(this.sm.store.currentRevision), result };
  }

  async leaseLeases(): Promise<WithHeader<LeaseId[]>> {
    return { header: this.header(this.sm.store.currentRevision), result: this.leaseRequests.leases() };
  }

  /** etcd waitAppliedIndex: everything committed applied, within 1 s. */
  private appliedAll(): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(Errors.timeoutWaitAppliedIndex()), 1000);
      void this.loop.appliedAtLeast(this.loop.committed).then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  async memberList(): Promise<WithHeader<MemberInfo[]>> {
    // Cluster responses carry no revision (etcd's ClusterServer.header).
    return { header: this.header(0), result: this.sm.membership.list() };
  }

  // ---- Membership changes (./membershipChanges.ts); Cluster headers carry no revision

  async memberAdd(peerUrls: string[], isLearner: boolean): Promise<WithHeader<{ member: MemberInfo; members: MemberInfo[] }>> {
    const result = await this.membershipChanges.add(peerUrls, isLearner);
    return { header: this.header(0), result };
  }

  async memberRemove(id: MemberId): Promise<WithHeader<MemberInfo[]>> {
    const result = await this.membershipChanges.remove(id);
    return { header: this.header(0), result };
  }

  async memberUpdate(id: MemberId, peerUrls: string[]): Promise<WithHeader<MemberInfo[]>> {
    const result = await this.membershipChanges.update(id, peerUrls);
    return { header: this.header(0), result };
  }

  async memberPromote(id: MemberId): Promise<WithHeader<AtLeader<MemberInfo[]>>> {
    const result = await this.membershipChanges.promote(id);
    return { header: this.header(0), result };
  }

  private proposeConfChange(cc: ConfChange, requestId: bigint): Promise<MemberInfo[]> {
    if (this.stopped) return Promise.reject(Errors.stopped());
    return this.proposals.proposeConfChange(cc, requestId) as Promise<MemberInfo[]>;
  }

  // ---- Maintenance (./maintenance.ts)

  readonly status = (): Promise<WithHeader<StatusInfo>> => this.maintenance.status();
  readonly hash = (): Promise<WithHeader<number>> => this.maintenance.hash();
  readonly hashKV = (revision: number): Promise<WithHeader<{ hash: number; compactRevision: number }>> => this.maintenance.hashKV(revision);
  readonly snapshotBody = (): Promise<SnapshotBody> => this.maintenance.snapshotBody();
  readonly defragment = (): Promise<WithHeader<void>> => this.maintenance.defragment();
  readonly moveLeader = (target: MemberId): Promise<WithHeader<void>> => this.maintenance.moveLeader(target);
  readonly alarm = (req: AlarmRequest): Promise<WithHeader<AlarmMember[]>> => this.maintenance.alarm(req);

  // ---- Watch

  watchable(): WatchableStore {
    return this.watches;
  }

  responseHeader(revision: number): ResponseHeader {
    return this.header(revision);
  }

  // ---- Quota, learner and leader state, health, publish

  /**
   * etcd's quotaAlarmer.check: when the allocated size plus the request's
   * cost reaches --quota-backend-bytes, raise NOSPACE for this member
   * (through Raft, not awaited) and fail the request.
   */
  private checkQuota(cost: number): void {
    if (quotaAvailable(this.space.sizes().dbSize, cost, this.config.quotaBackendBytes)) return;
    this.propose({ alarm: { action: AlarmAction.Activate, memberId: this.id, alarm: AlarmType.NoSpace } }).catch(() => {});
    throw Errors.noSpace();
  }

  isLearner(): boolean {
    return this.sm.membership.get(this.id)?.isLearner ?? false;
  }

  hasLeader(): boolean {
    return this.loop.lead !== 0n;
  }

  async health(): Promise<{ health: boolean; reason: string }> {
    if (!this.hasLeader()) return { health: false, reason: 'RAFT NO LEADER' };
    try {
      await this.linearizableBarrier();
      return { health: true, reason: '' };
    } catch (err) {
      return { health: false, reason: (err as Error).message };
    }
  }

  /** etcd's publish: announce name and client URLs through Raft; retried until applied or stopped. */
  async publish(): Promise<void> {
    for (let attempt = 0; !this.stopped && attempt < 1_000_000; attempt++) {
      try {
        await this.propose({
          memberAttrSet: { memberId: this.id, name: this.config.name, clientUrls: this.config.advertiseClientUrls },
        });
        this.log(
          `published {Name:${this.config.name} ClientURLs:[${this.config.advertiseClientUrls.join(' ')}]} to cluster ${idToHex(this.clusterId)}`,
        );
        return;
      } catch (err) {
        if (this.stopped) return;
        this.log(`failed to publish local member to cluster through raft: ${(err as Error).message}`);
      }
    }
  }

  // ---- internals

  private header(revision: number): ResponseHeader {
    return { clusterId: this.clusterId, memberId: this.id, revision, raftTerm: this.term };
  }

  private linearizableBarrier(): Promise<void> {
    if (this.stopped) return Promise.reject(Errors.stopped());
    return this.reads.wait();
  }

  private propose(body: RequestBody): Promise<unknown> {
    if (this.stopped) return Promise.reject(Errors.stopped());
    return this.proposals.propose(body);
  }
}

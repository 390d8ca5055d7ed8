// Runtime membership changes (etcd 3.4 etcdserver/server.go AddMember,
// RemoveMember, UpdateMember, PromoteMember; api/membership/cluster.go
// ValidateConfigurationChange). Two kinds of checks, as in etcd:
//
// - before proposing, on the member the client called: URL syntax and, with
//   --strict-reconfig-check (default on), that the change leaves enough
//   started voters for a quorum; a promote also needs the leader's view of
//   the learner's log (only the leader has it: a follower answers with the
//   leader's client URLs and the API forwards the call there);
// - at apply, on every member alike (validateConfChange): id removed or
//   absent, id or peer URL already present, too many learners, promote of a
//   voter. A rejected ConfChange still reaches Raft, as a no-op UpdateNode,
//   and its proposer gets the error.
//
// The ConfChange context is the member as JSON (membership.ts) plus the
// proposer's request id, so the member that proposed it is answered when it
// applies, exactly like a normal request (wait.ts).

import { Errors } from '../errors';
import { ConfChangeType, type ConfChange, type Index, type MemberId } from '../raft/types';
import { computeMemberId } from './ids';
import type { Membership, MemberContext } from './membership';
import type { AtLeader } from '../atLeader';
import type { MemberInfo } from '../api/etcdServer';

/** etcd's maxLearners. */
export const MAX_LEARNERS = 1;
/** etcd's readyPercent: a learner may be promoted once its log matches 90% of the leader's. */
export const LEARNER_READY_PERCENT = 0.9;
/** etcd's HealthInterval: a peer counts as healthy once connected this long. */
export const HEALTH_INTERVAL_MS = 5000;

/**
 * When each peer's stream came up (etcd: rafthttp ActiveSince), from the
 * transport's connected flag sampled every heartbeat.
 */
export class PeerActivity {
  private readonly since = new Map<MemberId, number>();

  observe(peers: MemberId[], isConnected: (id: MemberId) => boolean, now: number): void {
    for (const id of peers) {
      if (!isConnected(id)) this.since.delete(id);
      else if (!this.since.has(id)) this.since.set(id, now);
    }
    for (const id of this.since.keys()) if (!peers.includes(id)) this.since.delete(id);
  }

  /** 0: not connected. */
  activeSince(id: MemberId): number {
    return this.since.get(id) ?? 0;
  }
}

/** What a runtime ConfChange's context carries: the member, and who waits for it. */
export interface ChangeContext extends MemberContext {
  /** etcd's ConfigChangeContext.IsPromote: AddNode of a present learner. */
  isPromote?: boolean;
  /** The proposer's request id (absent in bootstrap entries). */
  requestId?: bigint;
}

export function encodeChangeContext(c: ChangeContext): Uint8Array {
  const json = JSON.stringify({
    id: c.id.toString(),
    name: c.name,
    peerURLs: c.peerUrls,
    isLearner: c.isLearner,
    ...(c.isPromote ? { isPromote: true } : {}),
    ...(c.requestId !== undefined ? { requestId: c.requestId.toString() } : {}),
  });
  return new TextEncoder().encode(json);
}

export function decodeChangeContext(bytes: Uint8Array): ChangeContext {
  if (bytes.length === 0) return { id: 0n, name: '', peerUrls: [], isLearner: false };
  const o = JSON.parse(new TextDecoder().decode(bytes)) as {
    id?: string;
    name?: string;
    peerURLs?: string[];
    isLearner?: boolean;
    isPromote?: boolean;
    requestId?: string;
  };
  return {
    id: BigInt(o.id ?? '0'),
    name: o.name ?? '',
    peerUrls: o.peerURLs ?? [],
    isLearner: o.isLearner ?? false,
    ...(o.isPromote ? { isPromote: true } : {}),
    ...(o.requestId !== undefined ? { requestId: BigInt(o.requestId) } : {}),
  };
}

/**
 * The id of a member added at runtime (etcd v3rpc MemberAdd:
 * membership.NewMember("", urls, "", &now)): no cluster token, the current
 * unix seconds mixed in, so re-adding the same URLs later gives a new id.
 */
export function runtimeMemberId(peerUrls: string[], nowMs: number): MemberId {
  return computeMemberId(peerUrls, '', Math.floor(nowMs / 1000));
}

/** etcd's types.NewURLs: http(s)/unix(s) scheme, host:port, no path; else ErrGRPCMemberBadURLs. */
export function checkPeerUrls(urls: string[]): void {
  for (const raw of urls) {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw Errors.memberBadURLs();
    }
    if (!['http:', 'https:', 'unix:', 'unixs:'].includes(u.protocol)) throw Errors.memberBadURLs();
    // net.SplitHostPort needs an explicit port; WHATWG URL drops a default one, so look at the text.
    if (!/^[a-z]+:\/\/[^/]*:\d*$/i.test(raw.replace(/\/$/, ''))) throw Errors.memberBadURLs();
    if (u.pathname !== '/' && u.pathname !== '') throw Errors.memberBadURLs();
  }
}

// ---- apply-time validation (every member, deterministic)

/** etcd's ValidateConfigurationChange against the applied membership; undefined: valid. */
export function validateConfChange(membership: Membership, cc: ConfChange): Error | undefined {
  const id = cc.nodeId;
  if (membership.isRemoved(id)) return Errors.memberNotFound(); // ErrIDRemoved maps to the same gRPC error
  const members = membership.list();
  const existing = membership.get(id);
  switch (cc.type) {
    case ConfChangeType.AddNode:
    case ConfChangeType.AddLearnerNode: {
      const ctx = decodeChangeContext(cc.context);
      if (ctx.isPromote) {
        if (!existing) return Errors.memberNotFound();
        if (!existing.isLearner) return Errors.memberNotLearner();
        return undefined;
      }
      if (existing) return Errors.memberExist();
      const used = new Set(members.flatMap((m) => m.peerUrls));
      if (ctx.peerUrls.some((u) => used.has(u))) return Errors.peerURLExist();
      if (cc.type === ConfChangeType.AddLearnerNode && members.filter((m) => m.isLearner).length + 1 > MAX_LEARNERS) {
        return Errors.tooManyLearners();
      }
      return undefined;
    }
    case ConfChangeType.RemoveNode:
      return existing ? undefined : Errors.memberNotFound();
    case ConfChangeType.UpdateNode: {
      if (!existing) return Errors.memberNotFound();
      const ctx = decodeChangeContext(cc.context);
      const used = new Set(members.filter((m) => m.id !== id).flatMap((m) => m.peerUrls));
      return ctx.peerUrls.some((u) => used.has(u)) ? Errors.peerURLExist() : undefined;
    }
  }
  return undefined;
}

/** What Raft applies for a rejected change: nothing (etcd sets NodeID = None). */
export function noOpConfChange(cc: ConfChange): ConfChange {
  return { type: ConfChangeType.UpdateNode, nodeId: cc.nodeId, context: new Uint8Array(0) };
}

/**
 * On a restart the membership is already past an entry being replayed (it
 * came from the snapshot or was rebuilt before): Raft gets the change only if
 * the membership shows it took effect, so a change rejected the first time
 * stays a no-op. Later entries end in the same configuration either way.
 */
export function replayedConfChange(membership: Membership, cc: ConfChange): ConfChange {
  const m = membership.get(cc.nodeId);
  switch (cc.type) {
    case ConfChangeType.AddNode:
      return m && !m.isLearner ? cc : noOpConfChange(cc);
    case ConfChangeType.AddLearnerNode:
      return m?.isLearner ? cc : noOpConfChange(cc);
    case ConfChangeType.RemoveNode:
      return membership.isRemoved(cc.nodeId) ? cc : noOpConfChange(cc);
    default:
      return cc;
  }
}

// ---- strict reconfiguration checks (before proposing)

const isStarted = (m: MemberInfo) => m.name !== '';
const voters = (members: MemberInfo[]) => members.filter((m) => !m.isLearner);

/** etcd's RaftCluster.IsReadyToAddVotingMember. */
export function readyToAddVoter(members: MemberInfo[]): boolean {
  const v = voters(members);
  const nmembers = v.length + 1;
  const nstarted = v.filter(isStarted).length;
  if (nstarted === 1 && nmembers === 2) return true;
  return nstarted >= Math.floor(nmembers / 2) + 1;
}

/** etcd's RaftCluster.IsReadyToRemoveVotingMember. */
export function readyToRemoveVoter(members: MemberInfo[], id: MemberId): boolean {
  const rest = voters(members).filter((m) => m.id !== id);
  return rest.filter(isStarted).length >= Math.floor(rest.length / 2) + 1;
}

/** etcd's RaftCluster.IsReadyToPromoteMember: the learner counts as a started voter. */
export function readyToPromote(members: MemberInfo[]): boolean {
  const v = voters(members);
  const nmembers = v.length + 1;
  const nstarted = v.filter(isStarted).length + 1;
  return nstarted >= Math.floor(nmembers / 2) + 1;
}

/** The raft status the promote check needs (the leader's progress per member). */
export interface LearnerProgress {
  leaderId: MemberId;
  /** Empty on a follower. */
  match: Map<MemberId, Index>;
}

/** etcd's isLearnerReady: undefined when ready (or unknown to Raft), notLeader on a follower. */
export function learnerReadiness(p: LearnerProgress, id: MemberId): Error | undefined {
  if (p.match.size === 0) return Errors.notLeader();
  const learnerMatch = p.match.get(id);
  if (learnerMatch === undefined) return undefined;
  const leaderMatch = p.match.get(p.leaderId) ?? 0;
  return learnerMatch < leaderMatch * LEARNER_READY_PERCENT ? Errors.learnerNotReady() : undefined;
}

// ---- the operations

export interface MembershipChangeDeps {
  localId: MemberId;
  /** --strict-reconfig-check (etcd default true). */
  strict: boolean;
  membership(): Membership;
  /** When this member's stream to the peer came up; 0 while it is down (etcd: transport.ActiveSince). */
  activeSince(id: MemberId): number;
  /** The leader's progress (empty match map on a follower). */
  progress(): LearnerProgress;
  /** Leader's client URLs for a forwarded promote; empty when no leader is known. */
  leaderClientUrls(): string[];
  nextRequestId(): bigint;
  now(): number;
  /** Proposes the ConfChange and resolves with the member list once it applied (or rejects with the apply error). */
  propose(cc: ConfChange, requestId: bigint): Promise<MemberInfo[]>;
}

export class MembershipChanges {
  constructor(private readonly d: MembershipChangeDeps) {}

  async add(peerUrls: string[], isLearner: boolean): Promise<{ member: MemberInfo; members: MemberInfo[] }> {
    checkPeerUrls(peerUrls);
    const id = runtimeMemberId(peerUrls, this.d.now());
    if (this.d.strict) {
      // etcd mayAddMember: protect the quorum when adding a voter; every voter connected for a while.
      const members = this.d.membership().list();
      if (!isLearner && !readyToAddVoter(members)) throw Errors.memberNotEnoughStarted();
      if (this.connectedSince(voters(members)) !== voters(members).length) throw Errors.unhealthy();
    }
    const requestId = this.d.nextRequestId();
    const context = encodeChangeContext({ id, name: '', peerUrls, isLearner, requestId });
    const type = isLearner ? ConfChangeType.AddLearnerNode : ConfChangeType.AddNode;
    const members = await this.d.propose({ type, nodeId: id, context }, requestId);
    return { member: { id, name: '', peerUrls: [...peerUrls], clientUrls: [], isLearner }, members };
  }

  async remove(id: MemberId): Promise<MemberInfo[]> {
    if (this.d.strict) this.mayRemove(id);
    const requestId = this.d.nextRequestId();
    const context = encodeChangeContext({ id, name: '', peerUrls: [], isLearner: false, requestId });
    return this.d.propose({ type: ConfChangeType.RemoveNode, nodeId: id, context }, requestId);
  }

  async update(id: MemberId, peerUrls: string[]): Promise<MemberInfo[]> {
    checkPeerUrls(peerUrls);
    const requestId = this.d.nextRequestId();
    const m = this.d.membership().get(id);
    const context = encodeChangeContext({ id, name: m?.name ?? '', peerUrls, isLearner: m?.isLearner ?? false, requestId });
    return this.d.propose({ type: ConfChangeType.UpdateNode, nodeId: id, context }, requestId);
  }

  /** Leader only: a follower answers with the leader's client URLs to forward to. */
  async promote(id: MemberId): Promise<AtLeader<MemberInfo[]>> {
    const ready = learnerReadiness(this.d.progress(), id);
    if (ready === undefined) {
      // handled below
    } else if (ready.message === Errors.notLeader().message) {
      const urls = this.d.leaderClientUrls();
      if (urls.length === 0) throw Errors.noLeader();
      return { forwardTo: urls };
    } else {
      throw ready;
    }
    if (this.d.strict && !readyToPromote(this.d.membership().list())) throw Errors.memberNotEnoughStarted();
    const m = this.d.membership().get(id);
    const requestId = this.d.nextRequestId();
    const context = encodeChangeContext({
      id,
      name: m?.name ?? '',
      peerUrls: m?.peerUrls ?? [],
      isLearner: false,
      isPromote: true,
      requestId,
    });
    return { value: await this.d.propose({ type: ConfChangeType.AddNode, nodeId: id, context }, requestId) };
  }

  /** etcd mayRemoveMember. */
  private mayRemove(id: MemberId): void {
    const members = this.d.membership().list();
    const target = members.find((m) => m.id === id);
    if (target?.isLearner) return; // no quorum to protect
    if (!readyToRemoveVoter(members, id)) throw Errors.memberNotEnoughStarted();
    // A member that is down is safe to remove: it is not part of the active quorum.
    if (id !== this.d.localId && this.d.activeSince(id) === 0) return;
    const v = voters(members);
    if (this.connectedSince(v) - 1 < 1 + Math.floor((v.length - 1) / 2)) throw Errors.unhealthy();
  }

  /** etcd numConnectedSince(now - HealthInterval): this member and the peers connected at least that long. */
  private connectedSince(members: MemberInfo[]): number {
    const before = this.d.now() - HEALTH_INTERVAL_MS;
    return members.filter((m) => {
      if (m.id === this.d.localId) return true;
      const t = this.d.activeSince(m.id);
      return t !== 0 && t <= before;
    }).length;
  }
}

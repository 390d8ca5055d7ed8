// The Raft state machine (etcd-io/raft raft.go): one member's view of the
// cluster. Input is a tick or a message; output is data — messages queued in
// `msgs`, entries in the log's unstable tail, read states — which RawNode
// hands to the driver as a Ready. No timers, no I/O; randomness only from
// config.random.
//
// Each role swaps in its own step and tick functions (becomeFollower,
// becomePreCandidate, becomeCandidate, becomeLeader). Split by concern:
// stepLeader.ts / stepFollower.ts (the role step functions), election.ts
// (campaign, hup, answering votes), replication.ts (the leader's appends,
// heartbeats and snapshots), followerHandlers.ts (append, heartbeat,
// snapshot), readIndex.ts (the leader's ReadIndex answers).
//
// Invariants:
// 1. term never decreases; vote is reset only when term changes.
// 2. A leader only commits entries of its own term by counting replicas.
// 3. Messages in msgs may leave only after the entries/hard state produced
//    by the same steps are persisted (RawNode documents the driver's side).

import { CAMPAIGN_TRANSFER, CampaignType } from './campaign';
import type { Config } from './config';
import { decodeConfChange } from './confChangeCodec';
import { ErrProposalDropped, RaftPanic } from './errors';
import { RaftLog } from './raftLog';
import { handleVoteRequest, hup } from './election';
import { releasePendingReadIndexMessages } from './readIndex';
import { bcastAppend, maybeSendAppend } from './replication';
import { ReadOnly } from './readOnly';
import { stepCandidate, stepFollower } from './stepFollower';
import { stepLeader } from './stepLeader';
import { ProgressTracker } from './tracker/progressTracker';
import {
  ConfChangeType,
  EntryType,
  MessageType,
  NONE,
  ReadOnlyOption,
  StateType,
  type ConfChange,
  type ConfState,
  type Entry,
  type HardState,
  type Index,
  type Logger,
  type MemberId,
  type Message,
  type RandomInt,
  type ReadState,
  type SoftState,
  type Term,
} from './types';
import { EMPTY_BYTES, bytesEqual, isEmptyHardState, message, payloadSize } from './util';

type StepFn = (r: Raft, m: Message) => void;

const silentLogger: Logger = { debug() {}, info() {}, warn() {} };

export class Raft {
  readonly id: MemberId;
  term: Term = 0;
  vote: MemberId = NONE;
  lead: MemberId = NONE;
  state = StateType.Follower;
  isLearner = false;

  readonly raftLog: RaftLog;
  prs: ProgressTracker;
  readOnly: ReadOnly;
  msgs: Message[] = [];
  readStates: ReadState[] = [];
  /** ReadIndex requests held until the leader has committed an entry of its term. */
  pendingReadIndexMessages: Message[] = [];

  /** The member a leadership transfer is handing over to, or NONE. */
  leadTransferee: MemberId = NONE;
  /** Index of the last conf change appended by this leader; a new one waits until it is applied. */
  pendingConfIndex: Index = 0;
  /** Data bytes appended by this leader and not yet committed. */
  uncommittedSize = 0;

  readonly maxMsgSize: number;
  readonly maxUncommittedSize: number;
  readonly checkQuorum: boolean;
  readonly preVote: boolean;
  readonly heartbeatTimeout: number;
  readonly electionTimeout: number;
  /** Ticks since the last election timeout reset (leader: since the last CheckQuorum). */
  electionElapsed = 0;
  heartbeatElapsed = 0;
  randomizedElectionTimeout = 0;
  private readonly random: RandomInt;
  readonly logger: Logger;
  private readonly readOnlyOption: ReadOnlyOption;

  private tickFn: () => void = () => this.tickElection();
  private stepFn: StepFn = stepFollower;

  constructor(c: Config) {
    if (c.id === NONE) throw new RaftPanic('cannot use none as id');
    if (c.heartbeatTick <= 0) throw new RaftPanic('heartbeat tick must be greater than 0');
    if (c.electionTick <= c.heartbeatTick) throw new RaftPanic('election tick must be greater than heartbeat tick');
    if (c.maxInflightMsgs <= 0) throw new RaftPanic('max inflight messages must be greater than 0');
    this.id = c.id;
    this.maxMsgSize = c.maxSizePerMsg;
    this.maxUncommittedSize = c.maxUncommittedEntriesSize || Infinity;
    this.checkQuorum = c.checkQuorum;
    this.preVote = c.preVote;
    this.heartbeatTimeout = c.heartbeatTick;
    this.electionTimeout = c.electionTick;
    this.random = c.random;
    this.logger = c.logger ?? silentLogger;
    this.readOnlyOption = c.readOnlyOption ?? ReadOnlyOption.Safe;
    this.readOnly = new ReadOnly(this.readOnlyOption);
    this.raftLog = new RaftLog(c.storage, c.maxSizePerMsg);
    this.prs = new ProgressTracker(c.maxInflightMsgs);

    const { hardState, confState } = c.storage.initialState();
    this.restoreConfState(confState);
    if (!isEmptyHardState(hardState)) this.loadState(hardState);
    if (c.applied) {
      this.raftLog.appliedTo(c.applied);
      this.replayAppliedConfChanges(c.applied);
    }
    this.becomeFollower(this.term, NONE);
  }

  /**
   * Storage's confState is the configuration as of its snapshot. Conf changes
   * after the snapshot and up to `applied` will not be handed out again, so
   * the driver will not re-apply them: apply them here.
   */
  private replayAppliedConfChanges(applied: Index): void {
    const first = this.raftLog.firstIndex();
    if (applied < first) return;
    for (const e of this.raftLog.slice(first, applied + 1, Infinity)) {
      if (e.type === EntryType.ConfChange) this.prs.applyConfChange(decodeConfChange(e.data), this.raftLog.lastIndex());
    }
    const pr = this.prs.progress.get(this.id);
    if (pr) pr.match = Math.max(pr.match, this.raftLog.lastIndex());
    this.isLearner = pr?.isLearner ?? false;
  }

  // ---- state accessors -------------------------------------------------

  softState(): SoftState {
    return { lead: this.lead, raftState: this.state };
  }

  hardState(): HardState {
    return { term: this.term, vote: this.vote, commit: this.raftLog.committed };
  }

  private loadState(hs: HardState): void {
    if (hs.commit < this.raftLog.committed || hs.commit > this.raftLog.lastIndex()) {
      throw new RaftPanic(`${this.id} state.commit ${hs.commit} is out of range [${this.raftLog.committed}, ${this.raftLog.lastIndex()}]`);
    }
    this.raftLog.committed = hs.commit;
    this.term = hs.term;
    this.vote = hs.vote;
  }

  /** Can this member campaign? Voters only, and not while a received snapshot is unpersisted. */
  promotable(): boolean {
    const pr = this.prs.progress.get(this.id);
    return pr !== undefined && !pr.isLearner && !this.raftLog.hasPendingSnapshot();
  }

  // ---- sending ---------------------------------------------------------

  /** Queues m. Vote messages carry their own term; everything else is stamped with ours (local forwards keep 0). */
  send(m: Message): void {
    if (m.from === NONE) m.from = this.id;
    const t = m.type;
    if (t === MessageType.Vote || t === MessageType.VoteResp || t === MessageType.PreVote || t === MessageType.PreVoteResp) {
      if (m.term === 0) throw new RaftPanic(`term should be set when sending ${MessageType[t]}`);
    } else {
      if (m.term !== 0) throw new RaftPanic(`term should not be set when sending ${MessageType[t]} (was ${m.term})`);
      if (t !== MessageType.Prop && t !== MessageType.ReadIndex) m.term = this.term;
    }
    this.msgs.push(m);
  }

  // ---- log -------------------------------------------------------------

  /** Commits what a majority holds, if that is an entry of this term. */
  maybeCommit(): boolean {
    return this.raftLog.maybeCommit(this.prs.committed(), this.term);
  }

  /**
   * Leader: appends es (stamping term and index); false when the uncommitted
   * tail is full. The leader's own copy counts toward commit only once the
   * driver reports it persisted (onPersisted), so a driver may send a
   * leader's appends while its own disk write is in flight (Raft thesis
   * §10.2.1) without an entry being committed on fewer durable copies than a
   * quorum.
   */
  appendEntry(es: Entry[]): boolean {
    let li = this.raftLog.lastIndex();
    for (const e of es) {
      e.term = this.term;
      e.index = ++li;
    }
    if (!this.increaseUncommittedSize(es)) return false;
    this.raftLog.append(es);
    return true;
  }

  /** The driver persisted the log up to (index, term): a leader now counts its own copy. */
  onPersisted(index: Index, term: Term): void {
    if (this.state !== StateType.Leader || this.raftLog.term(index) !== term) return;
    const pr = this.prs.progress.get(this.id);
    if (!pr?.maybeUpdate(index)) return;
    if (this.maybeCommit()) {
      releasePendingReadIndexMessages(this);
      bcastAppend(this); // tells followers the new commit index
    }
  }

  private increaseUncommittedSize(es: Entry[]): boolean {
    const s = payloadSize(es);
    // An empty tail always accepts one proposal, however large.
    if (this.uncommittedSize > 0 && s > 0 && this.uncommittedSize + s > this.maxUncommittedSize) return false;
    this.uncommittedSize += s;
    return true;
  }

  reduceUncommittedSize(ents: readonly Entry[]): void {
    if (this.uncommittedSize === 0) return;
    this.uncommittedSize = Math.max(0, this.uncommittedSize - payloadSize(ents));
  }

  committedEntryInCurrentTerm(): boolean {
    return this.raftLog.term(this.raftLog.committed) === this.term;
  }

  // ---- roles -----------------------------------------------------------

  private reset(term: Term): void {
    if (this.term !== term) {
      this.term = term;
      this.vote = NONE;
    }
    this.lead = NONE;
    this.electionElapsed = 0;
    this.heartbeatElapsed = 0;
    this.randomizedElectionTimeout = this.electionTimeout + this.random(this.electionTimeout);
    this.abortLeaderTransfer();
    this.prs.resetVotes();
    const last = this.raftLog.lastIndex();
    // What this member has persisted (the unstable tail does not count yet, see appendEntry).
    const persisted = this.raftLog.unstable.entries.length ? this.raftLog.unstable.offset - 1 : last;
    for (const [id, pr] of this.prs.progress) {
      pr.becomeProbe();
      pr.match = id === this.id ? persisted : 0;
      pr.next = last + 1;
      pr.recentActive = false;
    }
    this.pendingConfIndex = 0;
    this.uncommittedSize = 0;
    this.readOnly = new ReadOnly(this.readOnlyOption);
  }

  becomeFollower(term: Term, lead: MemberId): void {
    this.stepFn = stepFollower;
    this.reset(term);
    this.tickFn = () => this.tickElection();
    this.lead = lead;
    this.state = StateType.Follower;
    this.pendingReadIndexMessages = [];
  }

  becomeCandidate(): void {
    if (this.state === StateType.Leader) throw new RaftPanic('invalid transition [leader -> candidate]');
    this.stepFn = stepCandidate;
    this.reset(this.term + 1);
    this.tickFn = () => this.tickElection();
    this.vote = this.id;
    this.state = StateType.Candidate;
  }

  /** A trial election at term+1 that changes neither term nor vote, so a partitioned member cannot disrupt others. */
  becomePreCandidate(): void {
    if (this.state === StateType.Leader) throw new RaftPanic('invalid transition [leader -> pre-candidate]');
    this.stepFn = stepCandidate;
    this.prs.resetVotes();
    this.tickFn = () => this.tickElection();
    this.lead = NONE;
    this.state = StateType.PreCandidate;
  }

  becomeLeader(): void {
    if (this.state === StateType.Follower) throw new RaftPanic('invalid transition [follower -> leader]');
    this.stepFn = stepLeader;
    this.reset(this.term);
    this.tickFn = () => this.tickHeartbeat();
    this.lead = this.id;
    this.state = StateType.Leader;
    this.prs.progress.get(this.id)?.becomeReplicate();
    // Any conf change in the uncommitted tail may be pending: be conservative.
    this.pendingConfIndex = this.raftLog.lastIndex();
    // The empty entry commits everything before it once a majority holds it.
    if (!this.appendEntry([{ term: 0, index: 0, type: EntryType.Normal, data: EMPTY_BYTES }])) {
      throw new RaftPanic('empty entry was dropped');
    }
    this.logger.info(`${this.id} became leader at term ${this.term}`);
  }

  abortLeaderTransfer(): void {
    this.leadTransferee = NONE;
  }

  // ---- ticks -----------------------------------------------------------

  tick(): void {
    this.tickFn();
  }

  private tickElection(): void {
    this.electionElapsed++;
    if (this.promotable() && this.electionElapsed >= this.randomizedElectionTimeout) {
      this.electionElapsed = 0;
      this.step(message({ type: MessageType.Hup, from: this.id }));
    }
  }

  private tickHeartbeat(): void {
    this.heartbeatElapsed++;
    this.electionElapsed++;
    if (this.electionElapsed >= this.electionTimeout) {
      this.electionElapsed = 0;
      if (this.checkQuorum) this.step(message({ type: MessageType.CheckQuorum, from: this.id }));
      // A transfer that did not finish within an election timeout is abandoned.
      if (this.state === StateType.Leader && this.leadTransferee !== NONE) this.abortLeaderTransfer();
    }
    if (this.state !== StateType.Leader) return;
    if (this.heartbeatElapsed >= this.heartbeatTimeout) {
      this.heartbeatElapsed = 0;
      this.step(message({ type: MessageType.Beat, from: this.id }));
    }
  }

  // ---- step ------------------------------------------------------------

  /** Handles a message; term rules first, then the role's step function. */
  step(m: Message): void {
    if (m.term === 0) {
      // local message
    } else if (m.term > this.term) {
      if (m.type === MessageType.Vote || m.type === MessageType.PreVote) {
        const force = bytesEqual(m.context, CAMPAIGN_TRANSFER);
        const inLease = this.checkQuorum && this.lead !== NONE && this.electionElapsed < this.electionTimeout;
        // We heard from a leader within the minimum election timeout: ignore
        // the vote (and do not bump our term), unless the leader asked for it.
        if (!force && inLease) return;
      }
      if (m.type === MessageType.PreVote) {
        // A pre-vote never changes our term.
      } else if (m.type === MessageType.PreVoteResp && !m.reject) {
        // A granted pre-vote answers at the term we will campaign at; the term bumps when we do.
      } else if (m.type === MessageType.App || m.type === MessageType.Heartbeat || m.type === MessageType.Snap) {
        this.becomeFollower(m.term, m.from);
      } else {
        this.becomeFollower(m.term, NONE);
      }
    } else if (m.term < this.term) {
      if ((this.checkQuorum || this.preVote) && (m.type === MessageType.Heartbeat || m.type === MessageType.App)) {
        // A stale leader (e.g. after a partition) learns the new term from this
        // response and steps down; without it, it would never hear of it
        // because our pre-votes/lease keep us from bumping its term.
        this.send(message({ type: MessageType.AppResp, to: m.from }));
      } else if (m.type === MessageType.PreVote) {
        this.send(message({ type: MessageType.PreVoteResp, to: m.from, term: this.term, reject: true }));
      }
      return;
    }

    switch (m.type) {
      case MessageType.Hup:
        hup(this, this.preVote ? CampaignType.PreElection : CampaignType.Election);
        return;
      case MessageType.Vote:
      case MessageType.PreVote:
        handleVoteRequest(this, m);
        return;
      default:
        this.stepFn(this, m);
    }
  }

  // ---- configuration ---------------------------------------------------

  restoreConfState(cs: ConfState): void {
    const last = this.raftLog.lastIndex();
    for (const id of cs.voters) this.prs.applyConfChange({ type: ConfChangeType.AddNode, nodeId: id, context: EMPTY_BYTES }, last);
    for (const id of cs.learners) {
      this.prs.applyConfChange({ type: ConfChangeType.AddLearnerNode, nodeId: id, context: EMPTY_BYTES }, last);
    }
    const pr = this.prs.progress.get(this.id);
    if (pr) pr.match = Math.max(pr.match, last);
    this.isLearner = pr?.isLearner ?? false;
  }

  /** Applies a committed conf change to the tracker (idempotent) and returns the new configuration. */
  applyConfChange(cc: ConfChange): ConfState {
    this.prs.applyConfChange(cc, this.raftLog.lastIndex());
    const cs = this.prs.confState();
    const pr = this.prs.progress.get(this.id);
    this.isLearner = pr?.isLearner ?? false;
    if (!pr || this.isLearner) return cs; // a removed or demoted member stops counting itself
    if (this.state !== StateType.Leader || cs.voters.length === 0) return cs;
    // The quorum changed: maybe more is committed now; new members need their log.
    if (this.maybeCommit()) {
      releasePendingReadIndexMessages(this);
      bcastAppend(this);
    } else {
      for (const id of this.prs.progress.keys()) if (id !== this.id) maybeSendAppend(this, id, false);
    }
    if (this.leadTransferee !== NONE && !this.prs.voters.has(this.leadTransferee)) this.abortLeaderTransfer();
    return cs;
  }

  dropProposal(): never {
    throw new ErrProposalDropped();
  }
}

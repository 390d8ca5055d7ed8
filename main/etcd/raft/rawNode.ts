// RawNode: the synchronous facade a driver uses to run one member's Raft
// (etcd-io/raft rawnode.go). It never blocks, reads no clock and does no I/O.
//
// THE DRIVER'S CONTRACT
//
// Call tick() every heartbeat interval ÷ heartbeatTick of wall time; feed peer
// messages to step(), client requests to propose()/readIndex(). Then, whenever
// hasReady() is true:
//
//   const rd = node.ready();
//   1. Persist, in this order, and make durable (fsync) if rd.mustSync:
//        a. rd.snapshot, if set (storage.applySnapshot: replaces the log);
//        b. rd.entries (storage.append: an entry at index i replaces every
//           persisted entry ≥ i);
//        c. rd.hardState, if set (storage.setHardState).
//   2. Only then send rd.messages. Every message in a Ready may depend on that
//      Ready's entries or hard state (a vote, an append acknowledgement), so
//      none may leave before step 1 is durable. Losing messages is fine.
//      One allowed exception (Raft thesis §10.2.1, as etcd does): while this
//      member is leader (rd.softState / status say so at ready() time), its
//      messages may be sent before step 1 completes, because the leader counts
//      its own entries toward commit only after advance(rd) reports them
//      persisted.
//   3. Apply rd.snapshot to the state machine (if set), then
//      rd.committedEntries in order. For EntryType.ConfChange entries call
//      applyConfChange(decodeConfChange(e.data)); it is idempotent. Serve
//      rd.readStates once the applied index ≥ readState.index.
//   4. Call advance(rd).
//
// Exactly one Ready is outstanding at a time: hasReady() is false and ready()
// throws between ready() and advance(). tick/step/propose may still be called
// meanwhile; their effects come out in the next Ready.
//
// To restart, give the Config a Storage holding what was persisted (snapshot,
// entries, hard state) and `applied` = the index the state machine has
// applied (at least the snapshot index when the state machine was restored
// from it). Committed entries after it are handed out again.

import type { Config, Peer, RaftNode } from './config';
import { encodeConfChange } from './confChangeCodec';
import { ErrStepLocalMsg, ErrStepPeerNotFound, RaftPanic } from './errors';
import { Raft } from './raft';
import {
  ConfChangeType,
  EntryType,
  MessageType,
  NONE,
  SnapshotStatus,
  StateType,
  type ConfChange,
  type ConfState,
  type Entry,
  type HardState,
  type MemberId,
  type Message,
  type ProgressStatus,
  type Ready,
  type SoftState,
  type Status,
} from './types';
import { EMPTY_BYTES, isEmptyHardState, isHardStateEqual, isLocalMsg, isResponseMsg, message } from './util';

export class RawNode implements RaftNode {
  readonly raft: Raft;
  private prevSoftState: SoftState;
  private prevHardState: HardState;
  private outstanding: Ready | undefined;

  constructor(config: Config) {
    this.raft = new Raft(config);
    this.prevSoftState = this.raft.softState();
    this.prevHardState = this.raft.hardState();
  }

  bootstrap(peers: Peer[]): void {
    if (peers.length === 0) throw new RaftPanic('must provide at least one peer to bootstrap');
    if (this.raft.raftLog.lastIndex() !== 0) throw new RaftPanic('can only bootstrap an empty storage');
    const r = this.raft;
    r.becomeFollower(1, NONE);
    const ents: Entry[] = peers.map((p, i) => ({
      term: 1,
      index: i + 1,
      type: EntryType.ConfChange,
      data: encodeConfChange({ type: ConfChangeType.AddNode, nodeId: p.id, context: p.context ?? EMPTY_BYTES }),
    }));
    r.raftLog.append(ents);
    // Every member bootstraps with the same entries, so they count as committed.
    r.raftLog.committed = ents.length;
    for (const p of peers) r.applyConfChange({ type: ConfChangeType.AddNode, nodeId: p.id, context: EMPTY_BYTES });
  }

  tick(): void {
    this.raft.tick();
  }

  campaign(): void {
    this.raft.step(message({ type: MessageType.Hup }));
  }

  propose(data: Uint8Array): void {
    this.raft.step(
      message({ type: MessageType.Prop, from: this.raft.id, entries: [{ term: 0, index: 0, type: EntryType.Normal, data }] }),
    );
  }

  proposeConfChange(cc: ConfChange): void {
    const data = encodeConfChange(cc);
    this.raft.step(
      message({ type: MessageType.Prop, from: this.raft.id, entries: [{ term: 0, index: 0, type: EntryType.ConfChange, data }] }),
    );
  }

  applyConfChange(cc: ConfChange): ConfState {
    return this.raft.applyConfChange(cc);
  }

  /** A message from a peer. Throws ErrStepLocalMsg / ErrStepPeerNotFound for messages a peer may not send. */
  step(m: Message): void {
    if (isLocalMsg(m.type)) throw new ErrStepLocalMsg();
    if (isResponseMsg(m.type) && !this.raft.prs.progress.has(m.from)) throw new ErrStepPeerNotFound();
    this.raft.step(m);
  }

  hasReady(): boolean {
    if (this.outstanding) return false;
    const r = this.raft;
    const ss = r.softState();
    if (ss.lead !== this.prevSoftState.lead || ss.raftState !== this.prevSoftState.raftState) return true;
    const hs = r.hardState();
    if (!isEmptyHardState(hs) && !isHardStateEqual(hs, this.prevHardState)) return true;
    if (r.raftLog.hasPendingSnapshot()) return true;
    return (
      r.msgs.length > 0 || r.raftLog.unstable.entries.length > 0 || r.raftLog.hasNextEnts() || r.readStates.length > 0
    );
  }

  ready(): Ready {
    if (this.outstanding) throw new RaftPanic('ready() called again before advance()');
    const r = this.raft;
    const entries = r.raftLog.unstableEntries();
    const rd: Ready = {
      entries,
      committedEntries: r.raftLog.nextEnts(),
      messages: r.msgs,
      readStates: r.readStates,
      mustSync: false,
    };
    const ss = r.softState();
    if (ss.lead !== this.prevSoftState.lead || ss.raftState !== this.prevSoftState.raftState) {
      rd.softState = ss;
      this.prevSoftState = ss;
    }
    const hs = r.hardState();
    if (!isHardStateEqual(hs, this.prevHardState)) rd.hardState = hs;
    if (r.raftLog.unstable.snapshot) rd.snapshot = r.raftLog.unstable.snapshot;
    // Only a new vote/term or new entries need an fsync; a commit index can be recovered.
    rd.mustSync =
      entries.length > 0 || (rd.hardState !== undefined && (hs.vote !== this.prevHardState.vote || hs.term !== this.prevHardState.term));
    r.msgs = [];
    r.readStates = [];
    this.outstanding = rd;
    return rd;
  }

  advance(rd: Ready): void {
    if (rd !== this.outstanding) throw new RaftPanic('advance() with a Ready that is not the outstanding one');
    this.outstanding = undefined;
    const r = this.raft;
    if (rd.hardState) this.prevHardState = rd.hardState;
    const lastCommitted = rd.committedEntries[rd.committedEntries.length - 1];
    if (lastCommitted) {
      r.raftLog.appliedTo(lastCommitted.index);
      r.reduceUncommittedSize(rd.committedEntries);
    } else if (rd.snapshot) {
      r.raftLog.appliedTo(rd.snapshot.metadata.index);
    }
    const lastEntry = rd.entries[rd.entries.length - 1];
    if (lastEntry) r.raftLog.stableTo(lastEntry.index, lastEntry.term);
    if (rd.snapshot) r.raftLog.stableSnapTo(rd.snapshot.metadata.index);
    if (lastEntry) r.onPersisted(lastEntry.index, lastEntry.term);
  }

  readIndex(ctx: Uint8Array): void {
    this.raft.step(message({ type: MessageType.ReadIndex, entries: [{ term: 0, index: 0, type: EntryType.Normal, data: ctx }] }));
  }

  /** Asks the leader (this node or, forwarded, the current one) to hand leadership to transferee. */
  transferLeader(transferee: MemberId): void {
    this.raft.step(message({ type: MessageType.TransferLeader, from: transferee }));
  }

  reportUnreachable(id: MemberId): void {
    this.raft.step(message({ type: MessageType.Unreachable, from: id }));
  }

  reportSnapshot(id: MemberId, status: SnapshotStatus): void {
    this.raft.step(message({ type: MessageType.SnapStatus, from: id, reject: status === SnapshotStatus.Failure }));
  }

  status(): Status {
    const r = this.raft;
    const progress = new Map<MemberId, ProgressStatus>();
    if (r.state === StateType.Leader) {
      for (const [id, pr] of r.prs.progress) {
        progress.set(id, { match: pr.match, next: pr.next, state: pr.state, isLearner: pr.isLearner, recentActive: pr.recentActive });
      }
    }
    return {
      id: r.id,
      hardState: r.hardState(),
      softState: r.softState(),
      applied: r.raftLog.applied,
      progress,
      leadTransferee: r.leadTransferee,
    };
  }
}

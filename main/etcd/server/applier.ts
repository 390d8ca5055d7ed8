// The apply half of the Raft loop (etcd: server.go applyAll, applyEntries,
// applyConfChange): committed entries into the state machine, in log order,
// each exactly once (the state machine's consistent index skips replays).
// A ConfChange is validated and applied on every member alike, then shown to
// Raft and to the peer transport; a snapshot replaces the whole state. The
// loop (raftLoop.ts) decides when each of these runs.

import { decodeConfChange } from '../raft/index';
import { ConfChangeType, EntryType, type ConfState, type Entry, type Index, type MemberId, type Snapshot } from '../raft/types';
import type { RaftNode } from '../raft/config';
import { idToHex } from './ids';
import { decodeMemberContext } from './membership';
import { decodeChangeContext, noOpConfChange, replayedConfChange, validateConfChange } from './membershipChanges';
import type { MemberMetrics } from './metrics';
import type { ApplyOutcome, StateMachine } from './stateMachine';

/** The peer transport as membership changes see it. */
export interface PeerMembership {
  addPeer(id: MemberId, urls: string[]): void;
  updatePeer(id: MemberId, urls: string[]): void;
  removePeer(id: MemberId): void;
}

export interface ApplierHooks {
  onOutcome(outcome: ApplyOutcome): void;
  /** This member applied its own removal: it must stop (etcd exits). */
  onRemovedSelf?(): void;
}

export interface ApplierOptions {
  localId: MemberId;
  node: RaftNode;
  peers: PeerMembership;
  sm: StateMachine;
  metrics: MemberMetrics;
  log(line: string): void;
  hooks: ApplierHooks;
}

export class Applier {
  /** The last entry applied to the state machine. */
  applied: Index;
  /** The voters and learners as of `applied`, for the next snapshot. */
  confState: ConfState;

  /** Starts from the storage's snapshot (`initial`): everything up to it is in the state machine. */
  constructor(
    private readonly o: ApplierOptions,
    initial: Snapshot,
  ) {
    this.applied = initial.metadata.index;
    this.confState = initial.metadata.confState;
  }

  /** Applies committed entries in order; those at or below `applied` are skipped. */
  apply(entries: Entry[]): void {
    for (const e of entries) {
      if (e.index <= this.applied) continue;
      if (e.type === EntryType.ConfChange) {
        this.applyConfChange(e);
      } else {
        let outcome: ApplyOutcome | undefined;
        try {
          outcome = this.o.sm.applyNormal(e.index, e.data);
        } catch (err) {
          // An entry that does not decode is skipped on every member alike.
          this.o.log(`failed to apply entry ${e.index}: ${(err as Error).message}`);
        }
        if (outcome) this.o.hooks.onOutcome(outcome);
      }
      this.applied = e.index;
    }
    this.o.metrics.proposalsApplied.set(this.applied);
  }

  /** Replaces the state machine by a snapshot's and points the transport at its members. */
  restore(snap: Snapshot): void {
    this.o.sm.restore(snap.data);
    this.applied = snap.metadata.index;
    this.confState = snap.metadata.confState;
    this.reconcilePeers();
  }

  private applyConfChange(e: Entry): void {
    const cc = decodeConfChange(e.data);
    const { membership } = this.o.sm;
    const replay = e.index <= this.o.sm.consistentIndex;
    // etcd's ValidateConfigurationChange, at apply on every member: a rejected change is a no-op for Raft too.
    const rejected = replay ? undefined : validateConfChange(membership, cc);
    // Raft must see every ConfChange, even one whose effect the state already holds.
    this.confState = this.o.node.applyConfChange(
      rejected ? noOpConfChange(cc) : replay ? replayedConfChange(membership, cc) : cc,
    );
    if (!this.o.sm.markApplied(e.index)) return;
    const requestId = decodeChangeContext(cc.context).requestId;
    if (rejected) {
      this.o.log(`rejected membership change for ${idToHex(cc.nodeId)}: ${rejected.message}`);
      if (requestId !== undefined) this.o.hooks.onOutcome({ id: requestId, error: rejected });
      return;
    }
    const { peers, localId } = this.o;
    switch (cc.type) {
      case ConfChangeType.AddNode:
      case ConfChangeType.AddLearnerNode: {
        const m = decodeMemberContext(cc.context);
        membership.add({ ...m, id: cc.nodeId, isLearner: cc.type === ConfChangeType.AddLearnerNode });
        if (cc.nodeId !== localId) peers.addPeer(cc.nodeId, m.peerUrls);
        const promoted = decodeChangeContext(cc.context).isPromote === true;
        const urls = m.peerUrls.join(',');
        this.o.log(promoted ? `promoted learner member ${idToHex(cc.nodeId)} [${urls}] in cluster` : `added member ${idToHex(cc.nodeId)} [${urls}] to cluster`);
        break;
      }
      case ConfChangeType.RemoveNode:
        membership.remove(cc.nodeId);
        if (cc.nodeId !== localId) peers.removePeer(cc.nodeId);
        else this.o.log('the member has been permanently removed from the cluster');
        this.o.log(`removed member ${idToHex(cc.nodeId)} from cluster`);
        break;
      case ConfChangeType.UpdateNode: {
        const m = decodeMemberContext(cc.context);
        membership.updatePeerUrls(cc.nodeId, m.peerUrls);
        if (cc.nodeId !== localId) peers.updatePeer(cc.nodeId, m.peerUrls);
        break;
      }
    }
    if (requestId !== undefined) this.o.hooks.onOutcome({ id: requestId, value: membership.list() });
    if (cc.type === ConfChangeType.RemoveNode && cc.nodeId === localId) this.o.hooks.onRemovedSelf?.();
  }

  /** Points the transport at exactly the members the (restored) membership holds. */
  private reconcilePeers(): void {
    for (const m of this.o.sm.membership.list()) {
      if (m.id !== this.o.localId) this.o.peers.addPeer(m.id, m.peerUrls);
    }
  }
}

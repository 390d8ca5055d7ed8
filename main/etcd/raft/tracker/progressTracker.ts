// The leader's view of the configuration: who votes, who learns, how far each
// one's log is known to reach, and the votes of the current election
// (etcd-io/raft tracker/tracker.go plus the single-step part of confchange/).
//
// Invariants:
// 1. voters ∩ learners = ∅; progress has exactly one entry per voter and learner.
// 2. Learners never count toward commit, votes or quorum activity.

import { ConfChangeType, type ConfChange, type ConfState, type Index, type MemberId } from '../types';
import { majorityCommittedIndex, majorityVoteResult, VoteResult } from '../quorum/majority';
import { sortedIds } from '../util';
import { Progress } from './progress';

export class ProgressTracker {
  readonly voters = new Set<MemberId>();
  readonly learners = new Set<MemberId>();
  readonly progress = new Map<MemberId, Progress>();
  readonly votes = new Map<MemberId, boolean>();

  constructor(readonly maxInflight: number) {}

  confState(): ConfState {
    return { voters: sortedIds(this.voters), learners: sortedIds(this.learners) };
  }

  isSingleton(): boolean {
    return this.voters.size === 1;
  }

  /** The largest index replicated on a majority of voters. */
  committed(): Index {
    return majorityCommittedIndex(this.voters, (id) => this.progress.get(id)?.match);
  }

  /** Whether a majority of voters was heard from since the last check. */
  quorumActive(): boolean {
    const active = new Map<MemberId, boolean>();
    for (const [id, pr] of this.progress) if (!pr.isLearner) active.set(id, pr.recentActive);
    return majorityVoteResult(this.voters, active) === VoteResult.Won;
  }

  voteResultOf(acks: ReadonlyMap<MemberId, boolean>): VoteResult {
    return majorityVoteResult(this.voters, acks);
  }

  resetVotes(): void {
    this.votes.clear();
  }

  /** Records id's vote; a repeated answer keeps the first one. */
  recordVote(id: MemberId, granted: boolean): void {
    if (!this.votes.has(id)) this.votes.set(id, granted);
  }

  tallyVotes(): { granted: number; rejected: number; result: VoteResult } {
    let granted = 0;
    let rejected = 0;
    for (const id of this.voters) {
      const v = this.votes.get(id);
      if (v === true) granted++;
      else if (v === false) rejected++;
    }
    return { granted, rejected, result: majorityVoteResult(this.voters, this.votes) };
  }

  /**
   * Applies one single-step change. Idempotent: adding a present voter or
   * removing an absent member changes nothing (bootstrap entries are applied
   * once at bootstrap and again when the driver applies them).
   * `lastIndex` seeds a new member's progress: it is probed from there.
   */
  applyConfChange(cc: ConfChange, lastIndex: Index): void {
    const id = cc.nodeId;
    switch (cc.type) {
      case ConfChangeType.AddNode: {
        if (this.voters.has(id)) return;
        this.voters.add(id);
        if (this.learners.delete(id)) {
          this.progress.get(id)!.isLearner = false; // promotion keeps what we know of its log
        } else {
          this.initProgress(id, lastIndex, false);
        }
        return;
      }
      case ConfChangeType.AddLearnerNode: {
        if (this.learners.has(id)) return;
        this.learners.add(id);
        if (this.voters.delete(id)) {
          this.progress.get(id)!.isLearner = true; // demotion
        } else {
          this.initProgress(id, lastIndex, true);
        }
        return;
      }
      case ConfChangeType.RemoveNode:
        this.voters.delete(id);
        this.learners.delete(id);
        this.progress.delete(id);
        this.votes.delete(id);
        return;
      case ConfChangeType.UpdateNode:
        return; // attributes only: nothing for Raft to do
    }
  }

  private initProgress(id: MemberId, lastIndex: Index, isLearner: boolean): void {
    const pr = new Progress(Math.max(lastIndex, 1), this.maxInflight, isLearner);
    // Count a new member as active so that adding it does not make CheckQuorum
    // step the leader down before the member had a chance to answer.
    pr.recentActive = true;
    this.progress.set(id, pr);
  }
}

// What the leader knows about one follower's log (etcd-io/raft tracker/progress.go).
//
// Invariants:
// 1. match < next: entries ≤ match are known to be on the follower; next is the next one to send.
// 2. Probe: at most one append in flight (probeSent) until the follower answers —
//    used after a rejection or restart, while next is being found.
// 3. Replicate: next is advanced optimistically on every send; sends stop when
//    `inflights` is full.
// 4. Snapshot: nothing is sent until the snapshot at pendingSnapshot is reported.

import { ProgressState, type Index } from '../types';
import { Inflights } from './inflights';

export class Progress {
  match: Index;
  next: Index;
  state = ProgressState.Probe;
  /** In Snapshot state: the index of the snapshot being sent. */
  pendingSnapshot: Index = 0;
  /** Heard from since the last CheckQuorum round. */
  recentActive = false;
  /** In Probe state: an append was sent and not yet answered. */
  probeSent = false;
  isLearner: boolean;
  inflights: Inflights;

  constructor(next: Index, maxInflight: number, isLearner: boolean, match: Index = 0) {
    this.next = next;
    this.match = match;
    this.isLearner = isLearner;
    this.inflights = new Inflights(maxInflight);
  }

  private resetState(state: ProgressState): void {
    this.state = state;
    this.probeSent = false;
    this.pendingSnapshot = 0;
    this.inflights.reset();
  }

  becomeProbe(): void {
    // After a snapshot the follower has at least pendingSnapshot: probe right after it.
    if (this.state === ProgressState.Snapshot) {
      const pending = this.pendingSnapshot;
      this.resetState(ProgressState.Probe);
      this.next = Math.max(this.match + 1, pending + 1);
    } else {
      this.resetState(ProgressState.Probe);
      this.next = this.match + 1;
    }
  }

  becomeReplicate(): void {
    this.resetState(ProgressState.Replicate);
    this.next = this.match + 1;
  }

  becomeSnapshot(snapshotIndex: Index): void {
    this.resetState(ProgressState.Snapshot);
    this.pendingSnapshot = snapshotIndex;
  }

  /** An acknowledgement of n; false if it was stale (n ≤ match). */
  maybeUpdate(n: Index): boolean {
    let updated = false;
    if (this.match < n) {
      this.match = n;
      updated = true;
      this.probeSent = false;
    }
    this.next = Math.max(this.next, n + 1);
    return updated;
  }

  /** Replicate state: entries up to n were just sent. */
  optimisticUpdate(n: Index): void {
    this.next = n + 1;
  }

  /**
   * A rejection of the append at index `rejected`; `matchHint` is where the
   * follower suggests probing next. Returns false when the rejection is stale
   * (it answers an older append than the one we are waiting on).
   */
  maybeDecrTo(rejected: Index, matchHint: Index): boolean {
    if (this.state === ProgressState.Replicate) {
      if (rejected <= this.match) return false;
      this.next = this.match + 1;
      return true;
    }
    if (this.next - 1 !== rejected) return false;
    this.next = Math.max(Math.min(rejected, matchHint + 1), 1);
    this.probeSent = false;
    return true;
  }

  isPaused(): boolean {
    switch (this.state) {
      case ProgressState.Probe:
        return this.probeSent;
      case ProgressState.Replicate:
        return this.inflights.full();
      case ProgressState.Snapshot:
        return true;
    }
  }

  describe(): string {
    const st = ProgressState[this.state];
    const extra = this.state === ProgressState.Snapshot ? ` pendingSnap=${this.pendingSnapshot}` : '';
    return `${st} match=${this.match} next=${this.next}${this.isLearner ? ' learner' : ''}${extra}`;
  }
}

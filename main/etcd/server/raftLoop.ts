// The one place that drives Raft (etcd: etcdserver/raft.go raftNode.start
// plus server.go applyAll), in the order the Ready contract demands (what an
// applied entry does is applier.ts):
//   persist (snapshot, entries, hard state; one fsync per Ready) → send →
//   apply (snapshot, then committed entries) → advance → maybe snapshot,
// except that already-committed entries are applied during the fsync (below).
// Ready cycles never overlap: proposals and messages that arrive while a
// cycle awaits its fsync only change Raft's in-memory state, and the next
// Ready carries all of them in one batch — that batching is where write
// throughput comes from.
//
// The leader sends its messages before its own fsync (etcd does the same,
// Raft thesis §10.2.1): followers persist in parallel with it, and an entry
// still commits only once a quorum has it durable.

import { ErrCompacted } from '../raft/errors';
import {
  EntryType,
  type ConfChange,
  MessageType,
  StateType,
  type HardState,
  type Index,
  type MemberId,
  type Message,
  type ReadState,
  type Snapshot,
  type SoftState,
} from '../raft/types';
import type { RaftNode } from '../raft/config';
import type { MemoryStorage } from '../raft/memoryStorage';
import type { Snapshotter, Wal } from '../wal/index';
import { Applier, type ApplierHooks, type PeerMembership } from './applier';
import { idToHex } from './ids';
import type { LearnerProgress } from './membershipChanges';
import type { MemberMetrics } from './metrics';
import type { StateMachine } from './stateMachine';

/** Old log entries kept after a snapshot so slow followers catch up from the log (etcd: 5000). */
export const SNAPSHOT_CATCH_UP_ENTRIES = 5000;
/** Snapshot files kept on disk (etcd --max-snapshots). */
const MAX_SNAPSHOT_FILES = 5;
/** Ready cycles per turn before yielding to the event loop. */
const MAX_CYCLES_PER_TURN = 64;

export interface PeerLinks extends PeerMembership {
  send(msgs: readonly Message[]): void;
  /** True while a stream to the peer is up; without it every peer counts as reachable. */
  isConnected?(id: MemberId): boolean;
}

export interface RaftLoopHooks extends ApplierHooks {
  onLeaderChange(previous: MemberId, soft: SoftState): void;
  onReadStates(states: ReadState[]): void;
  onHardState(hs: HardState): void;
  onApplied(index: Index): void;
  /** A persistence failure: the member cannot go on safely. */
  onFatal(err: Error): void;
}

export interface RaftLoopOptions {
  localId: MemberId;
  node: RaftNode;
  storage: MemoryStorage;
  wal: Wal;
  snapshotter: Snapshotter;
  peers: PeerLinks;
  sm: StateMachine;
  snapshotCount: number;
  snapshotCatchUpEntries: number;
  metrics: MemberMetrics;
  log(line: string): void;
  hooks: RaftLoopHooks;
}

export class RaftLoop {
  snapshotIndex: Index;
  committed: Index;
  lead: MemberId = 0n;
  isLeader = false;
  private readonly applier: Applier;
  private running?: Promise<void>;
  private scheduled = false;
  private stopped = false;
  private appliedWaiters: { index: Index; resolve: () => void }[] = [];

  constructor(private readonly o: RaftLoopOptions) {
    const snap = o.storage.snapshot();
    this.applier = new Applier(o, snap);
    this.snapshotIndex = snap.metadata.index;
    this.committed = o.storage.initialState().hardState.commit;
  }

  /** The last entry applied to the state machine. */
  get applied(): Index {
    return this.applier.applied;
  }

  /** Schedules a Ready cycle on a later turn, so that work arriving meanwhile joins it. */
  kick(): void {
    if (this.running || this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.running || this.stopped) return;
      // Cleared in a .finally (always a later microtask), never inside run(), which may finish synchronously.
      this.running = this.run().finally(() => {
        this.running = undefined;
        if (!this.stopped && this.o.node.hasReady()) this.kick();
      });
    });
  }

  tick(): void {
    if (this.stopped) return;
    this.o.node.tick();
    this.kick();
  }

  /** Peer messages are only state changes; the next Ready picks up their effects. */
  step(m: Message): void {
    if (this.stopped) return;
    try {
      this.o.node.step(m);
    } catch {
      // A message from a removed or unknown member, or a local-only type: dropped, as etcd drops it.
      return;
    }
    this.kick();
  }

  /** Throws ErrProposalDropped when Raft cannot take it now (no leader, transfer in progress). */
  propose(data: Uint8Array): void {
    if (this.forwardToLeader(MessageType.Prop, data)) return;
    this.o.node.propose(data);
    this.kick();
  }

  /** A membership change (membershipChanges.ts); Raft forwards it to the leader. Throws ErrProposalDropped without one. */
  proposeConfChange(cc: ConfChange): void {
    if (this.stopped) return;
    this.o.node.proposeConfChange(cc);
    this.kick();
  }

  readIndex(ctx: Uint8Array): void {
    if (this.stopped) return;
    if (this.forwardToLeader(MessageType.ReadIndex, ctx)) return;
    this.o.node.readIndex(ctx);
    this.kick();
  }

  /**
   * A follower's raft would only queue a MsgProp / MsgReadIndex for the leader
   * and hand it out with the next Ready, after the fsync in progress. Neither
   * depends on anything this member persists, so it goes to the leader now,
   * exactly as stepFollower would address it (term 0, one entry). Like any
   * forwarded proposal it is best effort: the proposer's timeout covers a loss.
   */
  private forwardToLeader(type: MessageType.Prop | MessageType.ReadIndex, data: Uint8Array): boolean {
    const lead = this.lead;
    if (this.isLeader || lead === 0n || lead === this.o.localId) return false;
    this.o.peers.send([
      {
        type,
        to: lead,
        from: this.o.localId,
        term: 0,
        logTerm: 0,
        index: 0,
        entries: [{ term: 0, index: 0, type: EntryType.Normal, data }],
        commit: 0,
        reject: false,
        rejectHint: 0,
      },
    ]);
    return true;
  }

  /**
   * etcd's graceful-stop courtesy: a leader hands leadership to its most
   * up-to-date voter before stopping, so the cluster does not sit out an
   * election timeout. Resolves true once another member leads.
   * Like etcd's longestConnected, only a voter we reach is a candidate; when
   * its stream drops (it is stopping too, as under `pilothouse up`'s stop)
   * the wait ends: no one is left to hand over to, and waiting out the
   * timeout would only delay the stop.
   */
  async transferLeadership(timeoutMs: number): Promise<boolean> {
    if (!this.isLeader || this.stopped) return false;
    const { node, localId, peers } = this.o;
    const reachable = (id: MemberId) => peers.isConnected?.(id) ?? true;
    let best: { id: MemberId; match: Index } | undefined;
    for (const [id, p] of node.status().progress) {
      if (id === localId || p.isLearner || !reachable(id)) continue;
      if (!best || p.match > best.match) best = { id, match: p.match };
    }
    if (!best) return false;
    this.o.log(`leadership transfer starting: ${idToHex(localId)} -> ${idToHex(best.id)}`);
    node.transferLeader(best.id);
    this.kick();
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && !this.stopped) {
      if (this.lead !== 0n && this.lead !== localId) return true;
      if (!reachable(best.id)) return false;
      await new Promise((r) => setTimeout(r, 10));
    }
    return false;
  }

  /** Asks Raft to hand leadership to `target` (etcd MoveLeader); the caller watches `lead`. */
  transferLeaderTo(target: MemberId): void {
    if (this.stopped) return;
    this.o.log(`leadership transfer starting: ${idToHex(this.o.localId)} -> ${idToHex(target)}`);
    this.o.node.transferLeader(target);
    this.kick();
  }

  /** The leader's match index per member, for a learner promote (empty on a follower). */
  learnerProgress(): LearnerProgress {
    const match = new Map<MemberId, Index>();
    for (const [id, p] of this.o.node.status().progress) match.set(id, p.match);
    return { leaderId: this.o.localId, match };
  }

  /** Resolves once entries up to `index` are applied (or the loop stops). */
  appliedAtLeast(index: Index): Promise<void> {
    if (this.applied >= index || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.appliedWaiters.push({ index, resolve }));
  }

  /** Waits for the cycle in progress, then runs no more. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    for (const w of this.appliedWaiters.splice(0)) w.resolve();
  }

  private notifyApplied(): void {
    this.o.hooks.onApplied(this.applied);
    if (this.appliedWaiters.length === 0) return;
    for (const w of this.appliedWaiters) if (w.index <= this.applied) w.resolve();
    this.appliedWaiters = this.appliedWaiters.filter((w) => w.index > this.applied);
  }

  /** Replaces the state machine by a snapshot's (at start, or a follower far behind). */
  restoreSnapshot(snap: Snapshot): void {
    this.applier.restore(snap);
    this.snapshotIndex = snap.metadata.index;
  }

  private async run(): Promise<void> {
    try {
      for (let n = 0; n < MAX_CYCLES_PER_TURN && !this.stopped && this.o.node.hasReady(); n++) {
        await this.cycle();
      }
    } catch (err) {
      this.stopped = true;
      this.o.hooks.onFatal(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private async cycle(): Promise<void> {
    const { node, storage, wal, snapshotter, peers, hooks, metrics } = this.o;
    const rd = node.ready();
    // The commit index is known now (it only reaches the disk below); entries
    // up to it may be applied early, and status must never show applied > committed.
    if (rd.hardState) {
      this.committed = rd.hardState.commit;
      hooks.onHardState(rd.hardState);
    }
    if (rd.softState) this.noteSoftState(rd.softState);
    if (rd.readStates.length > 0) hooks.onReadStates(rd.readStates);
    if (this.isLeader) peers.send(rd.messages);

    const snap = rd.snapshot && rd.snapshot.metadata.index > 0 ? rd.snapshot : undefined;
    // Committed entries are already durable on a quorum, so they may be applied
    // (and their proposers answered) while this Ready's new entries are being
    // fsynced — etcd applies concurrently with raftNode's Save the same way, and
    // it takes one fsync off every write's latency. A snapshot or a membership
    // change waits for the disk, as etcd's apply waits on notifyc for them.
    const applyEarly = !snap && !rd.committedEntries.some((e) => e.type === EntryType.ConfChange);
    if (applyEarly && rd.committedEntries.length > 0) {
      this.applier.apply(rd.committedEntries);
      this.notifyApplied();
    }
    if (snap) {
      await snapshotter.save(snap);
      await wal.saveSnapshot({ index: snap.metadata.index, term: snap.metadata.term });
    }
    if (rd.hardState || rd.entries.length > 0) {
      const started = performance.now();
      await wal.save(rd.hardState, rd.entries, rd.mustSync);
      if (rd.mustSync) metrics.walFsyncSeconds.observe((performance.now() - started) / 1000);
    }
    if (snap) storage.applySnapshot(snap);
    if (rd.hardState) {
      storage.setHardState(rd.hardState);
      metrics.proposalsCommitted.set(this.committed);
    }
    storage.append(rd.entries);
    if (!this.isLeader) peers.send(rd.messages);

    if (snap && snap.metadata.index > this.applied) {
      this.restoreSnapshot(snap);
      this.o.log(`applied incoming snapshot at index ${snap.metadata.index}`);
    }
    if (!applyEarly && rd.committedEntries.length > 0) {
      this.applier.apply(rd.committedEntries);
      this.notifyApplied();
    }
    node.advance(rd);
    await this.maybeSnapshot();
  }

  private noteSoftState(soft: SoftState): void {
    const previous = this.lead;
    this.isLeader = soft.raftState === StateType.Leader;
    this.o.metrics.isLeader.set(this.isLeader ? 1 : 0);
    if (soft.lead === previous) return;
    this.lead = soft.lead;
    this.o.metrics.hasLeader.set(soft.lead === 0n ? 0 : 1);
    if (soft.lead !== 0n) this.o.metrics.leaderChanges.inc();
    this.o.hooks.onLeaderChange(previous, soft);
  }

  /** etcd's triggerSnapshot: every snapshotCount applied entries. */
  private async maybeSnapshot(): Promise<void> {
    if (this.applied - this.snapshotIndex <= this.o.snapshotCount) return;
    const { storage, snapshotter, wal, sm } = this.o;
    const index = this.applied;
    const snap = storage.createSnapshot(index, this.applier.confState, sm.snapshotData());
    await snapshotter.save(snap);
    await wal.saveSnapshot({ index, term: snap.metadata.term });
    this.snapshotIndex = index;
    this.o.log(`saved snapshot at index ${index}`);
    const compactIndex = index > this.o.snapshotCatchUpEntries ? index - this.o.snapshotCatchUpEntries : 1;
    try {
      storage.compact(compactIndex);
      this.o.log(`compacted raft logs at index ${compactIndex}`);
    } catch (err) {
      if (!(err instanceof ErrCompacted)) throw err;
    }
    await wal.releaseTo(index);
    await snapshotter.purge(MAX_SNAPSHOT_FILES);
  }
}

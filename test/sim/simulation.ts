// One deterministic simulation run: a seeded cluster of 3 or 5 members under
// random faults (partitions, drops, duplicates, reordering, delays, crashes
// and restarts) and random operations (proposals, reads, conf changes, leader
// transfers), with the SafetyChecker consulted after every step. Then all
// faults heal and the cluster must elect a leader and commit a proposal
// within a bounded number of ticks.

import {
  ConfChangeType,
  ErrProposalDropped,
  MessageType,
  SnapshotStatus,
  StateType,
  type MemberId,
  type Message,
  type Term,
} from '../../main/etcd/raft/index';
import { SafetyChecker, SafetyViolation, entryFacts } from './checker';
import { Network } from './network';
import { Prng } from './prng';
import { SimNode } from './simNode';
import { Trace } from './trace';

export interface SimOptions {
  seed: number;
  size: 3 | 5;
  /** Rounds of chaos; a tick happens every ROUNDS_PER_TICK rounds. */
  chaosRounds: number;
  /** Ticks allowed after healing to elect a leader and commit. */
  livenessTicks: number;
  /** Run every member with a driver that breaks the persist-before-send rule (see SimNodeOptions). */
  brokenPersistence?: boolean;
}

export interface SimResult {
  committed: number;
  leaders: number;
  rounds: number;
  /** How often each kind of message was delivered: shows which paths a run exercised. */
  delivered: Partial<Record<keyof typeof MessageType, number>>;
  readsChecked: number;
  crashes: number;
}

const ROUNDS_PER_TICK = 3;
const enc = new TextEncoder();

export class SimulationFailure extends Error {}

export function runSimulation(o: SimOptions): SimResult {
  const sim = new Simulation(o);
  try {
    return sim.run();
  } catch (err) {
    const what = err instanceof SafetyViolation ? err.message : `crash: ${(err as Error).stack ?? err}`;
    throw new SimulationFailure(
      `seed ${o.seed} (size ${o.size}) failed at round ${sim.round}: ${what}\n` +
        `replay: SIM_SEED=${o.seed} npx vitest run test/sim\n` +
        `members:\n${sim.describeMembers()}\n` +
        `last events:\n${sim.trace.describe()}`,
    );
  }
}

class Simulation {
  readonly rng: Prng;
  readonly trace = new Trace(50);
  readonly checker = new SafetyChecker();
  readonly net: Network;
  readonly nodes = new Map<MemberId, SimNode>();
  round = 0;
  private nextId: bigint;
  private proposals = 0;
  private confChanges = 0;
  private leadersSeen = new Set<Term>();
  private readonly pendingReads = new Map<string, number>();
  private readonly delivered: SimResult['delivered'] = {};
  private readsChecked = 0;
  private crashes = 0;
  private readonly checkQuorum: boolean;
  private readonly preVote: boolean;
  private readonly asyncDisk: boolean;

  constructor(private readonly o: SimOptions) {
    this.rng = new Prng(o.seed);
    this.checkQuorum = this.rng.chance(0.5);
    this.preVote = this.rng.chance(0.5);
    this.asyncDisk = this.rng.chance(0.5);
    this.net = new Network(this.rng, {
      dropRate: this.rng.pick([0, 0.02, 0.1]),
      duplicateRate: this.rng.pick([0, 0.02]),
      maxDelay: this.rng.pick([1, 3, 6]),
    }, (m) => {
      // Like etcd's transport: a snapshot that could not be delivered is
      // reported failed, and a peer whose stream broke is reported unreachable.
      if (m.type === MessageType.Snap) this.reportSnapshot(m, SnapshotStatus.Failure);
      else if (m.type === MessageType.App && this.rng.chance(0.5)) this.reportUnreachable(m);
    });
    const ids = Array.from({ length: o.size }, (_, i) => BigInt(i + 1));
    this.nextId = BigInt(o.size + 1);
    for (const id of ids) {
      const n = this.newNode(id);
      n.bootstrap(ids.map((p) => ({ id: p })));
    }
    this.trace.note(0, `start size=${o.size} checkQuorum=${this.checkQuorum} preVote=${this.preVote} asyncDisk=${this.asyncDisk} net=${JSON.stringify(this.net.faults)}`);
  }

  /** One line per member: role, term, log and apply positions. */
  describeMembers(): string {
    return [...this.nodes.values()]
      .map((n) => {
        if (n.removed) return `  n${n.id} removed`;
        if (!n.node) return `  n${n.id} down (disk: last=${n.disk.lastIndex()} snap=${n.disk.snapshot().metadata.index})`;
        const r = n.node.raft;
        const l = r.raftLog;
        return `  n${n.id} ${StateType[r.state]} term=${r.term} lead=${r.lead} last=${l.lastTerm()}/${l.lastIndex()} commit=${l.committed} applied=${n.appliedIndex}${r.isLearner ? ' learner' : ''}`;
      })
      .join('\n');
  }

  private newNode(id: MemberId): SimNode {
    const n = new SimNode(
      id,
      {
        checkQuorum: this.checkQuorum,
        preVote: this.preVote,
        random: this.rng.fork(),
        snapshotInterval: 10 + this.rng.int(30),
        compactionLag: this.rng.int(8),
        brokenPersistence: this.o.brokenPersistence,
        asyncDisk: this.asyncDisk,
      },
      {
        persisted: (node, e, prevTerm) => this.checker.observePersisted(node.id, entryFacts(e), prevTerm),
        applied: (node, e) => this.checker.observeApplied(node.id, entryFacts(e), this.maxTerm()),
        read: (node, rs) => {
          const key = `${node.id}:${new TextDecoder().decode(rs.requestCtx)}`;
          const required = this.pendingReads.get(key);
          if (required !== undefined) {
            this.checker.observeRead(node.id, required, rs.index);
            this.readsChecked++;
          }
          this.pendingReads.delete(key);
        },
        removed: (_node, id) => this.remove(id),
      },
    );
    this.nodes.set(id, n);
    return n;
  }

  run(): SimResult {
    for (; this.round < this.o.chaosRounds; this.round++) {
      this.injectChaos();
      this.step();
    }
    this.healAll();
    const healedAt = this.round;
    const limit = healedAt + this.o.livenessTicks * ROUNDS_PER_TICK;
    let leader: SimNode | undefined;
    let target = 0;
    for (; this.round < limit; this.round++) {
      this.step();
      leader ??= this.leader();
      if (leader && !leader.alive) leader = undefined;
      if (leader && target === 0) {
        try {
          leader.node!.propose(enc.encode(`liveness=${this.round}`));
          target = leader.node!.raft.raftLog.lastIndex();
          this.trace.note(this.round, `n${leader.id} liveness proposal at ${target}`);
        } catch (err) {
          if (!(err instanceof ErrProposalDropped)) throw err;
          leader = undefined; // e.g. a transfer still in progress: look again
        }
      }
      if (target > 0 && this.checker.committedIndex >= target) {
        this.checkConvergence(limit);
        return {
          committed: this.checker.committedIndex,
          leaders: this.leadersSeen.size,
          rounds: this.round,
          delivered: this.delivered,
          readsChecked: this.readsChecked,
          crashes: this.crashes,
        };
      }
      // A proposal lost with a deposed leader: propose again through the next one.
      if (leader && leader.node?.raft.state !== StateType.Leader) {
        leader = undefined;
        target = 0;
      }
    }
    throw new SafetyViolation(
      `liveness: no leader committed a proposal within ${this.o.livenessTicks} ticks after healing (leader: ${leader?.id ?? 'none'})`,
    );
  }

  /** One round: maybe tick, deliver due messages, run every node's Ready, check. */
  private step(): void {
    if (this.round % ROUNDS_PER_TICK === 0) for (const n of this.live()) n.node!.tick();
    for (const m of this.net.due(this.round)) {
      const n = this.nodes.get(m.to);
      if (!n?.alive || n.removed) {
        if (m.type === MessageType.Snap) this.reportSnapshot(m, SnapshotStatus.Failure);
        continue;
      }
      this.trace.message(this.round, 'recv', m);
      const kind = MessageType[m.type] as keyof typeof MessageType;
      this.delivered[kind] = (this.delivered[kind] ?? 0) + 1;
      try {
        n.node!.step(m);
      } catch (err) {
        if (!(err instanceof ErrProposalDropped) && (err as Error).name !== 'ErrStepPeerNotFound') throw err;
      }
      if (m.type === MessageType.Snap) this.reportSnapshot(m, SnapshotStatus.Finish);
    }
    for (const n of this.live()) {
      const before = n.node!.raft.state;
      const msgs = n.processReady(this.round);
      if (!n.alive) continue;
      const after = n.node!.raft.state;
      if (before !== after) this.trace.note(this.round, `n${n.id} -> ${StateType[after]} term ${n.node!.raft.term}`);
      for (const m of msgs) this.net.send(this.round, m);
    }
    this.checkLeaders();
  }

  /**
   * With the faults healed and nothing more proposed, every member must reach
   * the same applied index with the same KV state — whether it got there by
   * replaying entries or by installing snapshots.
   */
  private checkConvergence(limit: number): void {
    const deadline = limit + 100 * ROUNDS_PER_TICK;
    for (; this.round < deadline; this.round++) {
      this.step();
      // Members are who the leader's configuration names (a node started for a
      // conf change that was dropped never joined).
      const conf = this.leader()?.node!.raft.prs;
      if (!conf) continue;
      const live = this.live().filter((n) => conf.voters.has(n.id) || conf.learners.has(n.id));
      const idx = live.map((n) => n.appliedIndex);
      if (idx.every((i) => i === idx[0]) && idx[0] === this.checker.committedIndex) {
        const states = live.map((n) => JSON.stringify([...n.kv].sort()));
        const diverged = live.find((_, i) => states[i] !== states[0]);
        if (diverged) throw new SafetyViolation(`convergence: n${diverged.id} and n${live[0]!.id} applied to ${idx[0]} but hold different KV states`);
        return;
      }
    }
    const where = this.live().map((n) => `n${n.id}@${n.appliedIndex}`).join(' ');
    throw new SafetyViolation(`convergence: members did not reach applied index ${this.checker.committedIndex} (${where})`);
  }

  private reportUnreachable(m: Message): void {
    const sender = this.nodes.get(m.from);
    if (!sender?.alive || sender.removed) return;
    sender.node!.reportUnreachable(m.to);
  }

  private reportSnapshot(m: Message, status: SnapshotStatus): void {
    const sender = this.nodes.get(m.from);
    if (!sender?.alive || sender.removed) return;
    this.trace.note(this.round, `n${m.from} reports snapshot to n${m.to} ${SnapshotStatus[status]}`);
    sender.node!.reportSnapshot(m.to, status);
  }

  private checkLeaders(): void {
    for (const n of this.live()) {
      const r = n.node!.raft;
      if (r.state !== StateType.Leader) continue;
      this.leadersSeen.add(r.term);
      const log = r.raftLog;
      this.checker.observeLeader(n.id, r.term, (i) => log.term(i));
    }
  }

  /** The highest term any member holds, in memory or on disk. */
  private maxTerm(): Term {
    let t = 0;
    for (const n of this.nodes.values()) {
      t = Math.max(t, n.disk.initialState().hardState.term, n.node?.raft.term ?? 0);
    }
    return t;
  }

  private live(): SimNode[] {
    const out: SimNode[] = [];
    for (const n of this.nodes.values()) if (n.alive && !n.removed) out.push(n);
    return out;
  }

  private leader(): SimNode | undefined {
    let best: SimNode | undefined;
    for (const n of this.live()) {
      const r = n.node!.raft;
      if (r.state === StateType.Leader && (!best || r.term > best.node!.raft.term)) best = n;
    }
    return best;
  }

  private injectChaos(): void {
    const rng = this.rng;
    const all = [...this.nodes.values()].filter((n) => !n.removed);
    if (rng.chance(0.3)) this.propose(rng.pick(all));
    if (rng.chance(0.04)) this.read(rng.pick(all));
    if (rng.chance(0.006)) {
      const n = rng.pick(all);
      if (n.alive && all.filter((x) => !x.alive).length < 2) {
        this.trace.note(this.round, `crash n${n.id}`);
        n.crash();
        this.crashes++;
      }
    }
    for (const n of all) {
      if (!n.alive && rng.chance(0.03)) {
        this.trace.note(this.round, `restart n${n.id}`);
        n.restart();
      }
    }
    if (rng.chance(0.006)) {
      const ids = rng.shuffle(all.map((n) => n.id));
      const cut = 1 + rng.int(ids.length - 1);
      this.net.partition([ids.slice(0, cut), ids.slice(cut)]);
      this.trace.note(this.round, `partition ${this.net.describePartition()}`);
    }
    if (this.net.isPartitioned() && rng.chance(0.01)) {
      this.net.heal();
      this.trace.note(this.round, 'heal partition');
    }
    if (rng.chance(0.004)) this.transfer();
    if (this.confChanges < 3 && rng.chance(0.004)) this.changeMembership();
  }

  private propose(n: SimNode): void {
    if (!n.alive) return;
    const key = `k${this.rng.int(10)}=v${++this.proposals}`;
    try {
      n.node!.propose(enc.encode(key));
      this.trace.note(this.round, `n${n.id} propose ${key}`);
    } catch (err) {
      if (!(err instanceof ErrProposalDropped)) throw err;
    }
  }

  private read(n: SimNode): void {
    if (!n.alive) return;
    const ctx = `read${this.round}`;
    this.pendingReads.set(`${n.id}:${ctx}`, this.checker.committedIndex);
    n.node!.readIndex(enc.encode(ctx));
  }

  private transfer(): void {
    const l = this.leader();
    if (!l) return;
    const voters = l.node!.raft.prs.voters;
    const to = this.rng.pick([...voters]);
    this.trace.note(this.round, `n${l.id} transfer leadership to n${to}`);
    l.node!.transferLeader(to);
  }

  /** Adds a learner, promotes a learner, or removes a voter (never below 3 voters). */
  private changeMembership(): void {
    const l = this.leader();
    if (!l) return;
    const r = l.node!.raft;
    const learners = [...r.prs.learners];
    const voters = [...r.prs.voters];
    let cc;
    if (learners.length) cc = { type: ConfChangeType.AddNode, nodeId: learners[0]! };
    else if (voters.length > 3 && this.rng.chance(0.5)) cc = { type: ConfChangeType.RemoveNode, nodeId: this.rng.pick(voters) };
    else {
      const id = this.nextId++;
      this.newNode(id).startEmpty();
      cc = { type: ConfChangeType.AddLearnerNode, nodeId: id };
    }
    try {
      l.node!.proposeConfChange({ ...cc, context: new Uint8Array(0) });
      this.confChanges++;
      this.trace.note(this.round, `n${l.id} propose ${ConfChangeType[cc.type]} n${cc.nodeId}`);
    } catch (err) {
      if (!(err instanceof ErrProposalDropped)) throw err;
    }
  }

  /** Once any member applies the removal of `id`, that member shuts down (as an etcd member does). */
  private remove(id: MemberId): void {
    const n = this.nodes.get(id);
    if (!n || n.removed) return;
    n.removed = true;
    this.trace.note(this.round, `n${id} removed from the cluster, shut down`);
  }

  private healAll(): void {
    this.net.heal();
    this.net.faults = { dropRate: 0, duplicateRate: 0, maxDelay: 2 };
    for (const n of this.nodes.values()) if (!n.alive && !n.removed) n.restart();
    this.trace.note(this.round, 'heal everything');
  }
}

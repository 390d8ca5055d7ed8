// The Raft InteractionEnv (etcd-io/raft rafttest): a set of RawNodes with
// MemoryStorage and one message queue that a script drives step by step —
// each Ready is handled, and each message delivered, only when a command says
// so, and everything that happens is written to the trace.

import {
  EntryType,
  MemoryStorage,
  RawNode,
  StateType,
  decodeConfChange,
  type Config,
  type Logger,
  type MemberId,
  type Message,
  type Snapshot,
} from '../../../../../main/etcd/raft/index';
import { describeMessage, describeReady, indent } from './describe';

export interface EnvNode {
  id: MemberId;
  node: RawNode;
  storage: MemoryStorage;
  config: Config;
  /** Data the node has applied, newest last ("snapshot" entries stand for a restored image). */
  applied: string[];
}

export class InteractionEnv {
  readonly nodes = new Map<MemberId, EnvNode>();
  /** Messages sent but not yet delivered. */
  messages: Message[] = [];
  /** Nodes whose traffic is dropped on delivery. */
  readonly isolated = new Set<MemberId>();
  private out: string[] = [];
  logLevel: 'none' | 'info' | 'debug' = 'info';

  /** Trace output (Readies, deliveries, log lines): silenced by log-level none, as in rafttest, to keep a script's setup short. */
  write(s: string): void {
    if (this.logLevel !== 'none') this.out.push(s);
  }

  /** Output a command asked for (a query's answer, an error): written at every log level. */
  show(s: string): void {
    this.out.push(s);
  }

  /** Returns and clears the trace collected for the current command. */
  flush(): string {
    const s = this.out.join('\n');
    this.out = [];
    return s === '' ? 'ok' : s;
  }

  get(id: MemberId): EnvNode {
    const n = this.nodes.get(id);
    if (!n) throw new Error(`no node ${id}`);
    return n;
  }

  sortedIds(): MemberId[] {
    return [...this.nodes.keys()].sort((a, b) => (a < b ? -1 : 1));
  }

  private logger(): Logger {
    const line = (lvl: string) => (msg: string) => {
      if (this.logLevel === 'none' || (lvl === 'DEBUG' && this.logLevel !== 'debug')) return;
      this.write(`${lvl} ${msg}`);
    };
    return { debug: line('DEBUG'), info: line('INFO'), warn: line('WARN') };
  }

  addNode(id: MemberId, snap: Snapshot | undefined, over: Partial<Config>): void {
    const storage = new MemoryStorage();
    if (snap) storage.applySnapshot(snap);
    const config: Config = {
      id,
      electionTick: 3,
      heartbeatTick: 1,
      storage,
      applied: snap?.metadata.index,
      maxSizePerMsg: Infinity,
      maxInflightMsgs: 256,
      checkQuorum: false,
      preVote: false,
      // The randomized election timeout is always exactly electionTick, so tick-election is deterministic.
      random: () => 0,
      logger: this.logger(),
      ...over,
    };
    this.nodes.set(id, { id, node: new RawNode(config), storage, config, applied: [] });
  }

  /** Handles one Ready of node id (persist, apply, advance); its messages go to the queue. */
  processReady(id: MemberId): void {
    const n = this.get(id);
    this.write(`> ${id} handling Ready`);
    if (!n.node.hasReady()) {
      this.write(indent('<empty Ready>'));
      return;
    }
    const rd = n.node.ready();
    this.write(indent(describeReady(rd)));
    if (rd.snapshot) {
      n.storage.applySnapshot(rd.snapshot);
      n.applied.push(`snapshot@${rd.snapshot.metadata.index}`);
    }
    n.storage.append(rd.entries);
    if (rd.hardState) n.storage.setHardState(rd.hardState);
    for (const e of rd.committedEntries) {
      if (e.type === EntryType.ConfChange) {
        n.node.applyConfChange(decodeConfChange(e.data));
      } else if (e.data.length) n.applied.push(new TextDecoder().decode(e.data));
    }
    this.messages.push(...rd.messages);
    n.node.advance(rd);
  }

  /** Delivers queued messages addressed to id (all of them when drop) in order; returns how many. */
  deliver(id: MemberId, drop: boolean): number {
    const mine = this.messages.filter((m) => m.to === id);
    if (mine.length === 0) return 0;
    this.messages = this.messages.filter((m) => m.to !== id);
    const n = this.nodes.get(id);
    this.write(`> ${id} ${drop ? 'dropping' : 'receiving'} messages`);
    for (const m of mine) {
      const lost = drop || !n || this.isolated.has(m.from) || this.isolated.has(m.to);
      this.write(indent(`${describeMessage(m)}${lost && !drop ? ' (dropped)' : ''}`));
      if (lost) continue;
      try {
        n.node.step(m);
      } catch (e) {
        this.write(indent(`error: ${(e as Error).message || (e as Error).constructor.name}`));
      }
    }
    return mine.length;
  }

  /** Alternates Ready handling and delivery among ids until neither has anything to do. */
  stabilize(ids: MemberId[]): void {
    for (let round = 0; round < 1000; round++) {
      let done = true;
      for (const id of ids) {
        if (this.get(id).node.hasReady()) {
          done = false;
          this.processReady(id);
        }
      }
      for (const id of ids) if (this.deliver(id, false) > 0) done = false;
      if (done) return;
    }
    throw new Error('did not stabilize');
  }

  raftState(): string {
    return this.sortedIds()
      .map((id) => {
        const r = this.get(id).node.raft;
        const role = r.prs.progress.get(id)?.isLearner ? 'Learner' : r.prs.voters.has(id) ? 'Voter' : 'NonVoter';
        return `${id}: State${StateType[r.state]} (${role}) Term:${r.term} Lead:${r.lead}`;
      })
      .join('\n');
  }
}

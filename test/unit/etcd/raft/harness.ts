// A tiny in-process cluster for the raft unit tests: each node has a
// MemoryStorage, and `stabilize` runs every node's Ready loop (persist, send,
// apply, advance) until no node has anything left to do. Messages can be
// filtered to cut links.

import {
  EntryType,
  MemoryStorage,
  RawNode,
  decodeConfChange,
  type Config,
  type Entry,
  type MemberId,
  type Message,
  type ReadState,
} from '../../../../main/etcd/raft/index';

export function seededRandom(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

export interface TestNode {
  id: MemberId;
  node: RawNode;
  storage: MemoryStorage;
  applied: Entry[];
  readStates: ReadState[];
}

export function newConfig(id: MemberId, storage: MemoryStorage, over: Partial<Config> = {}): Config {
  return {
    id,
    electionTick: 10,
    heartbeatTick: 1,
    storage,
    maxSizePerMsg: 1024 * 1024,
    maxInflightMsgs: 256,
    checkQuorum: false,
    preVote: false,
    random: seededRandom(Number(id)),
    ...over,
  };
}

export class Cluster {
  readonly nodes = new Map<MemberId, TestNode>();
  /** Returns false to drop a message. */
  filter: (m: Message) => boolean = () => true;
  /** Every message delivered, in order. */
  readonly delivered: Message[] = [];

  constructor(ids: MemberId[], over: Partial<Config> = {}) {
    for (const id of ids) {
      const storage = new MemoryStorage();
      const node = new RawNode(newConfig(id, storage, over));
      node.bootstrap(ids.map((p) => ({ id: p })));
      this.nodes.set(id, { id, node, storage, applied: [], readStates: [] });
    }
  }

  get(id: MemberId): TestNode {
    return this.nodes.get(id)!;
  }

  isolate(id: MemberId): void {
    this.filter = (m) => m.from !== id && m.to !== id;
  }

  heal(): void {
    this.filter = () => true;
  }

  /** Runs one Ready round on a node; returns its outgoing messages (already persisted-before-send). */
  private handleReady(n: TestNode): Message[] {
    if (!n.node.hasReady()) return [];
    const rd = n.node.ready();
    if (rd.snapshot) n.storage.applySnapshot(rd.snapshot);
    n.storage.append(rd.entries);
    if (rd.hardState) n.storage.setHardState(rd.hardState);
    for (const e of rd.committedEntries) {
      n.applied.push(e);
      if (e.type === EntryType.ConfChange) n.node.applyConfChange(decodeConfChange(e.data));
    }
    n.readStates.push(...rd.readStates);
    n.node.advance(rd);
    return rd.messages;
  }

  /** Delivers messages until quiet (bounded). */
  stabilize(maxRounds = 200): void {
    for (let round = 0; round < maxRounds; round++) {
      // A node may need several Readies (committed entries come out in size-limited batches).
      const out: Message[] = [];
      let busy = false;
      for (const n of this.nodes.values()) {
        busy ||= n.node.hasReady();
        out.push(...this.handleReady(n));
      }
      if (!busy) return;
      for (const m of out) {
        if (!this.filter(m)) continue;
        const to = this.nodes.get(m.to);
        if (!to) continue;
        this.delivered.push(m);
        try {
          to.node.step(m);
        } catch {
          // dropped proposals forwarded to a non-leader, peer not found: like the network losing it
        }
      }
    }
    throw new Error('cluster did not stabilize');
  }

  tickAll(times: number): void {
    for (let i = 0; i < times; i++) {
      for (const n of this.nodes.values()) n.node.tick();
      this.stabilize();
    }
  }

  elect(id: MemberId): void {
    this.stabilize(); // bootstrap conf changes must be applied before anyone can campaign
    this.get(id).node.campaign();
    this.stabilize();
  }

  leaders(): MemberId[] {
    return [...this.nodes.values()].filter((n) => n.node.status().softState.raftState === 2).map((n) => n.id);
  }

  /** Data of applied Normal entries, as strings. */
  appliedData(id: MemberId): string[] {
    return this.get(id)
      .applied.filter((e) => e.type === EntryType.Normal && e.data.length > 0)
      .map((e) => new TextDecoder().decode(e.data));
  }
}

export const enc = (s: string) => new TextEncoder().encode(s);

// One simulated member: a disk (what the driver made durable — it survives a
// crash) and volatile state (the RawNode, the MemoryStorage it reads, the KV
// state machine) that a crash loses; a restart rebuilds the MemoryStorage from
// the disk, as the member server rebuilds it from its WAL. The driver follows
// rawNode.ts's contract exactly: persist snapshot, entries, hard state; then
// send; then apply; then advance.

import {
  ConfChangeType,
  EntryType,
  MemoryStorage,
  RawNode,
  StateType,
  decodeConfChange,
  type Config,
  type ConfState,
  type Entry,
  type MemberId,
  type Message,
  type Peer,
  type ReadState,
  type Ready,
} from '../../main/etcd/raft/index';

export interface SimNodeOptions {
  checkQuorum: boolean;
  preVote: boolean;
  random: (n: number) => number;
  /** Take a snapshot and compact every this many applied entries. */
  snapshotInterval: number;
  /** Entries kept behind the snapshot for slow followers. */
  compactionLag: number;
  /**
   * A deliberately broken driver for testing the checker end to end: it sends
   * a Ready's messages before that Ready's entries and hard state reach the
   * disk (they are written with the next Ready), so a crash loses state that
   * peers were already told about — a vote, an acknowledged entry.
   */
  brokenPersistence?: boolean;
  /**
   * The disk write of a Ready takes 1-3 rounds (a crash in between loses it),
   * and a leader sends its messages before the write, as the member server
   * does (rawNode.ts allows this for leaders only).
   */
  asyncDisk?: boolean;
}

/** What the driver reports back to the simulation. */
export interface DriverHooks {
  persisted(node: SimNode, e: Entry, prevTerm: number | undefined): void;
  applied(node: SimNode, e: Entry): void;
  read(node: SimNode, rs: ReadState): void;
  removed(node: SimNode, id: MemberId): void;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

export class SimNode {
  storage = new MemoryStorage();
  readonly disk = new MemoryStorage();
  node: RawNode | undefined;
  kv = new Map<string, string>();
  appliedIndex = 0;
  confState: ConfState = { voters: [], learners: [] };
  removed = false;
  /** brokenPersistence only: the last Ready's writes, not yet on disk. */
  private deferred: (() => void) | undefined;
  /** asyncDisk only: a Ready whose disk write is in flight, and whether its messages already left. */
  private writing: { rd: Ready; sent: boolean; doneAt: number } | undefined;

  constructor(
    readonly id: MemberId,
    private readonly opts: SimNodeOptions,
    private readonly hooks: DriverHooks,
  ) {}

  get alive(): boolean {
    return this.node !== undefined;
  }

  private config(applied: number): Config {
    return {
      id: this.id,
      electionTick: 10,
      heartbeatTick: 1,
      storage: this.storage,
      applied,
      maxSizePerMsg: 256,
      maxInflightMsgs: 8,
      // Small, so that a leader cut off from its quorum starts dropping proposals.
      maxUncommittedEntriesSize: 1024,
      checkQuorum: this.opts.checkQuorum,
      preVote: this.opts.preVote,
      random: this.opts.random,
    };
  }

  /** A founding member of a new cluster. */
  bootstrap(peers: Peer[]): void {
    this.node = new RawNode(this.config(0));
    this.node.bootstrap(peers);
  }

  /** A member added later: starts empty and learns everything from the leader. */
  startEmpty(): void {
    this.node = new RawNode(this.config(0));
  }

  crash(): void {
    this.deferred = undefined;
    this.writing = undefined;
    this.node = undefined;
    this.storage = new MemoryStorage();
    this.kv = new Map();
    this.appliedIndex = 0;
  }

  /** Restarts from what was persisted: the state machine from the snapshot, Raft from storage. */
  restart(): void {
    this.storage = copyStorage(this.disk);
    const snap = this.storage.snapshot();
    this.restoreStateMachine(snap.data, snap.metadata.index, snap.metadata.confState);
    this.node = new RawNode(this.config(snap.metadata.index));
  }

  /** Runs one Ready (or, with asyncDisk, one half of it); returns the messages to send now. */
  processReady(round: number): Message[] {
    const n = this.node;
    if (!n) return [];
    if (this.writing) {
      if (round < this.writing.doneAt) return [];
      const { rd, sent } = this.writing;
      this.writing = undefined;
      const msgs = this.finishReady(n, rd);
      return sent ? [] : msgs;
    }
    if (!n.hasReady()) return [];
    const rd = n.ready();
    if (this.opts.asyncDisk) {
      const leader = n.raft.state === StateType.Leader;
      this.writing = { rd, sent: leader, doneAt: round + 1 + this.opts.random(3) };
      return leader ? rd.messages : [];
    }
    return this.finishReady(n, rd);
  }

  /** Persist, then (returning the messages) apply and advance. */
  private finishReady(n: RawNode, rd: Ready): Message[] {
    // 1. persist: the disk first, then the MemoryStorage the core reads.
    const toDisk = () => {
      if (rd.snapshot) this.disk.applySnapshot(rd.snapshot);
      if (rd.entries.length) {
        this.disk.append(rd.entries);
        for (const e of rd.entries) this.hooks.persisted(this, e, termAt(this.disk, e.index - 1));
      }
      if (rd.hardState) this.disk.setHardState(rd.hardState);
    };
    if (this.opts.brokenPersistence) {
      this.deferred?.();
      this.deferred = toDisk;
    } else {
      toDisk();
    }
    if (rd.snapshot) this.storage.applySnapshot(rd.snapshot);
    this.storage.append(rd.entries);
    if (rd.hardState) this.storage.setHardState(rd.hardState);
    // 2. the messages may leave now (the caller sends them)
    // 3. apply
    if (rd.snapshot) {
      const m = rd.snapshot.metadata;
      this.restoreStateMachine(rd.snapshot.data, m.index, m.confState);
    }
    for (const e of rd.committedEntries) {
      if (this.removed) break;
      this.apply(n, e);
    }
    for (const rs of rd.readStates) this.hooks.read(this, rs);
    n.advance(rd);
    this.maybeSnapshot();
    return rd.messages;
  }

  private apply(n: RawNode, e: Entry): void {
    if (e.index !== this.appliedIndex + 1) throw new Error(`node ${this.id} applies ${e.index} after ${this.appliedIndex}`);
    this.appliedIndex = e.index;
    this.hooks.applied(this, e);
    if (e.type === EntryType.ConfChange) {
      const cc = decodeConfChange(e.data);
      this.confState = n.applyConfChange(cc);
      if (cc.type === ConfChangeType.RemoveNode) this.hooks.removed(this, cc.nodeId);
    } else if (e.data.length) {
      const [k, v] = decoder.decode(e.data).split('=');
      this.kv.set(k!, v!);
    }
  }

  private maybeSnapshot(): void {
    const snapIndex = this.storage.snapshot().metadata.index;
    if (this.appliedIndex - snapIndex < this.opts.snapshotInterval) return;
    const data = encoder.encode(JSON.stringify([...this.kv]));
    for (const s of [this.storage, this.disk]) {
      // (A broken driver's disk may lag behind what was applied.)
      if (this.appliedIndex > s.lastIndex() || this.appliedIndex <= s.snapshot().metadata.index) continue;
      s.createSnapshot(this.appliedIndex, this.confState, data);
      const compactTo = this.appliedIndex - this.opts.compactionLag;
      if (compactTo > s.firstIndex()) s.compact(compactTo);
    }
  }

  private restoreStateMachine(data: Uint8Array, index: number, cs: ConfState): void {
    this.kv = data.length ? new Map(JSON.parse(decoder.decode(data)) as [string, string][]) : new Map();
    this.appliedIndex = index;
    this.confState = cs;
  }
}

function termAt(s: MemoryStorage, i: number): number | undefined {
  try {
    return s.term(i);
  } catch {
    return undefined;
  }
}

/** A fresh MemoryStorage with the same snapshot, entries and hard state (a restart reading its WAL). */
function copyStorage(from: MemoryStorage): MemoryStorage {
  const to = new MemoryStorage();
  const snap = from.snapshot();
  if (snap.metadata.index > 0) to.applySnapshot(snap);
  if (from.lastIndex() >= from.firstIndex()) to.append(from.entries(from.firstIndex(), from.lastIndex() + 1, Infinity));
  to.setHardState(from.initialState().hardState);
  return to;
}

import type {
  ConfChange,
  ConfState,
  Entry,
  HardState,
  Index,
  Logger,
  MemberId,
  Message,
  RandomInt,
  ReadOnlyOption,
  Ready,
  Snapshot,
  SnapshotStatus,
  Status,
  Term,
} from './types';

/**
 * The stable part of the log, owned by the driver (the member server keeps
 * it in a MemoryStorage backed by the WAL). Read synchronously by the core.
 * Errors are thrown as the classes in errors.ts (ErrCompacted, ErrUnavailable,
 * ErrSnapshotTemporarilyUnavailable).
 */
export interface Storage {
  initialState(): { hardState: HardState; confState: ConfState };
  /** Entries in [lo, hi), at most maxSize bytes of data (always at least one). */
  entries(lo: Index, hi: Index, maxSize: number): Entry[];
  term(i: Index): Term;
  lastIndex(): Index;
  firstIndex(): Index;
  snapshot(): Snapshot;
}

export interface Config {
  id: MemberId;
  /** Ticks without hearing from a leader before a follower campaigns; randomized in [electionTick, 2*electionTick). */
  electionTick: number;
  heartbeatTick: number;
  storage: Storage;
  /** The last applied index when restarting. */
  applied?: Index;
  /** Bytes of entry data per append message (etcd: 1 MiB). */
  maxSizePerMsg: number;
  /** Append messages in flight per follower in Replicate state (etcd: 512). */
  maxInflightMsgs: number;
  /** Bound on the uncommitted tail's data size; 0 = no limit. */
  maxUncommittedEntriesSize?: number;
  checkQuorum: boolean;
  preVote: boolean;
  readOnlyOption?: ReadOnlyOption;
  /** Injected randomness (the election timeout); the core uses nothing else. */
  random: RandomInt;
  logger?: Logger;
}

/** A peer to bootstrap a brand-new cluster with. */
export interface Peer {
  id: MemberId;
  /** Becomes the ConfChange context of that peer's AddNode entry. */
  context?: Uint8Array;
}

/**
 * The synchronous facade the driver uses (etcd-io/raft's RawNode).
 * Nothing here does I/O or reads a clock.
 */
export interface RaftNode {
  /** A new cluster: appends one AddNode ConfChange entry per peer at term 1 and commits them. */
  bootstrap(peers: Peer[]): void;
  tick(): void;
  campaign(): void;
  /** Throws ErrProposalDropped when there is no leader, a transfer is in progress, or the uncommitted tail is full. */
  propose(data: Uint8Array): void;
  proposeConfChange(cc: ConfChange): void;
  applyConfChange(cc: ConfChange): ConfState;
  step(m: Message): void;
  hasReady(): boolean;
  ready(): Ready;
  advance(rd: Ready): void;
  readIndex(ctx: Uint8Array): void;
  transferLeader(transferee: MemberId): void;
  reportUnreachable(id: MemberId): void;
  reportSnapshot(id: MemberId, status: SnapshotStatus): void;
  status(): Status;
}

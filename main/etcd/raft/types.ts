// The data the Raft core consumes and produces. These mirror etcd-io/raft's
// raftpb types (same message type numbers, same field meanings) so that the
// peer transport can encode them with the same field numbers and so that
// anyone who knows etcd's raft can read this code.
//
// Terms and indexes are JavaScript numbers: they stay far below 2^53 in any
// cluster's lifetime. Member ids are 64-bit (etcd derives them from sha1), so
// they are bigint; 0n means "none".

export type Term = number;
export type Index = number;
export type MemberId = bigint;

/** No member: no leader, no vote. */
export const NONE: MemberId = 0n;

export enum EntryType {
  Normal = 0,
  ConfChange = 1,
}

/**
 * One log entry. Invariants:
 * 1. index ≥ 1; entries in a log have consecutive indexes.
 * 2. term is the leader's term when it appended the entry; terms never decrease along a log.
 * 3. An empty `data` Normal entry is the no-op a new leader appends.
 */
export interface Entry {
  term: Term;
  index: Index;
  type: EntryType;
  data: Uint8Array;
}

/** Same numbering as raftpb.MessageType. */
export enum MessageType {
  Hup = 0,
  Beat = 1,
  Prop = 2,
  App = 3,
  AppResp = 4,
  Vote = 5,
  VoteResp = 6,
  Snap = 7,
  Heartbeat = 8,
  HeartbeatResp = 9,
  Unreachable = 10,
  SnapStatus = 11,
  CheckQuorum = 12,
  TransferLeader = 13,
  TimeoutNow = 14,
  ReadIndex = 15,
  ReadIndexResp = 16,
  PreVote = 17,
  PreVoteResp = 18,
}

export interface ConfState {
  voters: MemberId[];
  learners: MemberId[];
}

export interface SnapshotMetadata {
  confState: ConfState;
  index: Index;
  term: Term;
}

/** A state-machine image at `metadata.index`. `data` is opaque to Raft. */
export interface Snapshot {
  data: Uint8Array;
  metadata: SnapshotMetadata;
}

export interface Message {
  type: MessageType;
  to: MemberId;
  from: MemberId;
  term: Term;
  /** Term of the entry at `index` (App), or the candidate's last log term (Vote). */
  logTerm: Term;
  index: Index;
  entries: Entry[];
  commit: Index;
  snapshot?: Snapshot;
  reject: boolean;
  rejectHint: Index;
  /** Opaque context: ReadIndex request ids, the leader-transfer campaign marker. */
  context?: Uint8Array;
}

/** What must be durable before messages that depend on it are sent. */
export interface HardState {
  term: Term;
  vote: MemberId;
  commit: Index;
}

export enum StateType {
  Follower = 0,
  Candidate = 1,
  Leader = 2,
  PreCandidate = 3,
}

/** Volatile state, useful for logging and status; never persisted. */
export interface SoftState {
  lead: MemberId;
  raftState: StateType;
}

/** A ReadIndex answer: once applied ≥ index, a read for requestCtx is linearizable. */
export interface ReadState {
  index: Index;
  requestCtx: Uint8Array;
}

/** Same numbering as raftpb.ConfChangeType. */
export enum ConfChangeType {
  AddNode = 0,
  RemoveNode = 1,
  UpdateNode = 2,
  AddLearnerNode = 3,
}

/** A single-step membership change, carried in an EntryType.ConfChange entry. */
export interface ConfChange {
  type: ConfChangeType;
  nodeId: MemberId;
  /** Opaque to Raft; the server puts the member's attributes here. */
  context: Uint8Array;
}

/**
 * Everything the driver must do, in this order (see rawNode.ts):
 * 1. persist `snapshot` (if any), then `entries`, then `hardState` — fsync when `mustSync`;
 * 2. send `messages`;
 * 3. apply `snapshot`, then `committedEntries` (ConfChange entries via applyConfChange);
 * 4. call advance(ready).
 */
export interface Ready {
  softState?: SoftState;
  hardState?: HardState;
  readStates: ReadState[];
  entries: Entry[];
  snapshot?: Snapshot;
  committedEntries: Entry[];
  messages: Message[];
  mustSync: boolean;
}

export enum ProgressState {
  Probe = 0,
  Replicate = 1,
  Snapshot = 2,
}

export interface ProgressStatus {
  match: Index;
  next: Index;
  state: ProgressState;
  isLearner: boolean;
  recentActive: boolean;
}

export interface Status {
  id: MemberId;
  hardState: HardState;
  softState: SoftState;
  applied: Index;
  /** Only on the leader. */
  progress: Map<MemberId, ProgressStatus>;
  leadTransferee: MemberId;
}

export enum ReadOnlyOption {
  /** Confirm leadership with a heartbeat round (etcd's default). */
  Safe = 0,
  /** Rely on the leader lease; needs CheckQuorum. */
  LeaseBased = 1,
}

export enum SnapshotStatus {
  Finish = 0,
  Failure = 1,
}

/** Returns an integer in [0, n). Injected so that runs are reproducible. */
export type RandomInt = (n: number) => number;

export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
}

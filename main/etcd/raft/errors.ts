// Errors the Raft core and MemoryStorage throw. Same texts as etcd-io/raft so
// that log lines read the same; callers match on the class (instanceof).

export class RaftError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The requested index is older than the first entry still kept (compacted away). */
export class ErrCompacted extends RaftError {
  constructor() {
    super('requested index is unavailable due to compaction');
  }
}

/** A snapshot or compaction at an index not newer than the current snapshot. */
export class ErrSnapOutOfDate extends RaftError {
  constructor() {
    super('requested index is older than the existing snapshot');
  }
}

/** The requested entry lies beyond the last index. */
export class ErrUnavailable extends RaftError {
  constructor() {
    super('requested entry at index is unavailable');
  }
}

/** Storage cannot produce a snapshot right now; the leader retries later. */
export class ErrSnapshotTemporarilyUnavailable extends RaftError {
  constructor() {
    super('snapshot is temporarily unavailable');
  }
}

/** The proposal was not appended: no leader, a leader transfer in progress, or the uncommitted tail is full. */
export class ErrProposalDropped extends RaftError {
  constructor() {
    super('raft proposal dropped');
  }
}

/** RawNode.step was given a message type only the core itself may produce (Hup, Beat, ...). */
export class ErrStepLocalMsg extends RaftError {
  constructor() {
    super('raft: cannot step raft local message');
  }
}

/** RawNode.step was given a response from a member that is not in the configuration. */
export class ErrStepPeerNotFound extends RaftError {
  constructor() {
    super('raft: cannot step as peer not found');
  }
}

/** A broken invariant: the core's state or the driver's use of it is wrong. Never caught. */
export class RaftPanic extends RaftError {}

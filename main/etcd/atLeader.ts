// Requests that only the Raft leader can answer (lease keep-alive and
// time-to-live, learner promotion): a follower hands back where the leader
// is, and the API layer forwards the call there.

/** An answer only the leader gives: here it is, or ask the leader at these client URLs. */
export type AtLeader<T> = { value: T } | { forwardTo: string[] };

// What a follower does with the leader's appends, heartbeats and snapshots
// (etcd-io/raft handleAppendEntries, handleHeartbeat, handleSnapshot, restore).

import type { Raft } from './raft';
import { ProgressTracker } from './tracker/progressTracker';
import { MessageType, NONE, StateType, type Message, type Snapshot } from './types';
import { message } from './util';

export function handleAppendEntries(r: Raft, m: Message): void {
  if (m.index < r.raftLog.committed) {
    r.send(message({ type: MessageType.AppResp, to: m.from, index: r.raftLog.committed }));
    return;
  }
  const lastNew = r.raftLog.maybeAppend(m.index, m.logTerm, m.commit, m.entries);
  if (lastNew !== undefined) {
    r.send(message({ type: MessageType.AppResp, to: m.from, index: lastNew }));
    return;
  }
  // Reject with a hint: the last index whose term is ≤ the probed term, so
  // the leader can skip a whole conflicting term in one round trip.
  const hint = Math.min(m.index, r.raftLog.lastIndex());
  const [hintIndex, hintTerm] = r.raftLog.findConflictByTerm(hint, m.logTerm);
  r.send(message({ type: MessageType.AppResp, to: m.from, index: m.index, reject: true, rejectHint: hintIndex, logTerm: hintTerm }));
}

export function handleHeartbeat(r: Raft, m: Message): void {
  r.raftLog.commitTo(m.commit);
  r.send(message({ type: MessageType.HeartbeatResp, to: m.from, context: m.context }));
}

export function handleSnapshot(r: Raft, m: Message): void {
  const s = m.snapshot!;
  if (restore(r, s)) {
    r.send(message({ type: MessageType.AppResp, to: m.from, index: r.raftLog.lastIndex() }));
  } else {
    r.send(message({ type: MessageType.AppResp, to: m.from, index: r.raftLog.committed }));
  }
}

/** Installs a snapshot from the leader; false if it is stale or our log already covers it. */
export function restore(r: Raft, s: Snapshot): boolean {
  const meta = s.metadata;
  if (meta.index <= r.raftLog.committed) return false;
  if (r.state !== StateType.Follower) {
    // Only a leader sends snapshots, and a leader exists at our term only if we follow it.
    r.becomeFollower(r.term + 1, NONE);
    return false;
  }
  // The snapshot may predate our own addition (the leader's latest snapshot
  // is older than the conf change that added us): install it anyway, as
  // etcd 3.4's raft does; the entries after it carry that conf change, and
  // until we apply it we are simply not promotable. (etcd-io/raft refuses
  // such a snapshot only because etcd's server always sends one at its
  // applied index; ours sends the stored one.)
  const cs = meta.confState;
  if (r.raftLog.matchTerm(meta.index, meta.term)) {
    // We hold the entry: just fast-forward the commit.
    r.raftLog.commitTo(meta.index);
    return false;
  }
  r.raftLog.restore(s);
  r.prs = new ProgressTracker(r.prs.maxInflight);
  r.restoreConfState(cs);
  return true;
}


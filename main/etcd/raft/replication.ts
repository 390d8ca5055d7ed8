// The leader's side of replication (etcd-io/raft raft.go sendAppend,
// sendHeartbeat, bcast*): what each follower is sent, from its progress in
// the tracker. Appends carry the entries a follower is missing (a snapshot
// once those are compacted away), a heartbeat never lets a follower commit
// past what it is known to hold. Everything goes out through Raft.send.

import { RaftPanic } from './errors';
import type { Raft } from './raft';
import { MessageType, ProgressState, type Entry, type MemberId, type Snapshot } from './types';
import { message } from './util';

/** Sends the entries `to` is missing (or a snapshot); false when nothing was sent. */
export function maybeSendAppend(r: Raft, to: MemberId, sendIfEmpty: boolean): boolean {
  const pr = r.prs.progress.get(to);
  if (!pr || pr.isPaused()) return false;
  const prevTerm = r.raftLog.term(pr.next - 1);
  let ents: Entry[] | undefined;
  try {
    ents = r.raftLog.entries(pr.next, r.maxMsgSize);
  } catch {
    ents = undefined; // compacted: only a snapshot can help
  }
  if (ents !== undefined && ents.length === 0 && !sendIfEmpty) return false;

  if (prevTerm === undefined || ents === undefined) {
    if (!pr.recentActive) return false; // don't ship a snapshot to a member that may be down
    let snap: Snapshot;
    try {
      snap = r.raftLog.snapshot();
    } catch {
      return false; // temporarily unavailable: retried on a later heartbeat response
    }
    if (snap.metadata.index === 0) throw new RaftPanic('need non-empty snapshot');
    r.send(message({ type: MessageType.Snap, to, snapshot: snap }));
    pr.becomeSnapshot(snap.metadata.index);
    return true;
  }
  r.send(message({ type: MessageType.App, to, index: pr.next - 1, logTerm: prevTerm, entries: ents, commit: r.raftLog.committed }));
  if (ents.length) {
    const last = ents[ents.length - 1]!.index;
    if (pr.state === ProgressState.Replicate) {
      pr.optimisticUpdate(last);
      pr.inflights.add(last);
    } else if (pr.state === ProgressState.Probe) {
      pr.probeSent = true;
    }
  }
  return true;
}

export function sendAppend(r: Raft, to: MemberId): void {
  maybeSendAppend(r, to, true);
}

export function sendHeartbeat(r: Raft, to: MemberId, ctx: Uint8Array | undefined): void {
  // Never tell a follower to commit past what it is known to hold.
  const commit = Math.min(r.prs.progress.get(to)?.match ?? 0, r.raftLog.committed);
  r.send(message({ type: MessageType.Heartbeat, to, commit, context: ctx }));
}

export function bcastAppend(r: Raft): void {
  for (const id of r.prs.progress.keys()) if (id !== r.id) sendAppend(r, id);
}

export function bcastHeartbeat(r: Raft): void {
  bcastHeartbeatWithCtx(r, r.readOnly.lastPendingRequestCtx());
}

export function bcastHeartbeatWithCtx(r: Raft, ctx: Uint8Array | undefined): void {
  for (const id of r.prs.progress.keys()) if (id !== r.id) sendHeartbeat(r, id, ctx);
}

export function sendTimeoutNow(r: Raft, to: MemberId): void {
  r.send(message({ type: MessageType.TimeoutNow, to }));
}

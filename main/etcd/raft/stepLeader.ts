// The leader's step function (etcd-io/raft stepLeader): proposals, replication
// flow control, commit, ReadIndex, CheckQuorum and leadership transfer.

import { RaftPanic } from './errors';
import { VoteResult } from './quorum/majority';
import type { Raft } from './raft';
import { releasePendingReadIndexMessages, respondToReadIndex, sendReadIndexResponse } from './readIndex';
import { bcastAppend, bcastHeartbeat, maybeSendAppend, sendAppend, sendTimeoutNow } from './replication';
import { EntryType, MessageType, NONE, ProgressState, ReadOnlyOption, StateType, type Message } from './types';
import { EMPTY_BYTES } from './util';

export function stepLeader(r: Raft, m: Message): void {
  // Messages that need no progress of the sender.
  switch (m.type) {
    case MessageType.Beat:
      bcastHeartbeat(r);
      return;
    case MessageType.CheckQuorum: {
      const self = r.prs.progress.get(r.id);
      if (self) self.recentActive = true;
      if (!r.prs.quorumActive()) {
        r.logger.warn(`${r.id} stepped down to follower since quorum is not active`);
        r.becomeFollower(r.term, NONE);
      }
      // Start the next activity window; the leader itself always counts as active.
      for (const [id, pr] of r.prs.progress) if (id !== r.id) pr.recentActive = false;
      return;
    }
    case MessageType.Prop:
      stepProposal(r, m);
      return;
    case MessageType.ReadIndex:
      if (r.prs.isSingleton()) {
        respondToReadIndex(r, m, r.raftLog.committed);
        return;
      }
      // Until an entry of this term is committed, our commit index may lag the
      // previous leader's: a read at it could miss acknowledged writes.
      if (!r.committedEntryInCurrentTerm()) {
        r.pendingReadIndexMessages.push(m);
        return;
      }
      sendReadIndexResponse(r, m);
      return;
  }

  const pr = r.prs.progress.get(m.from);
  if (!pr) return;
  switch (m.type) {
    case MessageType.AppResp: {
      pr.recentActive = true;
      if (m.reject) {
        let nextProbe = m.rejectHint;
        // The follower's log at rejectHint has term m.logTerm: skip our entries with larger terms too.
        if (m.logTerm > 0) nextProbe = r.raftLog.findConflictByTerm(m.rejectHint, m.logTerm)[0];
        if (pr.maybeDecrTo(m.index, nextProbe)) {
          if (pr.state === ProgressState.Replicate) pr.becomeProbe();
          sendAppend(r, m.from);
        }
        return;
      }
      const oldPaused = pr.isPaused();
      if (!pr.maybeUpdate(m.index)) return;
      if (pr.state === ProgressState.Probe) {
        pr.becomeReplicate();
      } else if (pr.state === ProgressState.Snapshot && pr.match >= pr.pendingSnapshot) {
        pr.becomeProbe();
        pr.becomeReplicate();
      } else if (pr.state === ProgressState.Replicate) {
        pr.inflights.freeLE(m.index);
      }
      if (r.maybeCommit()) {
        releasePendingReadIndexMessages(r);
        bcastAppend(r);
      } else if (oldPaused) {
        sendAppend(r, m.from); // it was paused: it may be waiting for this
      }
      // Pipeline: fill the window while there is more to send (bounded by inflights and the log's end).
      while (maybeSendAppend(r, m.from, false)) {
        /* keep sending */
      }
      if (m.from === r.leadTransferee && pr.match === r.raftLog.lastIndex()) sendTimeoutNow(r, m.from);
      return;
    }
    case MessageType.HeartbeatResp: {
      pr.recentActive = true;
      pr.probeSent = false;
      // The follower is alive: free one slot so a full window cannot stall forever on a lost message.
      if (pr.state === ProgressState.Replicate && pr.inflights.full()) pr.inflights.freeFirstOne();
      if (pr.match < r.raftLog.lastIndex()) sendAppend(r, m.from);
      if (r.readOnly.option !== ReadOnlyOption.Safe || !m.context || m.context.length === 0) return;
      const acks = r.readOnly.recvAck(m.from, m.context);
      if (!acks || r.prs.voteResultOf(acks) !== VoteResult.Won) return;
      for (const rs of r.readOnly.advance(m.context)) respondToReadIndex(r, rs.req, rs.index);
      return;
    }
    case MessageType.SnapStatus:
      if (pr.state !== ProgressState.Snapshot) return;
      // Success: probe from after the snapshot. Failure: forget it and probe again.
      if (m.reject) pr.pendingSnapshot = 0;
      pr.becomeProbe();
      // Wait for an AppResp/HeartbeatResp before the next append.
      pr.probeSent = true;
      return;
    case MessageType.Unreachable:
      // Optimistic pipelining to an unreachable member wastes messages: probe instead.
      if (pr.state === ProgressState.Replicate) pr.becomeProbe();
      return;
    case MessageType.TransferLeader: {
      if (pr.isLearner) return;
      const transferee = m.from;
      if (r.leadTransferee !== NONE) {
        if (r.leadTransferee === transferee) return; // already in progress
        r.abortLeaderTransfer();
      }
      if (transferee === r.id) return; // already leader
      // The transfer must finish within one election timeout.
      r.electionElapsed = 0;
      r.leadTransferee = transferee;
      if (pr.match === r.raftLog.lastIndex()) sendTimeoutNow(r, transferee);
      else sendAppend(r, transferee);
      return;
    }
  }
}

function stepProposal(r: Raft, m: Message): void {
  if (m.entries.length === 0) throw new RaftPanic(`${r.id} stepped empty MsgProp`);
  // Removed from the configuration, or handing leadership over: refuse.
  if (!r.prs.progress.has(r.id) || r.leadTransferee !== NONE) r.dropProposal();
  if (r.state !== StateType.Leader) r.dropProposal();
  const ents = m.entries.map((e) => ({ ...e }));
  for (let i = 0; i < ents.length; i++) {
    if (ents[i]!.type !== EntryType.ConfChange) continue;
    if (r.pendingConfIndex > r.raftLog.applied) {
      // One change at a time: a second one becomes a no-op entry (the proposer times out).
      r.logger.info(`${r.id} ignores conf change: previous change at ${r.pendingConfIndex} not yet applied`);
      ents[i] = { term: 0, index: 0, type: EntryType.Normal, data: EMPTY_BYTES };
    } else {
      r.pendingConfIndex = r.raftLog.lastIndex() + i + 1;
    }
  }
  if (!r.appendEntry(ents)) r.dropProposal();
  bcastAppend(r);
}

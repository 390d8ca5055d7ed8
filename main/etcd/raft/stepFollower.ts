// The follower's and the (pre-)candidate's step functions (etcd-io/raft
// stepFollower, stepCandidate).

import { CampaignType } from './campaign';
import { campaign, poll } from './election';
import { handleAppendEntries, handleHeartbeat, handleSnapshot } from './followerHandlers';
import type { Raft } from './raft';
import { VoteResult } from './quorum/majority';
import { bcastAppend } from './replication';
import { MessageType, NONE, StateType, type Message } from './types';

export function stepFollower(r: Raft, m: Message): void {
  switch (m.type) {
    case MessageType.Prop:
      if (r.lead === NONE) r.dropProposal();
      r.send({ ...m, to: r.lead });
      return;
    case MessageType.App:
      r.electionElapsed = 0;
      r.lead = m.from;
      handleAppendEntries(r, m);
      return;
    case MessageType.Heartbeat:
      r.electionElapsed = 0;
      r.lead = m.from;
      handleHeartbeat(r, m);
      return;
    case MessageType.Snap:
      r.electionElapsed = 0;
      r.lead = m.from;
      handleSnapshot(r, m);
      return;
    case MessageType.TransferLeader:
      if (r.lead === NONE) return;
      r.send({ ...m, to: r.lead });
      return;
    case MessageType.TimeoutNow:
      // The leader asked us to take over: campaign now, past the lease and without a pre-vote.
      campaign(r, CampaignType.Transfer);
      return;
    case MessageType.ReadIndex:
      if (r.lead === NONE) return; // the driver retries
      r.send({ ...m, to: r.lead });
      return;
    case MessageType.ReadIndexResp:
      if (m.entries.length !== 1) return;
      r.readStates.push({ index: m.index, requestCtx: m.entries[0]!.data });
      return;
  }
}

export function stepCandidate(r: Raft, m: Message): void {
  // Only votes of our current kind of election count; a stale VoteResp to a
  // pre-candidate (or vice versa) is ignored.
  const myVoteResp = r.state === StateType.PreCandidate ? MessageType.PreVoteResp : MessageType.VoteResp;
  switch (m.type) {
    case MessageType.Prop:
      r.dropProposal();
      return;
    case MessageType.App:
      r.becomeFollower(m.term, m.from); // a leader of our term exists
      handleAppendEntries(r, m);
      return;
    case MessageType.Heartbeat:
      r.becomeFollower(m.term, m.from);
      handleHeartbeat(r, m);
      return;
    case MessageType.Snap:
      r.becomeFollower(m.term, m.from);
      handleSnapshot(r, m);
      return;
    case myVoteResp: {
      const res = poll(r, m.from, m.type, !m.reject);
      if (res === VoteResult.Won) {
        if (r.state === StateType.PreCandidate) {
          campaign(r, CampaignType.Election);
        } else {
          r.becomeLeader();
          bcastAppend(r);
        }
      } else if (res === VoteResult.Lost) {
        // PreVoteResp carries a higher term when rejected; the term rules already handled that.
        r.becomeFollower(r.term, NONE);
      }
      return;
    }
    case MessageType.TimeoutNow:
      return;
  }
}

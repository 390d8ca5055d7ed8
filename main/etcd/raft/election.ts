// Elections (etcd-io/raft campaign, poll, hup): a member that timed out asks
// the voters for their vote — first in a pre-vote that changes no state when
// PreVote is on — and becomes leader on a majority; and the voter's side,
// handleVoteRequest.

import { CAMPAIGN_TRANSFER, CampaignType } from './campaign';
import { VoteResult } from './quorum/majority';
import type { Raft } from './raft';
import { EntryType, MessageType, NONE, StateType, type MemberId, type Message, type Term } from './types';
import { message, sortedIds, voteRespMsgType } from './util';

export function campaign(r: Raft, t: CampaignType): void {
  if (!r.promotable()) return;
  let voteMsg: MessageType;
  let term: Term;
  if (t === CampaignType.PreElection) {
    r.becomePreCandidate();
    voteMsg = MessageType.PreVote;
    term = r.term + 1; // what we would campaign at; our own term stays
  } else {
    r.becomeCandidate();
    voteMsg = MessageType.Vote;
    term = r.term;
  }
  if (poll(r, r.id, voteRespMsgType(voteMsg), true) === VoteResult.Won) {
    // Single voter: won already.
    if (t === CampaignType.PreElection) campaign(r, CampaignType.Election);
    else r.becomeLeader();
    return;
  }
  const ctx = t === CampaignType.Transfer ? CAMPAIGN_TRANSFER : undefined;
  for (const id of sortedIds(r.prs.voters)) {
    if (id === r.id) continue;
    r.send(
      message({ type: voteMsg, to: id, term, index: r.raftLog.lastIndex(), logTerm: r.raftLog.lastTerm(), context: ctx }),
    );
  }
}

export function poll(r: Raft, id: MemberId, _t: MessageType, granted: boolean): VoteResult {
  r.prs.recordVote(id, granted);
  return r.prs.tallyVotes().result;
}

export function hup(r: Raft, t: CampaignType): void {
  if (r.state === StateType.Leader) return;
  if (!r.promotable()) return;
  // A committed but unapplied conf change may change who votes: wait for it.
  if (r.raftLog.committed > r.raftLog.applied) {
    const ents = r.raftLog.slice(r.raftLog.applied + 1, r.raftLog.committed + 1, Infinity);
    if (ents.some((e) => e.type === EntryType.ConfChange)) {
      r.logger.warn(`${r.id} cannot campaign at term ${r.term}: pending configuration changes to apply`);
      return;
    }
  }
  campaign(r, t);
}


/** A (pre-)vote request that passed Raft.step's term rules: grant it if we may vote for m.from and its log is up to date. */
export function handleVoteRequest(r: Raft, m: Message): void {
  const canVote = r.vote === m.from || (r.vote === NONE && r.lead === NONE) || (m.type === MessageType.PreVote && m.term > r.term);
  if (canVote && r.raftLog.isUpToDate(m.index, m.logTerm)) {
    // Answer at the request's term: for a pre-vote our own term is lower.
    r.send(message({ type: voteRespMsgType(m.type), to: m.from, term: m.term }));
    if (m.type === MessageType.Vote) {
      r.electionElapsed = 0;
      r.vote = m.from;
    }
  } else {
    r.send(message({ type: voteRespMsgType(m.type), to: m.from, term: r.term, reject: true }));
  }
}

// Stable one-line renderings of raft data for the golden traces, in
// etcd-io/raft's format (raft/util.go DescribeMessage & co.).

import {
  ConfChangeType,
  EntryType,
  MessageType,
  NONE,
  ProgressState,
  StateType,
  decodeConfChange,
  type ConfState,
  type Entry,
  type HardState,
  type MemberId,
  type Message,
  type Ready,
  type Snapshot,
  type Status,
} from '../../../../../main/etcd/raft/index';
import type { Progress } from '../../../../../main/etcd/raft/tracker/progress';

const text = new TextDecoder();

export function describeConfChange(data: Uint8Array): string {
  const cc = decodeConfChange(data);
  const kind = { [ConfChangeType.AddNode]: 'v', [ConfChangeType.RemoveNode]: 'r', [ConfChangeType.UpdateNode]: 'u', [ConfChangeType.AddLearnerNode]: 'l' }[cc.type];
  return `${kind}${cc.nodeId}`;
}

export function describeEntry(e: Entry): string {
  if (e.type === EntryType.ConfChange) return `${e.term}/${e.index} EntryConfChange ${describeConfChange(e.data)}`;
  return `${e.term}/${e.index} EntryNormal ${JSON.stringify(text.decode(e.data))}`;
}

export function describeEntries(ents: readonly Entry[]): string {
  return ents.map(describeEntry).join('\n');
}

export function describeConfState(cs: ConfState): string {
  return `Voters:[${cs.voters.join(' ')}] VotersOutgoing:[] Learners:[${cs.learners.join(' ')}] LearnersNext:[] AutoLeave:false`;
}

export function describeHardState(hs: HardState): string {
  return `Term:${hs.term}${hs.vote !== NONE ? ` Vote:${hs.vote}` : ''} Commit:${hs.commit}`;
}

export function describeSnapshot(s: Snapshot): string {
  return `Index:${s.metadata.index} Term:${s.metadata.term} ConfState:${describeConfState(s.metadata.confState)}`;
}

export function describeMessage(m: Message): string {
  let s = `${m.from}->${m.to} Msg${MessageType[m.type]} Term:${m.term} Log:${m.logTerm}/${m.index}`;
  if (m.reject) s += ` Rejected (Hint: ${m.rejectHint})`;
  if (m.commit !== 0) s += ` Commit:${m.commit}`;
  // Shown so that ReadIndex rounds and transfer campaigns can be followed.
  if (m.context?.length) s += ` Context:${JSON.stringify(text.decode(m.context))}`;
  if (m.entries.length) s += ` Entries:[${m.entries.map(describeEntry).join(', ')}]`;
  if (m.snapshot) s += `\n  Snapshot: ${describeSnapshot(m.snapshot)}`;
  return s;
}

export function stateName(s: StateType): string {
  return `State${StateType[s]}`;
}

export function describeReady(rd: Ready): string {
  const out = [`Ready MustSync=${rd.mustSync}:`];
  if (rd.softState) out.push(`Lead:${rd.softState.lead} State:${stateName(rd.softState.raftState)}`);
  if (rd.hardState) out.push(`HardState ${describeHardState(rd.hardState)}`);
  if (rd.readStates.length) out.push(`ReadStates ${rd.readStates.map((r) => `{Index:${r.index} RequestCtx:${JSON.stringify(text.decode(r.requestCtx))}}`).join(' ')}`);
  if (rd.entries.length) out.push('Entries:', describeEntries(rd.entries));
  if (rd.snapshot) out.push(`Snapshot ${describeSnapshot(rd.snapshot)}`);
  if (rd.committedEntries.length) out.push('CommittedEntries:', describeEntries(rd.committedEntries));
  if (rd.messages.length) out.push('Messages:', ...rd.messages.map(describeMessage));
  return out.join('\n');
}

/** A node's status; on the leader, each member's progress with its flow-control state (etcd-io/raft tracker.Progress.String). */
export function describeStatus(st: Status, progress: ReadonlyMap<MemberId, Progress>): string {
  const out = [`${st.id}: ${stateName(st.softState.raftState)} Lead:${st.softState.lead} ${describeHardState(st.hardState)} Applied:${st.applied}`];
  if (st.leadTransferee !== NONE) out.push(`LeadTransferee:${st.leadTransferee}`);
  if (st.softState.raftState !== StateType.Leader) return out.join('\n');
  for (const [id, pr] of [...progress].sort(([a], [b]) => (a < b ? -1 : 1))) {
    // The leader's own recentActive is set only by CheckQuorum, which counts the leader as active anyway: not shown.
    out.push(`${id}: ${describeProgress(pr, id === st.id)}`);
  }
  return out.join('\n');
}

export function describeProgress(pr: Progress, self = false): string {
  let s = `State${ProgressState[pr.state]} match=${pr.match} next=${pr.next}`;
  if (pr.isLearner) s += ' learner';
  if (pr.isPaused()) s += ' paused';
  if (pr.pendingSnapshot > 0) s += ` pendingSnap=${pr.pendingSnapshot}`;
  if (!pr.recentActive && !self) s += ' inactive';
  if (pr.inflights.count > 0) s += ` inflight=${pr.inflights.count}${pr.inflights.full() ? '[full]' : ''}`;
  return s;
}

export function indent(s: string, by = '  '): string {
  return s
    .split('\n')
    .map((l) => (l ? by + l : l))
    .join('\n');
}

// Small helpers over the raft types, and Describe* renderers that turn the
// core's data into one readable line each (used by logs, tests and the
// simulation's trace).

import {
  EntryType,
  MessageType,
  NONE,
  ProgressState,
  StateType,
  type ConfState,
  type Entry,
  type HardState,
  type Message,
  type Ready,
  type Snapshot,
  type Status,
} from './types';

export const EMPTY_BYTES = new Uint8Array(0);

export function isEmptyHardState(hs: HardState): boolean {
  return hs.term === 0 && hs.vote === NONE && hs.commit === 0;
}

export function isHardStateEqual(a: HardState, b: HardState): boolean {
  return a.term === b.term && a.vote === b.vote && a.commit === b.commit;
}

export function isEmptySnapshot(s: Snapshot | undefined): boolean {
  return s === undefined || s.metadata.index === 0;
}

export function emptySnapshot(): Snapshot {
  return { data: EMPTY_BYTES, metadata: { index: 0, term: 0, confState: { voters: [], learners: [] } } };
}

export function compareIds(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortedIds(ids: Iterable<bigint>): bigint[] {
  return [...ids].sort(compareIds);
}

/** A Message with every field at its zero value except those given. */
export function message(m: Partial<Message> & Pick<Message, 'type'>): Message {
  return {
    to: NONE,
    from: NONE,
    term: 0,
    logTerm: 0,
    index: 0,
    entries: [],
    commit: 0,
    reject: false,
    rejectHint: 0,
    ...m,
  };
}

/**
 * The exclusive end of the longest run of arr[from..to) whose data fits in
 * maxSize bytes, but at least one entry. Lets callers take one slice instead
 * of copying a range and trimming it.
 */
export function limitEnd(arr: readonly Entry[], from: number, to: number, maxSize: number): number {
  if (to - from <= 1 || maxSize === Infinity) return to;
  let size = arr[from]!.data.length;
  let end = from + 1;
  while (end < to) {
    size += arr[end]!.data.length;
    if (size > maxSize) break;
    end++;
  }
  return end;
}

export function payloadSize(ents: readonly Entry[]): number {
  let s = 0;
  for (const e of ents) s += e.data.length;
  return s;
}

export function isLocalMsg(t: MessageType): boolean {
  return (
    t === MessageType.Hup ||
    t === MessageType.Beat ||
    t === MessageType.Unreachable ||
    t === MessageType.SnapStatus ||
    t === MessageType.CheckQuorum
  );
}

export function isResponseMsg(t: MessageType): boolean {
  return (
    t === MessageType.AppResp ||
    t === MessageType.VoteResp ||
    t === MessageType.HeartbeatResp ||
    t === MessageType.Unreachable ||
    t === MessageType.PreVoteResp
  );
}

/** The response type for a vote request type. */
export function voteRespMsgType(t: MessageType): MessageType {
  if (t === MessageType.Vote) return MessageType.VoteResp;
  if (t === MessageType.PreVote) return MessageType.PreVoteResp;
  throw new Error(`not a vote message: ${MessageType[t]}`);
}

export function bytesEqual(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A Map key for opaque bytes. */
export function bytesKey(b: Uint8Array | undefined): string {
  if (!b) return '';
  let s = '';
  for (let i = 0; i < b.length; i++) s += b[i]!.toString(16).padStart(2, '0');
  return s;
}

export function describeEntry(e: Entry): string {
  const kind = e.type === EntryType.ConfChange ? 'CC' : e.data.length === 0 ? 'noop' : `${e.data.length}B`;
  return `${e.term}/${e.index} ${kind}`;
}

export function describeConfState(cs: ConfState): string {
  const l = cs.learners.length ? ` learners=[${cs.learners.join(' ')}]` : '';
  return `voters=[${cs.voters.join(' ')}]${l}`;
}

export function describeHardState(hs: HardState): string {
  return `term=${hs.term} vote=${hs.vote} commit=${hs.commit}`;
}

export function describeMessage(m: Message): string {
  let s = `${m.from}->${m.to} ${MessageType[m.type]} term=${m.term}`;
  if (m.logTerm || m.index) s += ` log=${m.logTerm}/${m.index}`;
  if (m.commit) s += ` commit=${m.commit}`;
  if (m.reject) s += ` rejected hint=${m.rejectHint}`;
  if (m.entries.length) s += ` [${m.entries.map(describeEntry).join(', ')}]`;
  if (m.snapshot) s += ` snap=${m.snapshot.metadata.term}/${m.snapshot.metadata.index}`;
  return s;
}

export function describeState(s: StateType): string {
  return StateType[s];
}

/** One line per non-empty part of a Ready, for logs and traces. */
export function describeReady(rd: Ready): string {
  const parts: string[] = [];
  if (rd.softState) parts.push(`soft: lead=${rd.softState.lead} ${StateType[rd.softState.raftState]}`);
  if (rd.hardState) parts.push(`hard: ${describeHardState(rd.hardState)}${rd.mustSync ? ' (sync)' : ''}`);
  if (rd.snapshot) parts.push(`snapshot: ${rd.snapshot.metadata.term}/${rd.snapshot.metadata.index} ${describeConfState(rd.snapshot.metadata.confState)}`);
  if (rd.entries.length) parts.push(`entries: ${rd.entries.map(describeEntry).join(', ')}`);
  if (rd.committedEntries.length) parts.push(`committed: ${rd.committedEntries.map(describeEntry).join(', ')}`);
  for (const m of rd.messages) parts.push(`msg: ${describeMessage(m)}`);
  for (const rs of rd.readStates) parts.push(`read: index=${rs.index} ctx=${bytesKey(rs.requestCtx)}`);
  return parts.join('\n');
}

export function describeStatus(st: Status): string {
  let s = `${st.id} ${StateType[st.softState.raftState]} lead=${st.softState.lead} ${describeHardState(st.hardState)} applied=${st.applied}`;
  if (st.leadTransferee !== NONE) s += ` transferring to ${st.leadTransferee}`;
  for (const [id, pr] of st.progress) {
    s += `\n  ${id}: ${ProgressState[pr.state]} match=${pr.match} next=${pr.next}${pr.isLearner ? ' learner' : ''}${pr.recentActive ? '' : ' inactive'}`;
  }
  return s;
}

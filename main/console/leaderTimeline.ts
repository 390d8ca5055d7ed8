// Who led the cluster, and when that changed, from the status probes.
//
// A sample is the cluster's leader as the members report it at one moment:
// the leader named by the answer with the highest raft term (an old leader
// cut off from the others may still believe it leads, at an older term), or
// none when no member names one. Transitions, in order of checks:
//   first sample, a leader      → elected   {leader, term}
//   first sample, none          → no-leader {term}
//   leader L, then none         → lost      {previousLeader L, term of L}
//   none, then leader M         → elected   {leader M, previousLeader (last known), leaderlessMs}
//   leader L, then M ≠ L        → changed   {leader M, previousLeader L, term}
//   leader L, then L, term up   → elected   {leader L, previousLeader L} (re-elected between two probes)
// Anything else changes nothing. Two guards keep stale answers out:
//   - a sample older than the last one is dropped (a probe round that began
//     before the failover experiment killed the leader answers after it);
//   - a sample may carry `deposed`: that leader is known dead (we killed it),
//     so until the term moves past its term, answers still naming it (the
//     followers have not noticed yet) count as "no leader".
//
// Events are kept in memory (the newest MAX_EVENTS) and appended to
// DIR/console/leader-history.jsonl, so the timeline survives a console
// restart; the file is rewritten with the newest MAX_EVENTS once it holds
// twice that many lines (bounded on disk too).

import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LeaderEvent } from '../../preload/contract';

export interface LeaderSample {
  at: number;
  /** Member name of the leader, undefined when no member names one. */
  leader?: string;
  /** Highest raft term any member reported (decimal). */
  term: string;
  /** This member was the leader and is known to be dead (killed by the console). */
  deposed?: string;
}

export interface TimelineState {
  started: boolean;
  leader?: string;
  lastKnownLeader?: string;
  term: string;
  leaderlessSince?: number;
  lastAt?: number;
  deposed?: { leader: string; term: string };
}

export const MAX_EVENTS = 1_000;

export const initialTimelineState: TimelineState = { started: false, term: '0' };

const termGreater = (a: string, b: string) => BigInt(a || '0') > BigInt(b || '0');

/** One step of the timeline: the new state and the event the sample caused, if any. */
export function stepTimeline(prev: TimelineState, input: LeaderSample): { state: TimelineState; event?: LeaderEvent } {
  if (prev.lastAt !== undefined && input.at < prev.lastAt) return { state: prev };
  const deposed = input.deposed ? { leader: input.deposed, term: input.term } : prev.deposed;
  const stale = deposed && input.leader === deposed.leader && !termGreater(input.term, deposed.term);
  const sample: LeaderSample = input.deposed || stale ? { at: input.at, term: input.term } : input;
  const s: TimelineState = { ...prev, lastAt: input.at };
  if (deposed && termGreater(sample.term, deposed.term)) delete s.deposed;
  else if (deposed) s.deposed = deposed;
  const r = stepLeader(s, sample);
  // every branch below builds a fresh state: carry the guards over
  r.state.lastAt = input.at;
  if (s.deposed) r.state.deposed = s.deposed;
  return r;
}

function stepLeader(s: TimelineState, sample: LeaderSample): { state: TimelineState; event?: LeaderEvent } {
  const at = new Date(sample.at).toISOString();
  const term = termGreater(sample.term, s.term) ? sample.term : s.term;
  if (!s.started) {
    if (sample.leader) {
      return { state: { started: true, leader: sample.leader, lastKnownLeader: sample.leader, term }, event: { at, kind: 'elected', term, leader: sample.leader } };
    }
    return { state: { started: true, term, leaderlessSince: sample.at }, event: { at, kind: 'no-leader', term } };
  }
  if (s.leader && !sample.leader) {
    return {
      state: { started: true, lastKnownLeader: s.leader, term, leaderlessSince: sample.at },
      event: { at, kind: 'lost', term: s.term, previousLeader: s.leader },
    };
  }
  if (!s.leader && sample.leader) {
    const event: LeaderEvent = { at, kind: 'elected', term, leader: sample.leader };
    if (s.lastKnownLeader) event.previousLeader = s.lastKnownLeader;
    if (s.leaderlessSince !== undefined) event.leaderlessMs = Math.max(0, sample.at - s.leaderlessSince);
    return { state: { started: true, leader: sample.leader, lastKnownLeader: sample.leader, term }, event };
  }
  if (s.leader && sample.leader && sample.leader !== s.leader) {
    return {
      state: { started: true, leader: sample.leader, lastKnownLeader: sample.leader, term },
      event: { at, kind: 'changed', term, leader: sample.leader, previousLeader: s.leader },
    };
  }
  if (s.leader && sample.leader === s.leader && termGreater(sample.term, s.term)) {
    return {
      state: { ...s, term },
      event: { at, kind: 'elected', term, leader: sample.leader, previousLeader: s.leader },
    };
  }
  return { state: { ...s, term } };
}

export class LeaderTimeline {
  private state: TimelineState = initialTimelineState;
  private events: LeaderEvent[] = [];
  private fileLines = 0;

  /** file: DIR/console/leader-history.jsonl (undefined: memory only). */
  constructor(
    private readonly file: string | undefined,
    private readonly onEvent?: (e: LeaderEvent) => void,
    private readonly max = MAX_EVENTS,
  ) {
    if (file && existsSync(file)) {
      const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
      this.fileLines = lines.length;
      for (const l of lines.slice(-max)) {
        try {
          this.events.push(JSON.parse(l) as LeaderEvent);
        } catch {
          // a torn last line after a crash: skip it
        }
      }
    }
  }

  /** Feeds one sample; returns the event it caused. */
  observe(sample: LeaderSample): LeaderEvent | undefined {
    const { state, event } = stepTimeline(this.state, sample);
    this.state = state;
    if (event) this.add(event);
    return event;
  }

  /** The leader as last observed. */
  get currentLeader(): string | undefined {
    return this.state.leader;
  }

  list(): LeaderEvent[] {
    return [...this.events];
  }

  private add(e: LeaderEvent): void {
    this.events.push(e);
    if (this.events.length > this.max) this.events.splice(0, this.events.length - this.max);
    this.persist(e);
    this.onEvent?.(e);
  }

  private persist(e: LeaderEvent): void {
    if (!this.file) return;
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      appendFileSync(this.file, `${JSON.stringify(e)}\n`);
      if (++this.fileLines >= 2 * this.max) {
        const tmp = `${this.file}.tmp`;
        writeFileSync(tmp, this.events.map((x) => `${JSON.stringify(x)}\n`).join(''));
        renameSync(tmp, this.file);
        this.fileLines = this.events.length;
      }
    } catch {
      // the in-memory timeline still has it; a full disk must not stop the probes
    }
  }
}

/**
 * The cluster's leader from one round of Status answers (member name →
 * answer): the leader named at the highest term; `nameOf` maps a member id
 * (decimal, as on the wire) to its name.
 */
export function leaderSample(
  at: number,
  statuses: Iterable<{ leader: string; raftTerm: string }>,
  nameOf: (idDecimal: string) => string | undefined,
): LeaderSample {
  let best: { leader: string; raftTerm: string } | undefined;
  let maxTerm = '0';
  for (const st of statuses) {
    if (termGreater(st.raftTerm, maxTerm)) maxTerm = st.raftTerm;
    if (st.leader !== '0' && (!best || termGreater(st.raftTerm, best.raftTerm))) best = st;
  }
  const leader = best ? nameOf(best.leader) : undefined;
  return leader ? { at, leader, term: best!.raftTerm } : { at, term: maxTerm };
}

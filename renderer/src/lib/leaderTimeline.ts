// Turns the leader event log into what the timeline draws: who led when
// (spans), and the intervals with no leader. Pure; `now` closes open spans.

import type { LeaderEvent } from '../../../preload/contract';

export interface LeaderSpan {
  leader: string;
  term: string;
  from: number;
  to: number;
}

export interface Gap {
  from: number;
  to: number;
}

export function leaderSpans(events: readonly LeaderEvent[], now: number): { spans: LeaderSpan[]; gaps: Gap[] } {
  const spans: LeaderSpan[] = [];
  const gaps: Gap[] = [];
  let open: LeaderSpan | undefined;
  let gapFrom: number | undefined;
  for (const e of events) {
    const at = Date.parse(e.at);
    if (e.kind === 'elected' || e.kind === 'changed') {
      if (open) spans.push({ ...open, to: at });
      if (gapFrom !== undefined) gaps.push({ from: gapFrom, to: at });
      else if (e.leaderlessMs && e.leaderlessMs > 0) gaps.push({ from: at - e.leaderlessMs, to: at });
      gapFrom = undefined;
      open = { leader: e.leader ?? '?', term: e.term, from: at, to: at };
    } else {
      // lost / no-leader
      if (open) spans.push({ ...open, to: at });
      open = undefined;
      if (gapFrom === undefined) gapFrom = at;
    }
  }
  if (open) spans.push({ ...open, to: Math.max(now, open.from) });
  if (gapFrom !== undefined) gaps.push({ from: gapFrom, to: Math.max(now, gapFrom) });
  return { spans, gaps };
}

export function totalGapMs(gaps: readonly Gap[]): number {
  return gaps.reduce((s, g) => s + (g.to - g.from), 0);
}

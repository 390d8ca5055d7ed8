import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LeaderEvent } from '../../../preload/contract';
import { initialTimelineState, LeaderTimeline, leaderSample, stepTimeline, type LeaderSample } from '../../../main/console/leaderTimeline';

const T0 = Date.parse('2026-11-30T12:00:00.000Z');
const s = (ms: number, leader: string | undefined, term: number, deposed?: string): LeaderSample => ({
  at: T0 + ms,
  term: String(term),
  ...(leader ? { leader } : {}),
  ...(deposed ? { deposed } : {}),
});

/** Runs samples through the reducer; events without their timestamps. */
function run(samples: LeaderSample[]): Omit<LeaderEvent, 'at'>[] {
  let state = initialTimelineState;
  const out: Omit<LeaderEvent, 'at'>[] = [];
  for (const x of samples) {
    const r = stepTimeline(state, x);
    state = r.state;
    if (r.event) {
      const { at: _at, ...rest } = r.event;
      out.push(rest);
    }
  }
  return out;
}

describe('leader timeline transitions', () => {
  const cases: { name: string; input: LeaderSample[]; want: Omit<LeaderEvent, 'at'>[] }[] = [
    { name: 'first sample with a leader', input: [s(0, 'm1', 2), s(1000, 'm1', 2)], want: [{ kind: 'elected', term: '2', leader: 'm1' }] },
    {
      name: 'cluster starting: no leader, then one after 1.5 s',
      input: [s(0, undefined, 1), s(1000, undefined, 1), s(1500, 'm2', 2)],
      want: [{ kind: 'no-leader', term: '1' }, { kind: 'elected', term: '2', leader: 'm2', leaderlessMs: 1500 }],
    },
    {
      name: 'leader lost, a new one elected after a gap',
      input: [s(0, 'm1', 2), s(1000, undefined, 2), s(2000, undefined, 3), s(2400, 'm3', 3)],
      want: [
        { kind: 'elected', term: '2', leader: 'm1' },
        { kind: 'lost', term: '2', previousLeader: 'm1' },
        { kind: 'elected', term: '3', leader: 'm3', previousLeader: 'm1', leaderlessMs: 1400 },
      ],
    },
    {
      name: 'leadership moved between two probes (move-leader)',
      input: [s(0, 'm1', 2), s(1000, 'm2', 3)],
      want: [{ kind: 'elected', term: '2', leader: 'm1' }, { kind: 'changed', term: '3', leader: 'm2', previousLeader: 'm1' }],
    },
    {
      name: 'same leader re-elected at a higher term between two probes',
      input: [s(0, 'm1', 2), s(1000, 'm1', 4)],
      want: [{ kind: 'elected', term: '2', leader: 'm1' }, { kind: 'elected', term: '4', leader: 'm1', previousLeader: 'm1' }],
    },
    {
      name: 'a sample older than the last one is ignored',
      input: [s(0, 'm1', 2), s(1000, undefined, 2), s(900, 'm1', 2), s(1200, 'm2', 3)],
      want: [
        { kind: 'elected', term: '2', leader: 'm1' },
        { kind: 'lost', term: '2', previousLeader: 'm1' },
        { kind: 'elected', term: '3', leader: 'm2', previousLeader: 'm1', leaderlessMs: 200 },
      ],
    },
    {
      name: 'a killed leader still named by followers at its term does not count',
      input: [s(0, 'm1', 2), s(100, undefined, 2, 'm1'), s(500, 'm1', 2), s(1300, 'm3', 3), s(2000, 'm3', 3)],
      want: [
        { kind: 'elected', term: '2', leader: 'm1' },
        { kind: 'lost', term: '2', previousLeader: 'm1' },
        { kind: 'elected', term: '3', leader: 'm3', previousLeader: 'm1', leaderlessMs: 1200 },
      ],
    },
    {
      name: 'the deposed member may lead again at a later term',
      input: [s(0, 'm1', 2), s(100, undefined, 2, 'm1'), s(1300, 'm3', 3), s(5000, 'm1', 4)],
      want: [
        { kind: 'elected', term: '2', leader: 'm1' },
        { kind: 'lost', term: '2', previousLeader: 'm1' },
        { kind: 'elected', term: '3', leader: 'm3', previousLeader: 'm1', leaderlessMs: 1200 },
        { kind: 'changed', term: '4', leader: 'm1', previousLeader: 'm3' },
      ],
    },
    { name: 'steady state: nothing', input: [s(0, 'm2', 5), s(1000, 'm2', 5), s(2000, 'm2', 5)], want: [{ kind: 'elected', term: '5', leader: 'm2' }] },
  ];
  for (const c of cases) it(c.name, () => expect(run(c.input)).toEqual(c.want));
});

describe('leaderSample', () => {
  const names = new Map([['11', 'm1'], ['22', 'm2'], ['33', 'm3']]);
  const nameOf = (id: string) => names.get(id);
  it('takes the leader named at the highest term (an isolated old leader is outvoted)', () => {
    const st = [
      { leader: '11', raftTerm: '2' },
      { leader: '22', raftTerm: '3' },
      { leader: '22', raftTerm: '3' },
    ];
    expect(leaderSample(5, st, nameOf)).toEqual({ at: 5, leader: 'm2', term: '3' });
  });
  it('no leader: the highest term seen', () => {
    expect(leaderSample(5, [{ leader: '0', raftTerm: '7' }, { leader: '0', raftTerm: '8' }], nameOf)).toEqual({ at: 5, term: '8' });
  });
  it('no answers at all', () => {
    expect(leaderSample(5, [], nameOf)).toEqual({ at: 5, term: '0' });
  });
});

describe('leader history file', () => {
  let dir: string | undefined;
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('survives a restart of the console and stays bounded on disk', () => {
    dir = mkdtempSync(join(tmpdir(), 'ph-timeline-'));
    const file = join(dir, 'console', 'leader-history.jsonl');
    const seen: LeaderEvent[] = [];
    const t = new LeaderTimeline(file, (e) => seen.push(e), 3);
    const leaders = ['m1', 'm2', 'm3', 'm1', 'm2', 'm3', 'm1'];
    leaders.forEach((l, i) => t.observe(s(i * 1000, l, i + 2)));
    expect(seen).toHaveLength(7);
    expect(t.list().map((e) => e.leader)).toEqual(['m2', 'm3', 'm1']);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.length).toBeLessThan(6); // rewritten to the newest 3 once it reached 6
    const again = new LeaderTimeline(file, undefined, 3);
    expect(again.list()).toEqual(t.list());
  });

  it('skips a torn last line', () => {
    dir = mkdtempSync(join(tmpdir(), 'ph-timeline-'));
    const file = join(dir, 'h.jsonl');
    writeFileSync(file, `${JSON.stringify({ at: 'x', kind: 'elected', term: '2', leader: 'm1' })}\n{"at":"y","ki`);
    expect(new LeaderTimeline(file).list()).toEqual([{ at: 'x', kind: 'elected', term: '2', leader: 'm1' }]);
  });
});

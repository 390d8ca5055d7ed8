import { describe, expect, it } from 'vitest';
import { RingBuffer } from '../../../renderer/src/lib/ringBuffer';
import { lineDiff, splitLines } from '../../../renderer/src/lib/lineDiff';
import { SequenceMatcher } from '../../../renderer/src/lib/shortcuts';
import { matchesWatchFilter, emptyWatchFilter, isFilterEmpty } from '../../../renderer/src/lib/watchFilter';
import { actionEnabled, previewCommand } from '../../../renderer/src/lib/commandPreview';
import { leaderSpans, totalGapMs } from '../../../renderer/src/lib/leaderTimeline';
import { formatBytes, formatMs } from '../../../renderer/src/lib/format';
import { memberStyle } from '../../../renderer/src/lib/stateStyle';
import { FrameBatcher } from '../../../renderer/src/lib/frameBatcher';
import type { LeaderEvent, WatchEventRecord } from '../../../preload/contract';

describe('RingBuffer', () => {
  const cases = [
    { name: 'under capacity keeps all', cap: 3, push: [1, 2], want: [1, 2], evicted: 0 },
    { name: 'exactly full', cap: 3, push: [1, 2, 3], want: [1, 2, 3], evicted: 0 },
    { name: 'over capacity drops oldest', cap: 3, push: [1, 2, 3, 4, 5], want: [3, 4, 5], evicted: 2 },
    { name: 'many laps', cap: 2, push: [1, 2, 3, 4, 5, 6, 7], want: [6, 7], evicted: 5 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = new RingBuffer<number>(c.cap);
      expect(r.pushAll(c.push)).toBe(c.evicted);
      expect(r.toArray()).toEqual(c.want);
      expect(r.oldest()).toBe(c.want[0]);
      expect(r.newest()).toBe(c.want[c.want.length - 1]);
      expect(r.totalPushed).toBe(c.push.length);
    });
  }
  it('rejects a non-positive capacity', () => {
    expect(() => new RingBuffer(0)).toThrow(RangeError);
  });
  it('at() is bounds-checked and clear() empties', () => {
    const r = new RingBuffer<string>(2);
    r.push('a', 'b', 'c');
    expect([r.at(-1), r.at(0), r.at(1), r.at(2)]).toEqual([undefined, 'b', 'c', undefined]);
    r.clear();
    expect(r.size).toBe(0);
    expect(r.oldest()).toBeUndefined();
  });
});

describe('lineDiff', () => {
  const cases = [
    { name: 'identical', a: 'x\ny\n', b: 'x\ny\n', want: ['  x', '  y'] },
    { name: 'all new (no previous)', a: '', b: 'a\nb', want: ['+ a', '+ b'] },
    { name: 'deleted object', a: 'a\nb', b: '', want: ['- a', '- b'] },
    { name: 'one changed line', a: 'k: 1\nv: 2\nz: 3', b: 'k: 1\nv: 9\nz: 3', want: ['  k: 1', '- v: 2', '+ v: 9', '  z: 3'] },
    { name: 'insert in the middle', a: 'a\nc', b: 'a\nb\nc', want: ['  a', '+ b', '  c'] },
    { name: 'lcs keeps the common middle', a: 'a\nb\nc\nd', b: 'x\nb\nc\ny', want: ['- a', '+ x', '  b', '  c', '- d', '+ y'] },
  ];
  const show = (l: { op: string; text: string }) => `${l.op === 'same' ? ' ' : l.op === 'add' ? '+' : '-'} ${l.text}`;
  for (const c of cases) it(c.name, () => expect(lineDiff(c.a, c.b).map(show)).toEqual(c.want));

  it('splitLines drops only the final empty line', () => {
    expect(splitLines('a\n\nb\n')).toEqual(['a', '', 'b']);
  });
  it('a huge changed middle degrades to delete-all/add-all instead of O(n·m)', () => {
    const a = Array.from({ length: 3000 }, (_, i) => `a${i}`).join('\n');
    const b = Array.from({ length: 3000 }, (_, i) => `b${i}`).join('\n');
    const d = lineDiff(a, b);
    expect(d.length).toBe(6000);
    expect(d[0].op).toBe('del');
    expect(d[5999].op).toBe('add');
  });
});

describe('SequenceMatcher', () => {
  const m = () => new SequenceMatcher([{ keys: 'g o', action: 'overview' }, { keys: 'g m', action: 'members' }, { keys: '1', action: 'overview' }, { keys: '?', action: 'help' }], 1000);
  const cases = [
    { name: 'two-key sequence', keys: ['g', 'o'], want: [undefined, 'overview'] },
    { name: 'single key', keys: ['1'], want: ['overview'] },
    { name: 'unknown second key resets', keys: ['g', 'x', 'o'], want: [undefined, undefined, undefined] },
    { name: 'a new g restarts the sequence', keys: ['g', 'g', 'm'], want: [undefined, undefined, 'members'] },
    { name: 'a stray key then a single-key binding', keys: ['x', '?'], want: [undefined, 'help'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const matcher = m();
      expect(c.keys.map((k, i) => matcher.feed(k, i * 10))).toEqual(c.want);
    });
  }
  it('a pause longer than the timeout forgets the prefix', () => {
    const matcher = m();
    expect(matcher.feed('g', 0)).toBeUndefined();
    expect(matcher.partial).toBe('g');
    expect(matcher.feed('o', 5000)).toBeUndefined();
  });
});

describe('matchesWatchFilter', () => {
  const e: WatchEventRecord = { seq: 1, source: 'etcd', type: 'PUT', key: '/registry/pods/default/web-1', revision: '7', resource: 'pods', namespace: 'default', name: 'web-1', at: '2026-01-01T00:00:00Z', size: 10 };
  const cases = [
    { name: 'empty filter matches', f: {}, want: true },
    { name: 'resource exact', f: { resource: 'pods' }, want: true },
    { name: 'other resource', f: { resource: 'deployments' }, want: false },
    { name: 'namespace', f: { namespace: 'kube-system' }, want: false },
    { name: 'type', f: { type: 'DELETE' }, want: false },
    { name: 'name substring', f: { name: 'web' }, want: true },
    { name: 'name no match', f: { name: 'db' }, want: false },
    { name: 'key prefix', f: { keyPrefix: '/registry/pods/' }, want: true },
    { name: 'key prefix no match', f: { keyPrefix: '/registry/services/' }, want: false },
    { name: 'all together', f: { resource: 'pods', namespace: 'default', type: 'PUT', name: '-1', keyPrefix: '/registry' }, want: true },
  ];
  for (const c of cases) it(c.name, () => expect(matchesWatchFilter(e, { ...emptyWatchFilter(), ...c.f })).toBe(c.want));
  it('an event without a parsed name never matches a name filter', () => {
    expect(matchesWatchFilter({ ...e, name: undefined }, { ...emptyWatchFilter(), name: 'x' })).toBe(false);
    expect(isFilterEmpty(emptyWatchFilter())).toBe(true);
  });
});

describe('previewCommand', () => {
  const member = { name: 'm2', id: '8e9e05c52164694d', endpoint: 'http://127.0.0.1:2379' };
  const cases = [
    { action: 'defrag', want: 'etcdctl --endpoints=http://127.0.0.1:2379 defrag' },
    { action: 'make-leader', want: 'etcdctl --endpoints=http://127.0.0.1:2479 move-leader 8e9e05c52164694d' },
    { action: 'kill', want: 'kill -KILL 4242   # m2' },
    { action: 'pause', want: 'kill -STOP 4242   # m2' },
    { action: 'resume', want: 'kill -CONT 4242   # m2' },
    { action: 'stop', want: 'kill -TERM 4242   # m2' },
  ] as const;
  for (const c of cases) it(c.action, () => expect(previewCommand(c.action, { member, pid: 4242, leaderEndpoint: 'http://127.0.0.1:2479' })).toBe(c.want));
  it('placeholders when the pid or leader is unknown', () => {
    expect(previewCommand('kill', { member })).toBe('kill -KILL <pid>   # m2');
    expect(previewCommand('make-leader', { member })).toContain('<leader endpoint>');
  });
});

describe('actionEnabled', () => {
  const cases = [
    { name: 'start only when stopped', action: 'start', m: { process: 'running', isLeader: false, healthy: true }, want: false },
    { name: 'start a crashed member', action: 'start', m: { process: 'crashed', isLeader: false, healthy: false }, want: true },
    { name: 'resume only when paused', action: 'resume', m: { process: 'paused', isLeader: false, healthy: false }, want: true },
    { name: 'no make-leader on the leader', action: 'make-leader', m: { process: 'running', isLeader: true, healthy: true }, want: false },
    { name: 'make-leader on a healthy follower', action: 'make-leader', m: { process: 'running', isLeader: false, healthy: true }, want: true },
    { name: 'no kill of a stopped member', action: 'kill', m: { process: 'stopped', isLeader: false, healthy: false }, want: false },
    { name: 'external member (no process): healthy counts as running', action: 'defrag', m: { isLeader: false, healthy: true }, want: true },
  ] as const;
  for (const c of cases) it(c.name, () => expect(actionEnabled(c.action, c.m)).toBe(c.want));
});

describe('leaderSpans', () => {
  const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  const base = Date.UTC(2026, 0, 1);
  const events: LeaderEvent[] = [
    { at: t(0), kind: 'elected', term: '2', leader: 'm1' },
    { at: t(10), kind: 'lost', term: '2', previousLeader: 'm1' },
    { at: t(12), kind: 'elected', term: '3', leader: 'm2', previousLeader: 'm1', leaderlessMs: 2000 },
    { at: t(20), kind: 'changed', term: '4', leader: 'm3', previousLeader: 'm2' },
  ];
  it('spans per leader, the gap between lost and elected, open span closed at now', () => {
    const { spans, gaps } = leaderSpans(events, base + 30_000);
    expect(spans.map((s) => [s.leader, s.term, (s.from - base) / 1000, (s.to - base) / 1000])).toEqual([
      ['m1', '2', 0, 10],
      ['m2', '3', 12, 20],
      ['m3', '4', 20, 30],
    ]);
    expect(gaps.map((g) => [(g.from - base) / 1000, (g.to - base) / 1000])).toEqual([[10, 12]]);
    expect(totalGapMs(gaps)).toBe(2000);
  });
  it('uses leaderlessMs when the loss itself was not observed', () => {
    const { gaps } = leaderSpans([{ at: t(5), kind: 'elected', term: '9', leader: 'm1', leaderlessMs: 1500 }], base + 6000);
    expect(gaps.map((g) => [g.from - base, g.to - base])).toEqual([[3500, 5000]]);
  });
  it('a trailing loss is an open gap up to now', () => {
    const { spans, gaps } = leaderSpans([{ at: t(0), kind: 'no-leader', term: '1' }], base + 4000);
    expect(spans).toEqual([]);
    expect(totalGapMs(gaps)).toBe(4000);
  });
});

describe('format and state styles', () => {
  const bytes = [
    { n: 0, want: '0 B' },
    { n: 1023, want: '1023 B' },
    { n: 1536, want: '1.50 KiB' },
    { n: 25 * 1024 * 1024, want: '25.0 MiB' },
  ];
  for (const c of bytes) it(`formatBytes(${c.n})`, () => expect(formatBytes(c.n)).toBe(c.want));
  const ms = [
    { n: 0.5, want: '0.50 ms' },
    { n: 412.4, want: '412 ms' },
    { n: 1534, want: '1.53 s' },
    { n: 125_000, want: '2 min 5 s' },
  ];
  for (const c of ms) it(`formatMs(${c.n})`, () => expect(formatMs(c.n)).toBe(c.want));
  it('a paused member shows paused (shape ‖) even if its last probe was healthy', () => {
    expect(memberStyle({ healthy: true, process: 'paused', errors: [] })).toMatchObject({ tone: 'warn', icon: '‖' });
    expect(memberStyle({ healthy: false, process: 'running', errors: [] })).toMatchObject({ tone: 'bad', icon: '✕' });
    expect(memberStyle({ healthy: true, errors: ['x'] })).toMatchObject({ tone: 'warn', icon: '▲' });
  });
});

describe('FrameBatcher', () => {
  it('coalesces every add before the frame into one flush', () => {
    const frames: (() => void)[] = [];
    const flushed: number[][] = [];
    const b = new FrameBatcher<number>((items) => flushed.push(items), (run) => frames.push(run));
    b.add([1, 2]);
    b.add([3]);
    b.add([]);
    expect(frames.length).toBe(1);
    expect(b.pending).toBe(3);
    frames.shift()!();
    expect(flushed).toEqual([[1, 2, 3]]);
    b.add([4]);
    frames.shift()!();
    expect(flushed).toEqual([[1, 2, 3], [4]]);
  });
});

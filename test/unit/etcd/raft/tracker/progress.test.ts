import { describe, expect, it } from 'vitest';
import { Progress } from '../../../../../main/etcd/raft/tracker/progress';
import { ProgressState } from '../../../../../main/etcd/raft/types';

function progress(state: ProgressState, match: number, next: number): Progress {
  const p = new Progress(next, 4, false, match);
  if (state === ProgressState.Replicate) p.becomeReplicate();
  if (state === ProgressState.Snapshot) p.becomeSnapshot(10);
  p.match = match;
  p.next = next;
  return p;
}

describe('Progress.maybeDecrTo', () => {
  const cases = [
    // Replicate: a rejection at or below match is stale; otherwise fall back to match+1.
    { name: 'replicate stale', state: ProgressState.Replicate, match: 5, next: 10, rejected: 5, hint: 5, ok: false, wantNext: 10 },
    { name: 'replicate stale below', state: ProgressState.Replicate, match: 5, next: 10, rejected: 4, hint: 4, ok: false, wantNext: 10 },
    { name: 'replicate rejection', state: ProgressState.Replicate, match: 5, next: 10, rejected: 9, hint: 9, ok: true, wantNext: 6 },
    // Probe: only the rejection of next-1 counts; next jumps to min(rejected, hint+1).
    { name: 'probe stale', state: ProgressState.Probe, match: 0, next: 10, rejected: 5, hint: 5, ok: false, wantNext: 10 },
    { name: 'probe uses hint', state: ProgressState.Probe, match: 0, next: 10, rejected: 9, hint: 3, ok: true, wantNext: 4 },
    { name: 'probe hint beyond rejected', state: ProgressState.Probe, match: 0, next: 10, rejected: 9, hint: 20, ok: true, wantNext: 9 },
    { name: 'probe never below 1', state: ProgressState.Probe, match: 0, next: 1, rejected: 0, hint: 0, ok: true, wantNext: 1 },
  ];
  it.each(cases)('$name', ({ state, match, next, rejected, hint, ok, wantNext }) => {
    const p = progress(state, match, next);
    p.probeSent = true;
    expect(p.maybeDecrTo(rejected, hint)).toBe(ok);
    expect(p.next).toBe(wantNext);
    if (ok && state === ProgressState.Probe) expect(p.probeSent).toBe(false);
  });
});

describe('Progress state', () => {
  it('maybeUpdate moves match and next, and unpauses a probe', () => {
    const p = progress(ProgressState.Probe, 2, 3);
    p.probeSent = true;
    expect(p.isPaused()).toBe(true);
    expect(p.maybeUpdate(5)).toBe(true);
    expect([p.match, p.next, p.isPaused()]).toEqual([5, 6, false]);
    expect(p.maybeUpdate(4)).toBe(false);
    expect([p.match, p.next]).toEqual([5, 6]);
  });

  it('becomeProbe after a snapshot probes right after the snapshot', () => {
    const p = progress(ProgressState.Snapshot, 1, 2);
    p.becomeProbe();
    expect([p.state, p.next]).toEqual([ProgressState.Probe, 11]);
  });

  it('replicate pauses when the inflight window is full', () => {
    const p = progress(ProgressState.Replicate, 0, 1);
    for (let i = 1; i <= 4; i++) {
      expect(p.isPaused()).toBe(false);
      p.optimisticUpdate(i);
      p.inflights.add(i);
    }
    expect(p.isPaused()).toBe(true);
    p.inflights.freeLE(2);
    expect(p.isPaused()).toBe(false);
  });

  it('snapshot state is always paused', () => {
    expect(progress(ProgressState.Snapshot, 0, 1).isPaused()).toBe(true);
  });
});

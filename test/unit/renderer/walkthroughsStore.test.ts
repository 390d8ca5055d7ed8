import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import type { SnapshotInfo, WalkthroughRun } from '../../../preload/contract';
import { provideBridge } from '../../../renderer/src/stores/bridgeProvider';
import { useSnapshotsStore } from '../../../renderer/src/stores/snapshots';
import { actionsFor, gatedStep, mergeRun, stepPercent, useWalkthroughsStore } from '../../../renderer/src/stores/walkthroughs';
import { fakeBridge } from './fakeBridge';

function run(id: string, state: WalkthroughRun['state'], over: Partial<WalkthroughRun> = {}): WalkthroughRun {
  return {
    id, kind: 'backup', title: 'Back up etcd', params: {}, state, startedAt: `2026-12-03T10:00:0${id.slice(-1)}.000Z`,
    steps: [
      { id: 'a', title: 'A', why: 'w', command: 'etcdctl endpoint status', state: 'succeeded', output: [] },
      { id: 'b', title: 'B', why: 'w', command: 'rm -rf DIR', gate: 'confirm', state: state === 'failed' ? 'failed' : 'pending', output: [] },
    ],
    ...over,
  };
}

beforeEach(() => {
  setActivePinia(createPinia());
  provideBridge(undefined);
});

describe('walkthrough helpers', () => {
  it('keeps one version of each run, newest run first', () => {
    const list = mergeRun(mergeRun([run('r1', 'running')], run('r2', 'running')), run('r1', 'succeeded'));
    expect(list.map((r) => `${r.id}:${r.state}`)).toEqual(['r2:running', 'r1:succeeded']);
  });

  it('offers the actions a state allows', () => {
    const cases = [
      { state: 'running', want: ['pause', 'cancel'] },
      { state: 'paused', want: ['resume', 'cancel'] },
      { state: 'waiting', want: ['cancel', 'confirm'] },
      { state: 'failed', want: ['cancel', 'retry'] },
      { state: 'succeeded', want: [] },
      { state: 'cancelled', want: [] },
    ] as const;
    for (const c of cases) {
      const on = Object.entries(actionsFor(run('r1', c.state))).filter(([, v]) => v).map(([k]) => k).sort();
      expect(on, c.state).toEqual([...c.want].sort());
    }
  });

  it('names the gated step only while the run waits, and computes bar percentages', () => {
    expect(gatedStep(run('r1', 'waiting'))?.id).toBe('b');
    expect(gatedStep(run('r1', 'running'))).toBeUndefined();
    expect(stepPercent({ done: 5, total: 20 })).toBe(25);
    expect(stepPercent({ done: 30, total: 20 })).toBe(100);
    expect(stepPercent({ done: 5 })).toBeUndefined();
    expect(stepPercent(undefined)).toBeUndefined();
  });
});

describe('walkthroughs store', () => {
  it('loads kinds and runs, follows the stream, starts, acts and opens a report', async () => {
    const f = fakeBridge({
      walkthroughKinds: () => [{ kind: 'backup', title: 'Back up etcd', needsSnapshot: false, form: 'none', description: 'd' }],
      listWalkthroughs: () => [run('r1', 'succeeded')],
      startWalkthrough: (req) => run('r2', 'running', { kind: req.kind }),
      walkthroughAction: (req) => run(req.id, req.action === 'confirm' ? 'running' : 'paused'),
      walkthroughReport: (req) => ({ id: req.id, path: `/d/walkthroughs/${req.id}/report.md`, markdown: '# Back up etcd' }),
    });
    provideBridge(f.bridge);
    const s = useWalkthroughsStore();
    s.connect();
    s.connect();
    expect(f.listenerCount('walkthroughRun')).toBe(1);
    await s.load();
    expect(s.kinds.map((k) => k.kind)).toEqual(['backup']);
    expect(s.selected).toBeNull(); // nothing running, nothing chosen
    const started = await s.start('backup');
    expect(started?.id).toBe('r2');
    expect(s.selected?.id).toBe('r2');
    f.emit('walkthroughRun', run('r2', 'waiting'));
    expect(s.selected?.state).toBe('waiting');
    // the stream overtakes the action's reply: the newer state stays
    f.emit('walkthroughRun', run('r2', 'cancelled'));
    await s.act('r2', 'cancel');
    expect(f.calls.at(-1)).toEqual({ name: 'walkthroughAction', args: [{ id: 'r2', action: 'cancel' }] });
    expect(s.selected?.state).toBe('cancelled');
    expect(s.runs.map((r) => r.id)).toEqual(['r2', 'r1']);
    await s.openReport('r1');
    expect(s.report?.markdown).toBe('# Back up etcd');
    s.closeReport();
    expect(s.report).toBeNull();
    s.disconnect();
    expect(f.listenerCount('walkthroughRun')).toBe(0);
  });

  it('shows a refusal as the action error', async () => {
    provideBridge(fakeBridge({ startWalkthrough: () => { throw new Error('Restore drill needs a snapshot: pick one'); } }).bridge);
    const s = useWalkthroughsStore();
    expect(await s.start('drill')).toBeUndefined();
    expect(s.actionError).toBe('Restore drill needs a snapshot: pick one');
  });

  it('the snapshots store re-reads the list once each time a run ends', async () => {
    let lists = 0;
    const snap: SnapshotInfo = { name: 'a.db', path: '/d/snapshots/a.db', size: 1, revision: '5', totalKeys: 3, hash: 'ab', createdAt: '2026-12-03T10:00:00.000Z' };
    const f = fakeBridge({ listSnapshots: () => (lists++, [snap]) });
    provideBridge(f.bridge);
    const s = useSnapshotsStore();
    s.connect();
    f.emit('walkthroughRun', run('r1', 'running'));
    f.emit('walkthroughRun', run('r1', 'succeeded'));
    f.emit('walkthroughRun', run('r1', 'succeeded'));
    await new Promise((r) => setTimeout(r, 10));
    expect(lists).toBe(1);
    expect(s.snapshots.map((x) => x.name)).toEqual(['a.db']);
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import type { FeedStatus, MemberStatus, SnapshotInfo, TraceRecord, WatchEventRecord } from '../../../preload/contract';
import { provideBridge } from '../../../renderer/src/stores/bridgeProvider';
import { firstAtOrAfter, useWatchEventsStore, WATCH_CAPACITY } from '../../../renderer/src/stores/watchEvents';
import { TRACE_CAPACITY, useAdmissionStore } from '../../../renderer/src/stores/admission';
import { mergeRestoreStep, useSnapshotsStore } from '../../../renderer/src/stores/snapshots';
import { useMembersStore } from '../../../renderer/src/stores/members';
import { useLeaderStore } from '../../../renderer/src/stores/leader';
import { useTerminalsStore } from '../../../renderer/src/stores/terminals';
import { LOG_CAPACITY, useLogsStore } from '../../../renderer/src/stores/logs';
import { useOverviewStore } from '../../../renderer/src/stores/overview';
import { fakeBridge } from './fakeBridge';

const nextFrame = () => new Promise((r) => setTimeout(r, 40)); // no rAF under Node: the batcher uses a 16 ms timer

function ev(seq: number, over: Partial<WatchEventRecord> = {}): WatchEventRecord {
  const ns = seq % 2 === 0 ? 'default' : 'kube-system';
  const resource = seq % 3 === 0 ? 'deployments' : 'pods';
  return { seq, source: 'etcd', type: 'PUT', key: `/registry/${resource}/${ns}/obj-${seq}`, revision: String(seq + 100), resource, namespace: ns, name: `obj-${seq}`, at: new Date(1_700_000_000_000 + seq).toISOString(), size: 5, ...over };
}
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => ev(from + i));

beforeEach(() => {
  setActivePinia(createPinia());
  provideBridge(undefined);
});

describe('watchEvents store', () => {
  it('loads recent events, then streams batches folded in once per frame, skipping duplicates', async () => {
    const f = fakeBridge({ recentWatchEvents: ({ limit }) => range(1, Math.min(limit, 10)) });
    provideBridge(f.bridge);
    const s = useWatchEventsStore();
    s.connect();
    s.connect(); // idempotent
    expect(f.listenerCount('watchEvents')).toBe(1);
    await s.load();
    expect(s.visible.map((e) => e.seq)).toEqual(range(1, 10).map((e) => e.seq));
    f.emit('watchEvents', range(8, 5)); // 8..12: 8–10 already seen
    f.emit('watchEvents', range(13, 2));
    expect(s.received).toBe(10); // not yet: waits for the frame
    await nextFrame();
    expect(s.received).toBe(14);
    expect(s.visible.map((e) => e.seq).slice(-5)).toEqual([10, 11, 12, 13, 14]);
    expect(s.resources).toEqual(['deployments', 'pods']);
    expect(s.namespaces).toEqual(['default', 'kube-system']);
  });

  it('filters incrementally and rebuilds from the ring when the filter changes', () => {
    provideBridge(fakeBridge({}).bridge);
    const s = useWatchEventsStore();
    s.ingest(range(1, 30));
    s.setFilter({ resource: 'deployments' });
    expect(s.visible.map((e) => e.seq)).toEqual([3, 6, 9, 12, 15, 18, 21, 24, 27, 30]);
    s.ingest(range(31, 6)); // 33 and 36 are deployments
    expect(s.visible.slice(-2).map((e) => e.seq)).toEqual([33, 36]);
    s.setFilter({ namespace: 'default', type: 'PUT' });
    expect(s.visible.every((e) => e.resource === 'deployments' && e.namespace === 'default')).toBe(true);
    s.clearFilter();
    expect(s.visible.length).toBe(36);
  });

  it(`keeps at most ${WATCH_CAPACITY} events: the ring evicts the oldest and the filtered list follows`, () => {
    provideBridge(fakeBridge({}).bridge);
    const s = useWatchEventsStore();
    const batch = 10_000;
    for (let i = 0; i < 12; i++) s.ingest(range(1 + i * batch, batch)); // 120,000
    expect(s.received).toBe(120_000);
    expect(s.kept).toBe(WATCH_CAPACITY);
    expect(s.visible.length).toBe(WATCH_CAPACITY);
    expect(s.visible[0].seq).toBe(20_001);
    expect(s.visible[s.visible.length - 1].seq).toBe(120_000);
    s.setFilter({ resource: 'deployments' });
    const n = s.visible.length;
    s.ingest(range(120_001, 3)); // evicts 20001..20003, one of them (20001? no: 20004−1 = 20003) is a deployment
    expect(s.visible[0].seq).toBeGreaterThanOrEqual(20_004);
    expect(s.visible.length).toBe(n); // one deployment in, one out
  });

  it('pause freezes the list but keeps counting; resume shows everything that arrived', () => {
    provideBridge(fakeBridge({}).bridge);
    const s = useWatchEventsStore();
    s.ingest(range(1, 5));
    s.pause();
    s.ingest(range(6, 7));
    expect(s.visible.length).toBe(5);
    expect(s.arrivedWhilePaused).toBe(7);
    s.resume();
    expect(s.visible.length).toBe(12);
    expect(s.arrivedWhilePaused).toBe(0);
  });

  it('select fetches the detail; a missing one explains why; a stale answer is ignored', async () => {
    let release: (() => void) | undefined;
    const f = fakeBridge({
      watchEventDetail: async ({ seq }) => {
        if (seq === 1) await new Promise<void>((r) => (release = r));
        return seq === 3 ? null : { seq, yaml: `v: ${seq}\n`, previousYaml: '', encoding: 'json' };
      },
    });
    provideBridge(f.bridge);
    const s = useWatchEventsStore();
    s.ingest(range(1, 3));
    const slow = s.select(1);
    await s.select(2);
    release!();
    await slow;
    expect(s.selectedSeq).toBe(2);
    expect(s.detail?.yaml).toBe('v: 2\n');
    expect(s.selected?.seq).toBe(2);
    await s.select(3);
    expect(s.detail).toBeNull();
    expect(s.detailError).toMatch(/no longer hold/);
  });

  it('a feed that starts over (seq back to 1, other events) clears the list instead of dropping the new events', () => {
    provideBridge(fakeBridge({}).bridge);
    const s = useWatchEventsStore();
    s.ingest(range(1, 50));
    s.ingest(range(40, 5)); // true duplicates: ignored, no restart
    expect(s.feedRestarts).toBe(0);
    expect(s.received).toBe(50);
    s.ingest([ev(1, { key: '/restored/a', revision: '9' }), ev(2, { key: '/restored/b', revision: '10' })]);
    expect(s.feedRestarts).toBe(1);
    expect(s.visible.map((e) => e.key)).toEqual(['/restored/a', '/restored/b']);
    s.ingest(range(3, 2));
    expect(s.visible.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  it('firstAtOrAfter is a lower bound on seq', () => {
    const arr = [ev(2), ev(4), ev(6)];
    expect([1, 2, 3, 6, 7].map((x) => firstAtOrAfter(arr, x))).toEqual([0, 0, 1, 2, 3]);
  });

  it('a failed load is an error state, not an exception', async () => {
    provideBridge(fakeBridge({ recentWatchEvents: () => { throw new Error('socket closed'); } }).bridge);
    const s = useWatchEventsStore();
    await s.load();
    expect(s.error).toBe('socket closed');
    expect(s.loaded).toBe(false);
  });
});

function trace(id: string, over: Partial<TraceRecord> = {}): TraceRecord {
  return { id, receivedAt: '2026-01-01T00:00:00Z', user: 'admin', verb: 'create', method: 'POST', path: '/api/v1/namespaces/default/pods', decision: 'allowed', code: 201, latencyMs: 3, stages: [{ stage: 'authentication', verdict: 'allowed', latencyMs: 0.1 }], ...over };
}

describe('admission store', () => {
  it('filters by denied, user and stage; newest first; bounded', async () => {
    const f = fakeBridge({ recentTraces: () => [trace('a'), trace('b', { user: 'alice', decision: 'denied', code: 403, stages: [{ stage: 'validating:PodSecurity', verdict: 'denied', latencyMs: 1 }] })] });
    provideBridge(f.bridge);
    const s = useAdmissionStore();
    s.connect();
    await s.load();
    f.emit('traces', [trace('b'), trace('c', { user: 'bob' })]);
    await nextFrame();
    expect(s.filtered.map((t) => t.id)).toEqual(['c', 'b', 'a']);
    expect(s.users).toEqual(['admin', 'alice', 'bob']);
    expect(s.stages).toEqual(['authentication', 'validating:PodSecurity']);
    s.setFilter({ deniedOnly: true });
    expect(s.filtered.map((t) => t.id)).toEqual(['b']);
    s.setFilter({ deniedOnly: false, user: 'bob' });
    expect(s.filtered.map((t) => t.id)).toEqual(['c']);
    s.setFilter({ user: '', stage: 'validating:PodSecurity' });
    expect(s.filtered.map((t) => t.id)).toEqual(['b']);
    expect(s.deniedCount).toBe(1);
    s.setFilter({ stage: '' });
    s.ingest([trace('probe', { path: '/readyz', verb: 'get' }), trace('probe2', { path: '/livez?verbose', verb: 'get' }), trace('notprobe', { path: '/readyzz' })]);
    expect(s.filtered.map((t) => t.id)).toEqual(['notprobe', 'c', 'b', 'a']);
    s.setFilter({ hideProbes: false });
    expect(s.filtered.map((t) => t.id)).toEqual(['notprobe', 'probe2', 'probe', 'c', 'b', 'a']);
    s.ingest(Array.from({ length: TRACE_CAPACITY + 10 }, (_, i) => trace(`x${i}`)));
    expect(s.traces.length).toBe(TRACE_CAPACITY);
    expect(s.traces[s.traces.length - 1].id).toBe(`x${TRACE_CAPACITY + 9}`);
  });
});

describe('feed status in the watch and admission stores', () => {
  const status = (notes: string[]): FeedStatus => ({
    watch: { sources: ['kubernetes'], resources: ['configmaps in team-a'], notes },
    admission: { source: 'none', notes: ["request traces exist only for Pilothouse's own API server; give the API server's audit log path to see its requests here"] },
  });

  it('load() fetches it, the feedStatus stream replaces it, and services without the call leave it null', async () => {
    const f = fakeBridge({ recentWatchEvents: () => [], recentTraces: () => [], feedStatus: () => status(['cannot watch secrets: forbidden (x)']) });
    provideBridge(f.bridge);
    const w = useWatchEventsStore();
    const a = useAdmissionStore();
    w.connect();
    a.connect();
    await Promise.all([w.load(), a.load()]);
    await nextFrame();
    expect(w.status).toEqual(status(['cannot watch secrets: forbidden (x)']).watch);
    expect(a.status?.source).toBe('none');
    f.emit('feedStatus', status([]));
    expect(w.status?.notes).toEqual([]);
    w.disconnect();
    expect(f.listenerCount('feedStatus')).toBe(1); // the admission store's
  });

  it('an older services host without feedStatus: no status, no error', async () => {
    provideBridge(fakeBridge({ recentWatchEvents: () => [] }).bridge);
    const w = useWatchEventsStore();
    await w.load();
    await nextFrame();
    expect(w.status).toBeNull();
    expect(w.error).toBe('');
  });
});

describe('snapshots store', () => {
  const snap = (name: string, createdAt: string): SnapshotInfo => ({ name, path: `/d/snapshots/${name}`, size: 1000, revision: '42', totalKeys: 7, hash: 'abc', createdAt });

  it('take → progress → done refreshes the list; another job’s progress is ignored', async () => {
    let list = [snap('old.db', '2026-01-01T00:00:00Z')];
    const f = fakeBridge({ listSnapshots: () => list, takeSnapshot: () => ({ jobId: 'j1' }) });
    provideBridge(f.bridge);
    const s = useSnapshotsStore();
    s.connect();
    await s.refresh();
    await s.take();
    expect(s.job).toMatchObject({ jobId: 'j1', state: 'running' });
    f.emit('snapshotProgress', { jobId: 'j1', bytes: 250, totalBytes: 1000, state: 'running' });
    expect(s.percent).toBe(25);
    f.emit('snapshotProgress', { jobId: 'other', bytes: 999, totalBytes: 1000, state: 'running' });
    expect(s.percent).toBe(25);
    list = [...list, snap('new.db', '2026-01-02T00:00:00Z')];
    f.emit('snapshotProgress', { jobId: 'j1', bytes: 1000, totalBytes: 1000, state: 'done', snapshot: list[1] });
    await nextFrame();
    expect(s.percent).toBe(100);
    expect(s.snapshots.map((x) => x.name)).toEqual(['new.db', 'old.db']);
  });

  it('restore collects steps and ends with the new cluster id and key count', async () => {
    const f = fakeBridge({ restoreSnapshot: () => ({ started: true }), listSnapshots: () => [] });
    provideBridge(f.bridge);
    const s = useSnapshotsStore();
    s.connect();
    await s.restore('a.db');
    expect(s.restoring).toBe('a.db');
    expect(s.restoredFrom).toBe('a.db');
    f.emit('restoreProgress', { step: 'stop members', state: 'running' });
    f.emit('restoreProgress', { step: 'stop members', state: 'done' });
    f.emit('restoreProgress', { step: 'restart', state: 'done', clusterId: 'cdf818194e3a8c32', keys: 7 });
    expect(s.restoreSteps.map((x) => `${x.step}:${x.state}`)).toEqual(['stop members:done', 'restart:done']);
    expect(s.restoreDone?.clusterId).toBe('cdf818194e3a8c32');
    expect(s.restoring).toBeNull();
  });

  it('a failed take or a refused restore is shown', async () => {
    provideBridge(fakeBridge({ takeSnapshot: () => { throw new Error('no leader'); }, restoreSnapshot: () => ({ started: false }) }).bridge);
    const s = useSnapshotsStore();
    await s.take();
    expect(s.takeError).toBe('no leader');
    await s.restore('x.db');
    expect(s.restoreError).toMatch(/did not start/);
    expect(mergeRestoreStep([], { step: 'a', state: 'running' })).toEqual([{ step: 'a', state: 'running' }]);
  });
});

describe('members store', () => {
  const m = (name: string, isLeader: boolean): MemberStatus => ({ name, id: '1', endpoint: 'e', healthy: true, isLeader, isLearner: false, leader: '1', raftTerm: '2', raftIndex: '9', raftAppliedIndex: '9', dbSize: 1, dbSizeInUse: 1, version: '3.4.0', alarms: [], errors: [], checkedAt: '' });
  it('runs an action, records its outcome (with the command) and re-probes', async () => {
    const f = fakeBridge({ members: () => [m('m1', true), m('m2', false)], memberAction: ({ member, action }) => ({ ok: true, message: `${action} ${member}`, command: 'etcdctl defrag' }) });
    provideBridge(f.bridge);
    const s = useMembersStore();
    const r = await s.act('m2', 'defrag');
    expect(r.ok).toBe(true);
    expect(s.outcomes.m2).toMatchObject({ action: 'defrag', result: { command: 'etcdctl defrag' } });
    expect(s.members.length).toBe(2);
    expect(s.running).toEqual([]);
    expect(f.calls.map((c) => c.name)).toEqual(['memberAction', 'members']);
  });
  it('a rejected action becomes a failed outcome', async () => {
    provideBridge(fakeBridge({ members: () => [], memberAction: () => { throw new Error('member m9 not found'); } }).bridge);
    const s = useMembersStore();
    expect((await s.act('m9', 'kill')).message).toBe('member m9 not found');
  });
});

describe('leader store', () => {
  it('tracks the current leader from the stream and runs the experiment', async () => {
    const f = fakeBridge({
      leaderTimeline: () => [{ at: '2026-01-01T00:00:00Z', kind: 'elected', term: '2', leader: 'm1' }],
      killLeaderExperiment: () => ({ killed: 'm1', oldTerm: '2', newLeader: 'm3', newTerm: '3', failoverMs: 1234, restarted: true }),
    });
    provideBridge(f.bridge);
    const s = useLeaderStore();
    s.connect();
    await s.load();
    expect(s.current?.leader).toBe('m1');
    f.emit('leaderEvent', { at: '2026-01-01T00:00:05Z', kind: 'lost', term: '2', previousLeader: 'm1' });
    expect(s.current).toBeUndefined();
    const r = await s.killLeader();
    expect(r?.failoverMs).toBe(1234);
    expect(s.experiment?.newLeader).toBe('m3');
    expect(s.experimentRunning).toBe(false);
  });
});

describe('terminals store', () => {
  it('buffers output until an xterm attaches, routes per id, marks exits', async () => {
    const f = fakeBridge({
      openTerminal: () => ({ id: 't1', title: 'bash', missingTools: ['kubectl: apt-get install kubectl'] }),
      terminalInput: () => undefined,
      closeTerminal: () => undefined,
    });
    provideBridge(f.bridge);
    const s = useTerminalsStore();
    s.connect();
    await s.open(80, 24);
    expect(s.activeId).toBe('t1');
    f.emit('terminalData', { id: 't1', data: 'hello ' });
    const got: string[] = [];
    const detach = s.attach('t1', (d) => got.push(d));
    f.emit('terminalData', { id: 't1', data: 'world' });
    f.emit('terminalData', { id: 't2', data: 'not mine' });
    expect(got).toEqual(['hello ', 'world']);
    s.input('t1', 'ls\r');
    f.emit('terminalExit', { id: 't1', code: 0 });
    expect(s.tabs[0].exitCode).toBe(0);
    detach();
    await s.close('t1');
    expect(s.tabs).toEqual([]);
    expect(s.activeId).toBeNull();
    expect(f.calls.map((c) => c.name)).toEqual(['openTerminal', 'terminalInput', 'closeTerminal']);
  });
});

describe('logs store', () => {
  it('loads history for a component and appends only its matching live lines, bounded', async () => {
    const f = fakeBridge({
      logComponents: () => ['m1', 'm2'],
      logs: ({ component }) => [{ component, seq: 1, at: '', stream: 'stdout', text: 'started' }],
    });
    provideBridge(f.bridge);
    const s = useLogsStore();
    s.connect();
    await s.loadComponents();
    expect(s.component).toBe('m1');
    await s.load();
    f.emit('logLines', [
      { component: 'm1', seq: 2, at: '', stream: 'stderr', text: 'Warning: slow fdatasync' },
      { component: 'm2', seq: 3, at: '', stream: 'stdout', text: 'other member' },
      { component: 'm1', seq: 1, at: '', stream: 'stdout', text: 'duplicate' },
    ]);
    await nextFrame();
    expect(s.lines.map((l) => l.text)).toEqual(['started', 'Warning: slow fdatasync']);
    s.search = 'WARN';
    s.ingest([{ component: 'm1', seq: 4, at: '', stream: 'stdout', text: 'no match' }, { component: 'm1', seq: 5, at: '', stream: 'stdout', text: 'warning again' }]);
    expect(s.lines.map((l) => l.seq)).toEqual([1, 2, 5]);
    s.search = '';
    s.ingest(Array.from({ length: LOG_CAPACITY }, (_, i) => ({ component: 'm1', seq: 10 + i, at: '', stream: 'stdout' as const, text: 'x' })));
    expect(s.lines.length).toBe(LOG_CAPACITY);
    expect(f.calls.find((c) => c.name === 'logs')?.args[0]).toEqual({ component: 'm1', search: undefined, limit: 2000 });
  });
});

describe('overview store', () => {
  it('loads once, then follows the overview stream; pidOf reads the supervisor state', async () => {
    const o = { mode: 'embedded' as const, components: [{ id: 'm1', kind: 'etcd' as const, state: 'running' as const, pid: 77, restarts: 0 }], members: [], summary: 'starting', health: 'starting' as const };
    const f = fakeBridge({ overview: () => o, startupProgress: () => [{ id: 'pki', label: 'PKI', state: 'running' }], version: () => ({ pilothouse: '0.1.0', commit: '1a2b3c4', runtime: 'web', versions: {} }) });
    provideBridge(f.bridge);
    const s = useOverviewStore();
    s.connect();
    await s.load();
    expect(s.starting).toBe(true);
    expect(s.pidOf('m1')).toBe(77);
    f.emit('overview', { ...o, health: 'healthy', summary: 'healthy: 3/3 members' });
    f.emit('startupProgress', [{ id: 'pki', label: 'PKI', state: 'done' }]);
    expect(s.overview?.summary).toBe('healthy: 3/3 members');
    expect(s.starting).toBe(false);
    expect(s.stepsDone).toBe(1);
  });
  it('without a bridge the load reports how to open the console', async () => {
    const s = useOverviewStore();
    await s.load();
    expect(s.error).toMatch(/pilothouse web/);
  });
});

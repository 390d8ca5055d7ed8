import { describe, expect, it } from 'vitest';
import type { ComponentStatus, MemberStatus, NodeSummary } from '../../../preload/contract';
import { buildOverview, overviewFingerprint } from '../../../main/console/overview';
import { parseEnvFile } from '../../../main/console/consoleServices';
import { LogStore } from '../../../main/controlplane/logStore';
import { summarizeNode } from '../../../main/console/nodesFeed';

const member = (name: string, healthy: boolean, isLeader = false, term = '4'): MemberStatus => ({
  name, id: `${name}00000000000000`.slice(0, 16), endpoint: `https://127.0.0.1:1`, healthy, isLeader, isLearner: false, leader: '',
  raftTerm: term, raftIndex: '9', raftAppliedIndex: '9', dbSize: 0, dbSizeInUse: 0, version: '3.4.23', alarms: [], errors: [],
  checkedAt: '2026-11-30T00:00:00.000Z',
});
const node = (name: string, ready: NodeSummary['ready']): NodeSummary => ({ name, ready, pods: 0, kubelet: 'running', unschedulable: false, taints: [] });
const comp = (id: string, state: ComponentStatus['state']): ComponentStatus => ({ id, kind: 'etcd', state, restarts: 0 });
const running = [comp('m1', 'running'), comp('m2', 'running'), comp('m3', 'running')];

describe('cluster overview', () => {
  const cases = [
    {
      name: 'all healthy',
      input: { members: [member('m1', true), member('m2', true, true), member('m3', true)], components: running, starting: false },
      want: { health: 'healthy', summary: 'healthy: 3/3 members, leader m2 (term 4)', leader: 'm2' },
    },
    {
      name: 'one member paused: degraded, and it says which',
      input: { members: [member('m1', true, true), member('m2', false), member('m3', true)], components: [comp('m1', 'running'), comp('m2', 'paused'), comp('m3', 'running')], starting: false },
      want: { health: 'degraded', summary: 'degraded: 2/3 members, leader m1 (term 4), m2 paused', leader: 'm1' },
    },
    {
      name: 'quorum lost',
      input: { members: [member('m1', true), member('m2', false), member('m3', false)], components: [comp('m1', 'running'), comp('m2', 'stopped'), comp('m3', 'crashed')], starting: false },
      want: { health: 'down', summary: 'down: 1/3 members, no leader, m2 stopped, m3 crashed' },
    },
    {
      name: 'first start in progress',
      input: { members: [member('m1', false), member('m2', false), member('m3', false)], components: running, starting: true },
      want: { health: 'starting', summary: 'starting: 0/3 members, no leader' },
    },
    {
      name: 'an alarm (NOSPACE: writes refused) degrades and is named',
      input: { members: [member('m1', true, true), { ...member('m2', true), alarms: ['NOSPACE'] }, member('m3', true)], components: running, starting: false },
      want: { health: 'degraded', summary: 'degraded: 3/3 members, leader m1 (term 4), alarm NOSPACE on m2', leader: 'm1' },
    },
    {
      name: 'API server down makes a healthy etcd degraded',
      input: { members: [member('m1', true, true), member('m2', true), member('m3', true)], components: running, starting: false, apiserverReady: false },
      want: { health: 'degraded', summary: 'degraded: 3/3 members, leader m1 (term 4), API server not ready', leader: 'm1' },
    },
    {
      name: 'nodes are counted in the summary (a NotReady node does not degrade the control plane)',
      input: { members: [member('m1', true, true), member('m2', true), member('m3', true)], components: running, starting: false, apiserverReady: true, nodes: [node('node-1', 'True'), node('node-2', 'Unknown')] },
      want: { health: 'healthy', summary: 'healthy: 3/3 members, leader m1 (term 4), API server ready, 1/2 nodes Ready', leader: 'm1' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const o = buildOverview({ mode: 'embedded', ...c.input });
      expect({ health: o.health, summary: o.summary, ...(o.leader ? { leader: o.leader } : {}) }).toEqual(c.want);
    });
  }

  it('probe times alone do not change the fingerprint; a term does', () => {
    const a = buildOverview({ mode: 'embedded', members: [member('m1', true, true)], components: running, starting: false });
    const b = buildOverview({ mode: 'embedded', members: [{ ...member('m1', true, true), checkedAt: 'later', probeLatencyMs: 3 }], components: running, starting: false });
    const c = buildOverview({ mode: 'embedded', members: [member('m1', true, true, '5')], components: running, starting: false });
    expect(overviewFingerprint(a)).toBe(overviewFingerprint(b));
    expect(overviewFingerprint(a)).not.toBe(overviewFingerprint(c));
  });

  it('node heartbeats alone do not change the fingerprint; readiness does', () => {
    const base = { mode: 'embedded' as const, members: [member('m1', true, true)], components: running, starting: false };
    const a = buildOverview({ ...base, nodes: [{ ...node('n1', 'True'), lastHeartbeat: '2026-11-30T00:00:00Z' }] });
    const b = buildOverview({ ...base, nodes: [{ ...node('n1', 'True'), lastHeartbeat: '2026-11-30T00:00:10Z' }] });
    const c = buildOverview({ ...base, nodes: [node('n1', 'Unknown')] });
    expect(overviewFingerprint(a)).toBe(overviewFingerprint(b));
    expect(overviewFingerprint(a)).not.toBe(overviewFingerprint(c));
  });
});

describe('node summaries', () => {
  const nodeObj = (over: Record<string, unknown> = {}, annotations: Record<string, string> = {}) => ({
    metadata: { name: 'node-2', annotations },
    spec: { unschedulable: true, taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }] },
    status: { capacity: { cpu: '4', memory: '8Gi' }, conditions: [{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', lastHeartbeatTime: '2026-11-30T00:00:00Z' }] },
    ...over,
  });
  const pod = (phase: string) => ({ metadata: { name: phase }, spec: { nodeName: 'node-2' }, status: { phase } });
  it('reads Ready, reason, taints, capacity, the kubelet switch; counts pods that have not terminated', () => {
    expect(summarizeNode(nodeObj({}, { 'kubelet.pilothouse.dev/state': 'paused' }), [pod('Running'), pod('Pending'), pod('Succeeded'), pod('Failed')])).toEqual({
      name: 'node-2', ready: 'Unknown', reason: 'NodeStatusUnknown', pods: 2, kubelet: 'paused', unschedulable: true,
      taints: ['node.kubernetes.io/unreachable:NoExecute'], cpu: '4', memory: '8Gi', lastHeartbeat: '2026-11-30T00:00:00Z',
    });
  });
  it('a node without a Ready condition yet is Unknown; no annotation means the kubelet runs', () => {
    expect(summarizeNode({ metadata: { name: 'n' } }, [])).toEqual({ name: 'n', ready: 'Unknown', pods: 0, kubelet: 'running', unschedulable: false, taints: [] });
  });
});

describe('etcdctl.env for terminals', () => {
  it('reads export lines, unquoting shell words', () => {
    const text = "export ETCDCTL_API=3\nexport ETCDCTL_ENDPOINTS=https://127.0.0.1:1,https://127.0.0.1:3\nexport ETCDCTL_CACERT='/tmp/my dir/ca.crt'\n# comment\n";
    expect(parseEnvFile(text)).toEqual({ ETCDCTL_API: '3', ETCDCTL_ENDPOINTS: 'https://127.0.0.1:1,https://127.0.0.1:3', ETCDCTL_CACERT: '/tmp/my dir/ca.crt' });
  });
});

describe('log store', () => {
  it('keeps the newest lines per component, searches case-insensitively, batches events', async () => {
    const batches: unknown[][] = [];
    const store = new LogStore({ emit: (_e, p) => batches.push(p as unknown[]) }, 3);
    store.write('m1', 'stdout', 'a\nb\nc\nd\nERROR e\n');
    store.write('m2', 'stderr', 'x');
    expect(store.lines('m1').map((l) => [l.seq, l.text])).toEqual([[3, 'c'], [4, 'd'], [5, 'ERROR e']]);
    expect(store.lines('m1', 'error').map((l) => l.text)).toEqual(['ERROR e']);
    expect(store.lines('m1', undefined, 1).map((l) => l.text)).toEqual(['ERROR e']);
    expect(store.lines('m2')).toEqual([]); // no newline yet
    store.write('m2', 'stderr', 'y\r\n');
    expect(store.lines('m2').map((l) => l.text)).toEqual(['xy']);
    expect(store.components()).toEqual(['m1', 'm2']);
    expect(batches).toEqual([]);
    await new Promise((r) => setTimeout(r, 150));
    expect(batches).toHaveLength(1);
    expect(batches[0]).toHaveLength(6);
    await store.dispose();
  });
});

describe('console services before start', () => {
  it('answer overview, members and startup steps without a cluster (nothing spawned)', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { createConsoleServices } = await import('../../../main/console/consoleServices');
    const dir = mkdtempSync(join(tmpdir(), 'ph-early-'));
    const svc = createConsoleServices({ dataDir: dir, portBase: 28650, cliPath: '/nonexistent/cli.js', runtime: 'web', events: { emit: () => undefined } });
    try {
      const o = await svc.handlers.overview();
      expect(o).toMatchObject({ mode: 'embedded', health: 'starting', summary: 'starting: 0/3 members, no leader, m1 stopped, m2 stopped, m3 stopped' });
      const members = await svc.handlers.members();
      expect(members.map((m) => [m.name, m.healthy, m.errors])).toEqual([['m1', false, ['not probed yet']], ['m2', false, ['not probed yet']], ['m3', false, ['not probed yet']]]);
      expect((await svc.handlers.startupProgress()).map((s) => s.state)).toEqual(['pending', 'pending', 'pending', 'pending', 'pending', 'pending']);
      expect(await svc.handlers.listSnapshots()).toEqual([]);
      expect(await svc.handlers.recentWatchEvents({ limit: 10 })).toEqual([]);
      expect(await svc.handlers.version()).toMatchObject({ pilothouse: expect.stringMatching(/^\d+\.\d+\.\d+$/), runtime: 'web' });
    } finally {
      await svc.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

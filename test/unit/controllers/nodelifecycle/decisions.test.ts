import { describe, expect, it } from 'vitest';
import type { V1Node, V1Pod, V1Taint, V1Toleration } from '@kubernetes/client-node';
import { conditionsAfterTimeout, desiredTaints, evictionDue, observeHeartbeat } from '../../../../main/controllers/nodelifecycle/decisions';

function node(ready: string | undefined, taints: V1Taint[] = [], heartbeat = 'h1'): V1Node {
  return {
    metadata: { name: 'n1' },
    spec: { taints },
    status: { conditions: ready ? [{ type: 'Ready', status: ready, lastHeartbeatTime: heartbeat as never }, { type: 'MemoryPressure', status: 'False' }] : [] },
  };
}

describe('heartbeats and grace period', () => {
  it('probe time moves only when lease or heartbeat changes', () => {
    const a = observeHeartbeat(undefined, node('True'), 'l1', 1000);
    expect(a.probeMs).toBe(1000);
    expect(observeHeartbeat(a, node('True'), 'l1', 5000)).toBe(a);
    expect(observeHeartbeat(a, node('True'), 'l2', 5000).probeMs).toBe(5000);
    expect(observeHeartbeat(a, node('True', [], 'h2'), 'l1', 6000).probeMs).toBe(6000);
  });
  const cases: Array<{ name: string; n: V1Node; elapsed: number; want: Array<[string, string, string?]> | undefined }> = [
    { name: 'within grace', n: node('True'), elapsed: 40_000, want: undefined },
    {
      name: 'grace passed',
      n: node('True'),
      elapsed: 50_001,
      want: [
        ['Ready', 'Unknown', 'NodeStatusUnknown'],
        ['MemoryPressure', 'Unknown', 'NodeStatusUnknown'],
        ['DiskPressure', 'Unknown', 'NodeStatusNeverUpdated'],
        ['PIDPressure', 'Unknown', 'NodeStatusNeverUpdated'],
      ],
    },
  ];
  it.each(cases)('$name', ({ n, elapsed, want }) => {
    const got = conditionsAfterTimeout(n, { lease: '', ready: '', probeMs: 0 }, elapsed, 50_000, 'T');
    expect(got?.map((c) => [c['type'], c['status'], c['reason']])).toEqual(want);
    if (got) expect(got[0]).toMatchObject({ message: 'Kubelet stopped posting node status.', lastTransitionTime: 'T', lastHeartbeatTime: 'h1' });
  });
  it('already Unknown: nothing to do', () => {
    const n = node('True');
    const once = conditionsAfterTimeout(n, { lease: '', ready: '', probeMs: 0 }, 60_000, 50_000, 'T')!;
    expect(conditionsAfterTimeout({ ...n, status: { conditions: once as never } }, { lease: '', ready: '', probeMs: 0 }, 70_000, 50_000, 'T2')).toBeUndefined();
  });
});

describe('lifecycle taints', () => {
  const other: V1Taint = { key: 'dedicated', value: 'x', effect: 'NoSchedule' };
  const cases: Array<{ name: string; n: V1Node; want: string[] | undefined }> = [
    { name: 'ready, clean', n: node('True', [other]), want: undefined },
    { name: 'unknown → unreachable', n: node('Unknown', [other]), want: ['dedicated:NoSchedule', 'node.kubernetes.io/unreachable:NoSchedule', 'node.kubernetes.io/unreachable:NoExecute'] },
    { name: 'false → not-ready', n: node('False'), want: ['node.kubernetes.io/not-ready:NoSchedule', 'node.kubernetes.io/not-ready:NoExecute'] },
    {
      name: 'unknown → false swaps taints',
      n: node('False', [{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }]),
      want: ['node.kubernetes.io/not-ready:NoSchedule', 'node.kubernetes.io/not-ready:NoExecute'],
    },
    { name: 'ready again removes them', n: node('True', [other, { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }]), want: ['dedicated:NoSchedule'] },
    { name: 'already right', n: node('Unknown', [{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }]), want: undefined },
  ];
  it.each(cases)('$name', ({ n, want }) => {
    const got = desiredTaints(n, '2026-01-01T00:00:00Z');
    expect(got?.map((t) => `${t.key}:${t.effect}`)).toEqual(want);
    const ne = got?.find((t) => t.effect === 'NoExecute' && t.key.startsWith('node.kubernetes.io/'));
    if (ne) expect(ne.timeAdded).toBe('2026-01-01T00:00:00Z');
  });
});

describe('taint eviction', () => {
  const unreachable: V1Taint[] = [{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }];
  const pod = (tolerations?: V1Toleration[]): V1Pod => ({ metadata: { name: 'p' }, spec: { containers: [], tolerations } });
  const cases: Array<{ name: string; p: V1Pod; taints: V1Taint[]; want: number | 'now' | undefined }> = [
    { name: 'no NoExecute taint', p: pod(), taints: [unreachable[0]!], want: undefined },
    { name: 'no toleration: at once', p: pod(), taints: unreachable, want: 'now' },
    { name: 'default 300s toleration', p: pod([{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }]), taints: unreachable, want: 1_000 + 300_000 },
    { name: 'tolerates forever', p: pod([{ operator: 'Exists' }]), taints: unreachable, want: undefined },
    { name: 'negative seconds: at the taint time', p: pod([{ operator: 'Exists', tolerationSeconds: -5 }]), taints: unreachable, want: 1_000 },
    { name: 'shortest of matching', p: pod([{ operator: 'Exists', tolerationSeconds: 60 }, { key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 30 }]), taints: unreachable, want: 31_000 },
  ];
  it.each(cases)('$name', ({ p, taints, want }) => expect(evictionDue(p, taints, () => 1_000)).toEqual(want));
  it('--pod-eviction-timeout postpones untolerated evictions only', () => {
    expect(evictionDue(pod(), unreachable, () => 1_000, 20_000)).toBe(21_000);
    expect(evictionDue(pod([{ operator: 'Exists', tolerationSeconds: 5 }]), unreachable, () => 1_000, 20_000)).toBe(6_000);
  });
});

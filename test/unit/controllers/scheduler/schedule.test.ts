import { describe, expect, it } from 'vitest';
import type { V1Node, V1Pod, V1Taint, V1Toleration } from '@kubernetes/client-node';
import { milliValue, value } from '../../../../main/controllers/scheduler/quantity';
import { schedulePod } from '../../../../main/controllers/scheduler/schedule';
import { toleratesTaint } from '../../../../main/controllers/scheduler/taints';
import { spreadScores, selectHost } from '../../../../main/controllers/scheduler/scores';

function node(name: string, o: { cpu?: string; memory?: string; pods?: string; labels?: Record<string, string>; taints?: V1Taint[]; unschedulable?: boolean; ready?: string } = {}): V1Node {
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...o.labels } },
    spec: { taints: o.taints, unschedulable: o.unschedulable },
    status: {
      allocatable: { cpu: o.cpu ?? '4', memory: o.memory ?? '8Gi', pods: o.pods ?? '110' },
      conditions: [{ type: 'Ready', status: o.ready ?? 'True' }],
    },
  };
}

function pod(name: string, o: { cpu?: string; memory?: string; nodeName?: string; nodeSelector?: Record<string, string>; tolerations?: V1Toleration[]; owner?: string; phase?: string } = {}): V1Pod {
  const requests: Record<string, string> = {};
  if (o.cpu) requests['cpu'] = o.cpu;
  if (o.memory) requests['memory'] = o.memory;
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}`, ownerReferences: o.owner ? [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: o.owner, controller: true }] : undefined },
    spec: { nodeName: o.nodeName, nodeSelector: o.nodeSelector, tolerations: o.tolerations, containers: [{ name: 'c', image: 'nginx', resources: { requests } }] },
    status: { phase: o.phase ?? 'Pending' },
  };
}

const first = (): number => 0;

describe('quantities', () => {
  const cases: Array<[string, number, number]> = [
    ['100m', 100, 1],
    ['1', 1000, 1],
    ['1.5', 1500, 2],
    ['128Mi', 128 * 2 ** 20 * 1000, 128 * 2 ** 20],
    ['1G', 1e12, 1e9],
    ['2e3', 2e6, 2000],
    ['1k', 1e6, 1000],
  ];
  it.each(cases)('%s', (q, milli, whole) => {
    expect(milliValue(q)).toBe(milli);
    expect(value(q)).toBe(whole);
  });
  it('rejects garbage', () => expect(() => value('12x')).toThrow(/quantities must match/));
});

describe('tolerations', () => {
  const taint: V1Taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
  const cases: Array<[string, V1Toleration, boolean]> = [
    ['equal match', { key: 'k', value: 'v', effect: 'NoSchedule' }, true],
    ['equal other value', { key: 'k', value: 'w' }, false],
    ['exists by key', { key: 'k', operator: 'Exists' }, true],
    ['exists everything', { operator: 'Exists' }, true],
    ['other effect', { key: 'k', operator: 'Exists', effect: 'NoExecute' }, false],
    ['other key', { key: 'x', operator: 'Exists' }, false],
  ];
  it.each(cases)('%s', (_n, t, want) => expect(toleratesTaint(t, taint)).toBe(want));
});

describe('schedulePod', () => {
  const cases: Array<{ name: string; pod: V1Pod; nodes: V1Node[]; pods?: V1Pod[]; want: { ok: true; node: string } | { ok: false; message: string } }> = [
    { name: 'single node fits', pod: pod('p'), nodes: [node('n1')], want: { ok: true, node: 'n1' } },
    {
      name: 'insufficient cpu everywhere',
      pod: pod('p', { cpu: '5' }),
      nodes: [node('n1'), node('n2'), node('n3')],
      want: { ok: false, message: '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod..' },
    },
    {
      name: 'cpu counts what is already bound',
      pod: pod('p', { cpu: '2' }),
      nodes: [node('n1'), node('n2')],
      pods: [pod('a', { cpu: '3', nodeName: 'n1', phase: 'Running' })],
      want: { ok: true, node: 'n2' },
    },
    {
      name: 'terminal pods free their resources',
      pod: pod('p', { cpu: '2' }),
      nodes: [node('n1')],
      pods: [pod('a', { cpu: '3', nodeName: 'n1', phase: 'Succeeded' })],
      want: { ok: true, node: 'n1' },
    },
    {
      name: 'mixed reasons sorted, first failing filter per node',
      pod: pod('p', { cpu: '5', memory: '10Gi', nodeSelector: { disk: 'ssd' } }),
      nodes: [node('n1', { labels: { disk: 'ssd' } }), node('n2', { unschedulable: true }), node('n3', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }), node('n4')],
      want: {
        ok: false,
        message:
          "0/4 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) were unschedulable. preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling..",
      },
    },
    {
      name: 'too many pods',
      pod: pod('p'),
      nodes: [node('n1', { pods: '1' })],
      pods: [pod('a', { nodeName: 'n1', phase: 'Running' })],
      want: { ok: false, message: '0/1 nodes are available: 1 Too many pods. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod..' },
    },
    {
      name: 'not-ready node counts as tainted',
      pod: pod('p'),
      nodes: [node('n1', { ready: 'Unknown' }), node('n2', { ready: 'False' })],
      want: {
        ok: false,
        message:
          '0/2 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling..',
      },
    },
    {
      name: 'tolerated taint',
      pod: pod('p', { tolerations: [{ key: 'dedicated', operator: 'Exists' }] }),
      nodes: [node('n1', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] })],
      want: { ok: true, node: 'n1' },
    },
    { name: 'PreferNoSchedule does not filter', pod: pod('p'), nodes: [node('n1', { taints: [{ key: 'x', effect: 'PreferNoSchedule' }] })], want: { ok: true, node: 'n1' } },
    {
      name: 'spreads pods of one owner',
      pod: pod('p', { owner: 'rs1' }),
      nodes: [node('n1'), node('n2')],
      pods: [pod('a', { owner: 'rs1', nodeName: 'n1', phase: 'Running' })],
      want: { ok: true, node: 'n2' },
    },
    {
      name: 'least allocated wins',
      pod: pod('p', { cpu: '1' }),
      nodes: [node('n1'), node('n2')],
      pods: [pod('a', { cpu: '2', nodeName: 'n1', phase: 'Running' })],
      want: { ok: true, node: 'n2' },
    },
    { name: 'no nodes', pod: pod('p'), nodes: [], want: { ok: false, message: 'no nodes available to schedule pods' } },
  ];
  it.each(cases)('$name', ({ pod: p, nodes, pods, want }) => expect(schedulePod(p, nodes, pods ?? [], first)).toEqual(want));
});

describe('scores', () => {
  it('spread normalises to 0..100', () => {
    expect(spreadScores([0, 2, 1])).toEqual([100, 0, 50]);
    expect(spreadScores([1, 1])).toEqual([100, 100]);
  });
  it('selectHost picks among ties by the random source', () => {
    expect(selectHost([5, 9, 9, 1], () => 0)).toBe(1);
    expect(selectHost([5, 9, 9, 1], () => 0.99)).toBe(2);
    expect(selectHost([], () => 0)).toBe(-1);
  });
});

import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { goDuration } from '../../../../main/controllers/kubelet/goDuration';
import { effectivePullPolicy, imageId, normalizeImage, containerId } from '../../../../main/controllers/kubelet/images';
import { PodIpAllocator, nodePodCidr } from '../../../../main/controllers/kubelet/podIps';
import { isRunningAndReady, runningStatus, startingStatus } from '../../../../main/controllers/kubelet/podStatus';
import { healthyConditions, microTime, nodeLease, registrationNode } from '../../../../main/controllers/kubelet/nodeObject';
import { jittered } from '../../../../main/controllers/kubelet/delays';

describe('goDuration (Go time.Duration.String)', () => {
  const cases: Array<[number, string]> = [
    [0, '0s'],
    [523, '523ms'],
    [1234, '1.234s'],
    [1000, '1s'],
    [61_500, '1m1.5s'],
    [3_600_000, '1h0m0s'],
    [0.5, '500µs'],
  ];
  it.each(cases)('%d ms → %s', (ms, want) => expect(goDuration(ms)).toBe(want));
});

describe('images', () => {
  const cases: Array<[string, string, string]> = [
    ['nginx', 'docker.io/library/nginx:latest', 'Always'],
    ['nginx:1.27', 'docker.io/library/nginx:1.27', 'IfNotPresent'],
    ['bitnami/redis', 'docker.io/bitnami/redis:latest', 'Always'],
    ['registry.k8s.io/pause:3.10', 'registry.k8s.io/pause:3.10', 'IfNotPresent'],
    ['localhost:5000/app', 'localhost:5000/app:latest', 'Always'],
  ];
  it.each(cases)('%s', (image, ref, policy) => {
    expect(normalizeImage(image)).toBe(ref);
    expect(effectivePullPolicy(image, undefined)).toBe(policy);
  });
  it('imageID is a stable digest reference', () => {
    expect(imageId('nginx')).toMatch(/^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    expect(imageId('nginx')).toBe(imageId('docker.io/library/nginx:latest'));
    expect(containerId('u', 'c')).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
    expect(effectivePullPolicy('nginx', 'Never')).toBe('Never');
  });
});

describe('pod IPs', () => {
  it('lowest free first, stable per pod, reused after release, full /24 refuses', () => {
    const a = new PodIpAllocator(2);
    expect(nodePodCidr(2)).toBe('10.244.2.0/24');
    expect(a.assign('p1')).toBe('10.244.2.2');
    expect(a.assign('p2')).toBe('10.244.2.3');
    expect(a.assign('p1')).toBe('10.244.2.2');
    a.release('p1');
    expect(a.assign('p3')).toBe('10.244.2.2');
    a.adopt('p4', '10.244.2.9');
    for (let i = 0; i < 250; i++) a.assign(`x${i}`);
    expect(a.assign('one-too-many')).toBeUndefined();
    expect(a.assign('p4')).toBe('10.244.2.9');
  });
});

const pod: V1Pod = {
  metadata: { name: 'web', namespace: 'default', uid: 'uid-1' },
  spec: { nodeName: 'node-1', containers: [{ name: 'nginx', image: 'nginx' }, { name: 'side', image: 'busybox:1.36' }] },
  status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: new Date('2026-01-01T00:00:00Z') }] },
};
const addr = { hostIP: '172.18.0.3', podIP: '10.244.1.2' };

describe('pod status builders', () => {
  it('starting: Pending, ContainerCreating, kubelet condition order, PodScheduled keeps its time', () => {
    const s = startingStatus(pod, addr, '2026-01-01T00:00:05Z') as { phase: string; conditions: Array<Record<string, unknown>>; containerStatuses: Array<Record<string, unknown>>; podIP: string; hostIPs: unknown };
    expect(s.phase).toBe('Pending');
    expect(s.podIP).toBe('10.244.1.2');
    expect(s.hostIPs).toEqual([{ ip: '172.18.0.3' }]);
    expect(s.conditions.map((c) => [c['type'], c['status']])).toEqual([
      ['PodReadyToStartContainers', 'True'],
      ['Initialized', 'True'],
      ['Ready', 'False'],
      ['ContainersReady', 'False'],
      ['PodScheduled', 'True'],
    ]);
    expect(s.conditions[2]).toMatchObject({ reason: 'ContainersNotReady', message: 'containers with unready status: [nginx side]' });
    expect(s.conditions[4]!['lastTransitionTime']).toBe('2026-01-01T00:00:00Z');
    expect(s.containerStatuses[0]).toMatchObject({ name: 'nginx', ready: false, state: { waiting: { reason: 'ContainerCreating' } } });
  });
  it('running: Running, all ready, running state with startedAt', () => {
    const s = runningStatus(pod, addr, '2026-01-01T00:00:06Z') as { phase: string; conditions: Array<Record<string, unknown>>; containerStatuses: Array<Record<string, unknown>> };
    expect(s.phase).toBe('Running');
    expect(s.conditions.every((c) => c['status'] === 'True')).toBe(true);
    expect(s.containerStatuses[1]).toMatchObject({ name: 'side', image: 'docker.io/library/busybox:1.36', ready: true, started: true, restartCount: 0, state: { running: { startedAt: '2026-01-01T00:00:06Z' } } });
    expect(isRunningAndReady(pod)).toBe(false);
    expect(isRunningAndReady({ ...pod, status: s as never })).toBe(true);
  });
});

describe('node objects', () => {
  it('registration node', () => {
    const n = registrationNode('node-2', 2, { cpu: '4', memory: '8Gi', pods: '110' }, '2026-01-01T00:00:00Z');
    expect(n.status?.nodeInfo?.kubeletVersion).toBe('v1.32.0');
    expect(n.status?.allocatable).toMatchObject({ cpu: '4', memory: '8Gi', pods: '110' });
    expect(n.spec?.podCIDR).toBe('10.244.2.0/24');
    expect(n.status?.addresses?.map((a) => a.type)).toEqual(['InternalIP', 'Hostname']);
    expect(n.metadata?.labels?.['kubernetes.io/hostname']).toBe('node-2');
  });
  it('heartbeat keeps lastTransitionTime of unchanged conditions', () => {
    const first = healthyConditions('2026-01-01T00:00:00Z');
    const next = healthyConditions('2026-01-01T00:00:10Z', first as never);
    const ready = next.find((c) => c['type'] === 'Ready')!;
    expect(ready).toMatchObject({ status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: '2026-01-01T00:00:10Z', lastTransitionTime: '2026-01-01T00:00:00Z' });
    const fromUnknown = healthyConditions('2026-01-01T00:01:00Z', [{ type: 'Ready', status: 'Unknown', lastTransitionTime: new Date('2026-01-01T00:00:50Z') }]);
    expect(fromUnknown.find((c) => c['type'] === 'Ready')!['lastTransitionTime']).toBe('2026-01-01T00:01:00Z');
  });
  it('lease', () => {
    expect(microTime(Date.UTC(2026, 0, 1, 0, 0, 0, 123))).toBe('2026-01-01T00:00:00.123000Z');
    expect(nodeLease('node-1', 'u1', 0, 40)).toMatchObject({ metadata: { namespace: 'kube-node-lease', name: 'node-1', ownerReferences: [{ kind: 'Node', uid: 'u1' }] }, spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40 } });
  });
  it('jitter stays within delay ± jitter and ≥ 0', () => {
    expect(jittered(100, 50, () => 0)).toBe(50);
    expect(jittered(100, 50, () => 0.5)).toBe(100);
    expect(jittered(10, 50, () => 0)).toBe(0);
  });
});

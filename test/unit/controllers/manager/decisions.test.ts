import { describe, expect, it } from 'vitest';
import { blockingDependents, decideDependent, ownerState, type OwnerState } from '../../../../main/controllers/manager/gc/decide';
import { podsToDelete } from '../../../../main/controllers/manager/replicaset/podsToDelete';
import { calculateRSStatus } from '../../../../main/controllers/manager/replicaset/status';
import { endpointSubsets, findPort, type Service } from '../../../../main/controllers/manager/endpoints/subsets';
import { calculateStatus, rolloutStatus } from '../../../../main/controllers/manager/deployment/status';
import type { Deployment, KObject, OwnerReference, Pod, ReplicaSet } from '../../../../main/controllers/manager/types';

const ref = (uid: string, block = true): OwnerReference => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: uid, uid, controller: true, blockOwnerDeletion: block });
const obj = (refs: OwnerReference[], finalizers?: string[]): KObject => ({ metadata: { name: 'x', uid: 'x', ownerReferences: refs, finalizers } });

describe('garbage collector decisions', () => {
  const cases: { name: string; o: KObject; owners: Record<string, OwnerState>; deps?: boolean; want: unknown }[] = [
    { name: 'owner alive: keep', o: obj([ref('a')]), owners: { a: 'alive' }, want: { action: 'keep' } },
    { name: 'owner gone: background delete', o: obj([ref('a')]), owners: { a: 'dangling' }, want: { action: 'delete', propagationPolicy: 'Background' } },
    { name: 'one of two owners gone: drop its reference', o: obj([ref('a'), ref('b')]), owners: { a: 'dangling', b: 'alive' }, want: { action: 'patchRefs', ownerReferences: [ref('b')] } },
    { name: 'owner waiting, no own dependents: background delete', o: obj([ref('a')]), owners: { a: 'waiting' }, want: { action: 'delete', propagationPolicy: 'Background' } },
    { name: 'owner waiting, own dependents: foreground delete', o: obj([ref('a')]), owners: { a: 'waiting' }, deps: true, want: { action: 'delete', propagationPolicy: 'Foreground' } },
    { name: 'object asked for orphaning keeps that policy', o: obj([ref('a')], ['orphan']), owners: { a: 'dangling' }, want: { action: 'delete', propagationPolicy: 'Orphan' } },
    { name: 'waiting and solid owners: unblock the waiting one', o: obj([ref('a'), ref('b')]), owners: { a: 'waiting', b: 'alive' }, want: { action: 'patchRefs', ownerReferences: [{ ...ref('a'), blockOwnerDeletion: false }, ref('b')] } },
  ];
  for (const c of cases) it(c.name, () => expect(decideDependent(c.o, new Map(Object.entries(c.owners)), c.deps ?? false)).toEqual(c.want));

  it('owner state: uid mismatch is dangling; foregroundDeletion while deleting is waiting', () => {
    const owner: KObject = { metadata: { uid: 'a' } };
    expect(ownerState(undefined, ref('a'))).toBe('dangling');
    expect(ownerState({ metadata: { uid: 'other' } }, ref('a'))).toBe('dangling');
    expect(ownerState(owner, ref('a'))).toBe('alive');
    expect(ownerState({ metadata: { uid: 'a', deletionTimestamp: 't', finalizers: ['foregroundDeletion'] } }, ref('a'))).toBe('waiting');
  });
  it('only dependents with blockOwnerDeletion block a foreground owner', () => {
    expect(blockingDependents('a', [obj([ref('a', false)]), obj([ref('b')])])).toHaveLength(0);
    expect(blockingDependents('a', [obj([ref('a', true)])])).toHaveLength(1);
  });
});

function pod(name: string, o: { node?: string; phase?: string; ready?: boolean; readySince?: string; created?: string; labels?: Record<string, string>; ip?: string } = {}): Pod {
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}`, creationTimestamp: o.created ?? '2026-01-01T00:00:00Z', labels: o.labels ?? { app: 'web' } },
    spec: { nodeName: o.node, containers: [{ name: 'c', ports: [{ name: 'web', containerPort: 8080 }] }] },
    status: { phase: o.phase ?? 'Running', podIP: o.ip, conditions: o.ready === undefined ? [] : [{ type: 'Ready', status: o.ready ? 'True' : 'False', lastTransitionTime: o.readySince ?? '2026-01-01T00:00:00Z' }] },
  };
}

describe('replicaset', () => {
  it('deletes the least useful pods first', () => {
    const pods = [
      pod('ready-old', { node: 'n', ready: true, readySince: '2026-01-01T00:00:00Z' }),
      pod('unscheduled', { phase: 'Pending' }),
      pod('ready-new', { node: 'n', ready: true, readySince: '2026-01-02T00:00:00Z' }),
      pod('pending', { node: 'n', phase: 'Pending' }),
      pod('not-ready', { node: 'n', ready: false }),
    ];
    expect(podsToDelete(pods, 5).map((p) => p.metadata.name)).toEqual(['unscheduled', 'pending', 'not-ready', 'ready-new', 'ready-old']);
  });
  it('status counts fully labeled, ready and available pods (minReadySeconds)', () => {
    const rs: ReplicaSet = { metadata: { name: 'rs', generation: 4 }, spec: { replicas: 3, minReadySeconds: 10, selector: {}, template: { metadata: { labels: { app: 'web', tier: 'fe' } } } } };
    const now = Date.parse('2026-01-01T00:00:30Z');
    const pods = [
      pod('a', { ready: true, readySince: '2026-01-01T00:00:00Z', labels: { app: 'web', tier: 'fe' } }),
      pod('b', { ready: true, readySince: '2026-01-01T00:00:25Z' }),
      pod('c', { ready: false }),
    ];
    expect(calculateRSStatus(rs, pods, now)).toEqual({ replicas: 3, fullyLabeledReplicas: 1, readyReplicas: 2, availableReplicas: 1, observedGeneration: 4, conditions: undefined });
  });
});

describe('endpoints', () => {
  const svc = (ports: Service['spec'] extends infer S ? (S extends { ports?: infer P } ? P : never) : never, publish = false): Service => ({ metadata: { name: 's', namespace: 'default' }, spec: { selector: { app: 'web' }, ports, publishNotReadyAddresses: publish } });
  it('findPort: numbers as given, names through the container ports with the same protocol', () => {
    const p = pod('a');
    expect(findPort(p, { port: 80, targetPort: 9090 })).toBe(9090);
    expect(findPort(p, { port: 80 })).toBe(80);
    expect(findPort(p, { port: 80, targetPort: 'web' })).toBe(8080);
    expect(findPort(p, { port: 80, targetPort: 'web', protocol: 'UDP' })).toBeUndefined();
  });
  it('ready pods in addresses, others in notReadyAddresses; pods without IP, finished or deleting left out', () => {
    const pods = [
      pod('b', { ready: true, ip: '10.0.0.2', node: 'n1' }),
      pod('a', { ready: true, ip: '10.0.0.1', node: 'n1' }),
      pod('c', { ready: false, ip: '10.0.0.3' }),
      pod('noip', { ready: true }),
      pod('done', { ready: false, ip: '10.0.0.4', phase: 'Succeeded' }),
      { ...pod('gone', { ready: true, ip: '10.0.0.5' }), metadata: { ...pod('gone').metadata, deletionTimestamp: 't' } },
    ];
    const subsets = endpointSubsets(svc([{ name: 'http', port: 80, targetPort: 'web' }]), pods);
    expect(subsets).toHaveLength(1);
    expect(subsets[0].addresses!.map((a) => a.ip)).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(subsets[0].addresses![0]).toEqual({ ip: '10.0.0.1', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: 'uid-a' } });
    expect(subsets[0].notReadyAddresses!.map((a) => a.ip)).toEqual(['10.0.0.3']);
    expect(subsets[0].ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    expect(endpointSubsets(svc([{ port: 80 }], true), pods)[0].addresses!.map((a) => a.ip)).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.5']);
  });
});

describe('deployment status', () => {
  const d: Deployment = {
    metadata: { name: 'web', generation: 2 },
    spec: { replicas: 3, selector: {}, template: {}, progressDeadlineSeconds: 600, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } },
    status: { observedGeneration: 1, replicas: 3, updatedReplicas: 0, availableReplicas: 3, conditions: [{ type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: 'm', lastUpdateTime: 't0', lastTransitionTime: 't0' }] },
  };
  const rs = (name: string, spec: number, actual: number, ready: number, avail: number): ReplicaSet => ({ metadata: { name }, spec: { replicas: spec, selector: {} }, status: { replicas: actual, readyReplicas: ready, availableReplicas: avail } });
  it('sums over the ReplicaSets; Available by minimum availability', () => {
    // 25% of 3 rounds down to 0 unavailable: all 3 must be available.
    const s = calculateStatus([rs('old', 2, 2, 2, 2), rs('new', 2, 2, 1, 1)], rs('new', 2, 2, 1, 1), d, 'now');
    expect(s).toMatchObject({ observedGeneration: 2, replicas: 4, updatedReplicas: 2, readyReplicas: 3, availableReplicas: 3, unavailableReplicas: 1 });
    expect(s.conditions!.find((c) => c.type === 'Available')).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable' });
    const low = calculateStatus([rs('new', 3, 3, 1, 1)], rs('new', 3, 3, 1, 1), d, 'now');
    expect(low.conditions!.find((c) => c.type === 'Available')).toMatchObject({ status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' });
  });
  it('Progressing: ReplicaSetUpdated while moving, NewReplicaSetAvailable when complete', () => {
    const moving = rolloutStatus([rs('old', 2, 2, 2, 2), rs('new', 2, 2, 1, 0)], rs('new', 2, 2, 1, 0), d, Date.parse('2026-01-01T00:00:00Z'));
    expect(moving.conditions!.find((c) => c.type === 'Progressing')).toMatchObject({ status: 'True', reason: 'ReplicaSetUpdated', message: 'ReplicaSet "new" is progressing.', lastTransitionTime: 't0' });
    const done = rolloutStatus([rs('old', 0, 0, 0, 0), rs('new', 3, 3, 3, 3)], rs('new', 3, 3, 3, 3), { ...d, status: { ...d.status, conditions: moving.conditions } }, Date.parse('2026-01-01T00:00:05Z'));
    expect(done.conditions!.find((c) => c.type === 'Progressing')).toMatchObject({ status: 'True', reason: 'NewReplicaSetAvailable', message: 'ReplicaSet "new" has successfully progressed.' });
  });
});

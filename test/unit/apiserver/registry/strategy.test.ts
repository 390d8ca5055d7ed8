import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import { StatusError } from '../../../../main/apiserver/api/status';
import { deployments } from '../../../../main/apiserver/registry/apps/deployments';
import { checkBindingName, pods } from '../../../../main/apiserver/registry/core/pods';
import { generateName, GENERATE_ALPHABET } from '../../../../main/apiserver/registry/common/generateName';
import { allResources, findResource, supportedFieldLabels } from '../../../../main/apiserver/registry/index';
import { bootstrapObjects } from '../../../../main/apiserver/registry/bootstrap';
import { testContext } from './ctx';

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

async function createdDeployment(): Promise<KObject> {
  const d: KObject = {
    metadata: { name: 'nginx', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'nginx' } }, template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
  };
  deployments.strategy.defaults(d);
  await deployments.strategy.prepareForCreate(d, testContext());
  d.status = { replicas: 1, readyReplicas: 1 };
  return d;
}

describe('deployment update lifecycle', () => {
  it('main update keeps status and bumps generation on spec change only', async () => {
    const old = await createdDeployment();
    const labelsOnly = clone(old);
    labelsOnly.metadata.labels = { x: 'y' };
    labelsOnly.status = { replicas: 99 };
    await deployments.strategy.prepareForUpdate(labelsOnly, old, testContext());
    expect(labelsOnly.metadata.generation).toBe(1);
    expect(labelsOnly.status).toEqual(old.status);
    const scaled = clone(old);
    (scaled.spec as { replicas: number }).replicas = 3;
    scaled.metadata.uid = undefined;
    await deployments.strategy.prepareForUpdate(scaled, old, testContext());
    expect(scaled.metadata.generation).toBe(2);
    expect(scaled.metadata.uid).toBe(old.metadata.uid);
    expect(scaled.metadata.creationTimestamp).toBe(old.metadata.creationTimestamp);
  });

  it('status update keeps spec and labels', async () => {
    const old = await createdDeployment();
    const upd = clone(old);
    (upd.spec as { replicas: number }).replicas = 7;
    upd.metadata.labels = { sneaky: 'yes' };
    upd.status = { replicas: 1, readyReplicas: 1, availableReplicas: 1, observedGeneration: 1 };
    await deployments.statusStrategy!.prepareForUpdate(upd, old, testContext());
    expect((upd.spec as { replicas: number }).replicas).toBe(1);
    expect(upd.metadata.labels).toEqual(old.metadata.labels);
    expect(upd.status).toMatchObject({ availableReplicas: 1 });
    const bad = clone(upd);
    bad.status = { replicas: -1 };
    expect(deployments.statusStrategy!.validateUpdate(bad, old, testContext())).toEqual([
      { type: 'FieldValueInvalid', field: 'status.replicas', badValue: -1, detail: 'must be greater than or equal to 0' },
    ]);
  });

  it('scale view and applyScale', async () => {
    const d = await createdDeployment();
    d.metadata.resourceVersion = '42';
    expect(deployments.scale!.toScale(d)).toEqual({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'nginx', namespace: 'default', uid: d.metadata.uid, resourceVersion: '42', creationTimestamp: d.metadata.creationTimestamp },
      spec: { replicas: 1 },
      status: { replicas: 1, selector: 'app=nginx' },
    });
    deployments.scale!.applyScale(d, { metadata: { name: 'nginx' }, spec: { replicas: 3 } });
    expect((d.spec as { replicas: number }).replicas).toBe(3);
    expect(() => deployments.scale!.applyScale(d, { metadata: { name: 'nginx' }, spec: { replicas: -1 } })).toThrow(
      'Scale.autoscaling "nginx" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
  });
});

describe('pod graceful deletion (CheckGracefulDelete)', () => {
  const p = (spec: Record<string, unknown>, phase = 'Running'): KObject => ({ metadata: { name: 'p' }, spec: { terminationGracePeriodSeconds: 30, ...spec }, status: { phase } });
  it.each([
    ['scheduled, default grace', p({ nodeName: 'n1' }), undefined, 30],
    ['scheduled, requested 5', p({ nodeName: 'n1' }), 5, 5],
    ['requested 0', p({ nodeName: 'n1' }), 0, 0],
    ['never scheduled', p({}), undefined, 0],
    ['succeeded', p({ nodeName: 'n1' }, 'Succeeded'), undefined, 0],
    ['negative → 1', p({ nodeName: 'n1' }), -5, 1],
  ])('%s', (_n, pod, requested, want) => expect(pods.strategy.gracePeriodSeconds!(pod, requested)).toBe(want));
});

describe('pods/binding', () => {
  const pending = (): KObject => ({ metadata: { name: 'web-1', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i' }] }, status: { phase: 'Pending' } });
  const binding = (node: string, annotations?: Record<string, string>): KObject => ({ kind: 'Binding', metadata: { name: 'web-1', annotations }, target: { kind: 'Node', name: node } });

  it('assigns the node, merges annotations, sets PodScheduled', () => {
    const pod = pending();
    pods.binding!.bind(pod, binding('node-a', { 'x/y': 'z' }));
    expect((pod.spec as { nodeName: string }).nodeName).toBe('node-a');
    expect(pod.metadata.annotations).toEqual({ 'x/y': 'z' });
    expect((pod.status as { conditions: unknown[] }).conditions).toEqual([{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: expect.any(String) }]);
  });

  it('a second binding is a 409 with kube text', () => {
    const pod = pending();
    pods.binding!.bind(pod, binding('node-a'));
    try {
      pods.binding!.bind(pod, binding('node-b'));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(StatusError);
      expect((e as StatusError).status).toMatchObject({ code: 409, reason: 'Conflict', message: 'Operation cannot be fulfilled on pods/binding "web-1": pod web-1 is already assigned to node "node-a"' });
    }
  });

  it('refuses deleted pods and bad bodies', () => {
    const pod = pending();
    pod.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    expect(() => pods.binding!.bind(pod, binding('n'))).toThrow('pod web-1 is being deleted, cannot be assigned to a host');
    expect(() => pods.binding!.bind(pending(), binding(''))).toThrow('target.name: Required value');
    expect(() => checkBindingName('other', binding('n'))).toThrow('name in URL does not match name in Binding object');
  });

  it('scheduling gates: SchedulingGated condition on create, binding refused', async () => {
    const pod = pending();
    (pod.spec as Record<string, unknown>).schedulingGates = [{ name: 'wait' }];
    pods.strategy.defaults(pod);
    await pods.strategy.prepareForCreate(pod, testContext());
    expect((pod.status as { conditions: unknown[] }).conditions).toEqual([
      { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: null, reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' },
    ]);
    expect(() => pods.binding!.bind(pod, binding('n1'))).toThrow('pod web-1 has non-empty .spec.schedulingGates');
  });

  it('pod status update cannot touch spec', async () => {
    const old = pending();
    const upd = clone(old);
    (upd.spec as { nodeName: string }).nodeName = 'sneaky';
    upd.status = { phase: 'Running' };
    await pods.statusStrategy!.prepareForUpdate(upd, old, testContext());
    expect(upd.spec).toEqual(old.spec);
    expect(upd.status).toEqual({ phase: 'Running' });
    const withQos = { ...old, status: { phase: 'Pending', qosClass: 'BestEffort' } };
    const dropped = { ...clone(withQos), status: { phase: 'Running' } };
    await pods.statusStrategy!.prepareForUpdate(dropped, withQos, testContext());
    expect(dropped.status).toEqual({ phase: 'Running', qosClass: 'BestEffort' });
  });
});

describe('registry index', () => {
  it('has every resource with kube discovery names', () => {
    const names = allResources().map((r) => `${r.group || 'core'}/${r.resource}:${r.shortNames.join(',')}`);
    expect(names.sort()).toEqual(
      [
        'core/configmaps:cm',
        'core/endpoints:ep',
        'core/events:ev',
        'core/namespaces:ns',
        'core/nodes:no',
        'core/pods:po',
        'core/secrets:',
        'core/serviceaccounts:sa',
        'core/services:svc',
        'apps/deployments:deploy',
        'apps/replicasets:rs',
        'coordination.k8s.io/leases:',
        'core/limitranges:limits',
        'core/resourcequotas:quota',
        'rbac.authorization.k8s.io/clusterrolebindings:',
        'rbac.authorization.k8s.io/clusterroles:',
        'rbac.authorization.k8s.io/rolebindings:',
        'rbac.authorization.k8s.io/roles:',
        'admissionregistration.k8s.io/mutatingwebhookconfigurations:',
        'admissionregistration.k8s.io/validatingwebhookconfigurations:',
        'admissionregistration.k8s.io/validatingadmissionpolicies:',
        'admissionregistration.k8s.io/validatingadmissionpolicybindings:',
        'storagemigration.k8s.io/storageversionmigrations:',
      ].sort(),
    );
    expect(findResource('', 'v1', 'services')?.storagePrefix).toBe('services/specs');
    expect(findResource('', 'v1', 'nodes')?.storagePrefix).toBe('minions');
    expect(findResource('', 'v1', 'endpoints')?.storagePrefix).toBe('services/endpoints');
    expect(findResource('apps', 'v1', 'pods')).toBeUndefined();
    expect(allResources().filter((r) => r.categories.includes('all')).map((r) => r.resource).sort()).toEqual(['deployments', 'pods', 'replicasets', 'services']);
  });

  it('PUT creates only where kube allows it', () => {
    const creators = allResources().filter((r) => r.strategy.allowCreateOnUpdate).map((r) => r.resource).sort();
    expect(creators).toEqual(['endpoints', 'events', 'leases']);
  });

  it('field labels', () => {
    expect([...supportedFieldLabels(findResource('', 'v1', 'pods')!)].sort()).toEqual(
      ['metadata.name', 'metadata.namespace', 'spec.hostNetwork', 'spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'status.nominatedNodeName', 'status.phase', 'status.podIP'].sort(),
    );
    expect([...supportedFieldLabels(findResource('', 'v1', 'nodes')!)].sort()).toEqual(['metadata.name', 'spec.unschedulable']);
    expect(supportedFieldLabels(findResource('', 'v1', 'events')!).has('involvedObject.name')).toBe(true);
  });

  it('bootstrap objects', () => {
    const objs = bootstrapObjects('10.0.0.0/24');
    expect(objs.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`)).toEqual([
      'Namespace//default',
      'Namespace//kube-system',
      'Namespace//kube-public',
      'Namespace//kube-node-lease',
      'Service/default/kubernetes',
    ]);
    expect(objs[4].spec).toMatchObject({ clusterIP: '10.0.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }] });
  });

  it('generateName: 5 characters of the kube alphabet, base cut to 58', () => {
    const n = generateName('web-');
    expect(n).toMatch(new RegExp(`^web-[${GENERATE_ALPHABET}]{5}$`));
    expect(generateName('x'.repeat(70))).toHaveLength(63);
  });
});

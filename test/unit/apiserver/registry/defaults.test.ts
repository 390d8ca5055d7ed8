import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import { deployments } from '../../../../main/apiserver/registry/apps/deployments';
import { replicasets } from '../../../../main/apiserver/registry/apps/replicasets';
import { pods } from '../../../../main/apiserver/registry/core/pods';
import { services } from '../../../../main/apiserver/registry/core/services';
import { secrets } from '../../../../main/apiserver/registry/core/config';
import { namespaces } from '../../../../main/apiserver/registry/core/namespaces';
import { imageTag } from '../../../../main/apiserver/registry/core/podDefaults';
import { testContext } from './ctx';

/** What `kubectl create deployment nginx --image=nginx` sends (§1.3). */
function kubectlCreateDeployment(): KObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'nginx', labels: { app: 'nginx' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'nginx' } },
      template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', resources: {} }] } },
      strategy: {},
    },
    status: {},
  };
}

describe('deployment defaults (kubectl get deploy -o yaml after kubectl create deployment)', () => {
  it('matches kube 1.32', async () => {
    const d = kubectlCreateDeployment();
    d.metadata.namespace = 'default';
    deployments.strategy.defaults(d);
    await deployments.strategy.prepareForCreate(d, testContext());
    expect(deployments.strategy.validate(d, testContext())).toEqual([]);
    expect(d.metadata.generation).toBe(1);
    expect(d.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(d.metadata.creationTimestamp).toBe('2026-03-01T12:00:00Z');
    expect(d.status).toEqual({});
    expect(d.spec).toEqual({
      progressDeadlineSeconds: 600,
      replicas: 1,
      revisionHistoryLimit: 10,
      selector: { matchLabels: { app: 'nginx' } },
      strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' }, type: 'RollingUpdate' },
      template: {
        metadata: { creationTimestamp: null, labels: { app: 'nginx' } },
        spec: {
          containers: [{ image: 'nginx', imagePullPolicy: 'Always', name: 'nginx', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }],
          dnsPolicy: 'ClusterFirst',
          restartPolicy: 'Always',
          schedulerName: 'default-scheduler',
          securityContext: {},
          terminationGracePeriodSeconds: 30,
        },
      },
    });
  });

  it('replicaset status starts with replicas 0', async () => {
    const rs: KObject = { metadata: { name: 'r', namespace: 'default' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i:1' }] } } } };
    replicasets.strategy.defaults(rs);
    await replicasets.strategy.prepareForCreate(rs, testContext());
    expect((rs.spec as { replicas: number }).replicas).toBe(1);
    expect(rs.status).toEqual({ replicas: 0 });
  });
});

describe('imagePullPolicy from the tag', () => {
  it.each([
    ['nginx', 'latest'],
    ['nginx:latest', 'latest'],
    ['nginx:1.27', '1.27'],
    ['localhost:5000/app', 'latest'],
    ['localhost:5000/app:v2', 'v2'],
    ['nginx@sha256:abc', ''],
  ])('%s → tag %s', (image, tag) => expect(imageTag(image)).toBe(tag));
});

describe('pod defaults and create', () => {
  it('defaults a bare pod like kube', async () => {
    const p: KObject = { metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox:1.36', ports: [{ containerPort: 80 }] }] } };
    pods.strategy.defaults(p);
    await pods.strategy.prepareForCreate(p, testContext());
    const spec = p.spec as Record<string, unknown>;
    expect(spec).toMatchObject({ enableServiceLinks: true, priority: 0, preemptionPolicy: 'PreemptLowerPriority', restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler', securityContext: {} });
    expect((spec.containers as Record<string, unknown>[])[0]).toMatchObject({ imagePullPolicy: 'IfNotPresent', ports: [{ containerPort: 80, protocol: 'TCP' }] });
    expect(p.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    expect(p.metadata.generation).toBeUndefined();
  });
});

describe('requests from limits', () => {
  const limited = () => [{ name: 'c', image: 'i:1', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } } }];
  it('on pods', () => {
    const p: KObject = { metadata: { name: 'p' }, spec: { containers: limited(), initContainers: limited() } };
    pods.strategy.defaults(p);
    const spec = p.spec as { containers: { resources: unknown }[]; initContainers: { resources: unknown }[] };
    expect(spec.containers[0].resources).toEqual({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } });
    expect(spec.initContainers[0].resources).toEqual({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } });
  });
  it('not on templates', () => {
    const d: KObject = { metadata: { name: 'd' }, spec: { template: { spec: { containers: limited() } } } };
    deployments.strategy.defaults(d);
    expect((d.spec as any).template.spec.containers[0].resources).toEqual({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } });
  });
});

describe('service defaults', () => {
  it('ClusterIP service with a port', async () => {
    const s: KObject = { metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } };
    services.strategy.defaults(s);
    const ctx = testContext();
    const finish = await services.strategy.beginCreate!(s, ctx);
    await services.strategy.prepareForCreate(s, ctx);
    expect(services.strategy.validate(s, ctx)).toEqual([]);
    await finish(true);
    const spec = s.spec as Record<string, unknown>;
    expect(spec).toMatchObject({
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ipFamilyPolicy: 'SingleStack',
      ipFamilies: ['IPv4'],
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    });
    expect(spec.clusterIP).toMatch(/^10\.(9[6-9]|10\d|11[01])\./);
    expect(spec.clusterIPs).toEqual([spec.clusterIP]);
    expect(s.status).toEqual({ loadBalancer: {} });
  });
});

describe('other defaults', () => {
  it('secret type Opaque and stringData folded into data', async () => {
    const s: KObject = { metadata: { name: 's', namespace: 'default' }, stringData: { user: 'admin' } };
    secrets.strategy.defaults(s);
    await secrets.strategy.prepareForCreate(s, testContext());
    expect(s.type).toBe('Opaque');
    expect(s.data).toEqual({ user: 'YWRtaW4=' });
    expect(s.stringData).toBeUndefined();
  });
  it('namespace: Active, kubernetes finalizer, name label', async () => {
    const ns: KObject = { metadata: { name: 'team-a' } };
    namespaces.strategy.defaults(ns);
    await namespaces.strategy.prepareForCreate(ns, testContext());
    expect(ns.status).toEqual({ phase: 'Active' });
    expect(ns.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(ns.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'team-a' });
  });
});

import { describe, expect, it } from 'vitest';
import { applyContainerDefaults, limitRangerPlugin, validatePodLimits, type LimitRange } from '../../../../main/apiserver/admission/limitRanger';
import { StatusError } from '../../../../main/apiserver/api/status';
import { fakeEnv, podCreate } from './fakeEnv';

const lr = (limits: unknown[]): LimitRange => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr', namespace: 'default' }, spec: { limits } }) as LimitRange;

describe('LimitRanger defaults', () => {
  const cases: { name: string; limits: unknown[]; containers: unknown[]; init?: unknown[]; want: unknown[]; notes: string[] }[] = [
    {
      name: 'default requests and limits into an empty container',
      limits: [{ type: 'Container', default: { cpu: '500m', memory: '512Mi' }, defaultRequest: { cpu: '100m', memory: '128Mi' } }],
      containers: [{ name: 'nginx', image: 'nginx' }],
      want: [{ name: 'nginx', image: 'nginx', resources: { limits: { cpu: '500m', memory: '512Mi' }, requests: { cpu: '100m', memory: '128Mi' } } }],
      notes: ['cpu, memory request for container nginx', 'cpu, memory limit for container nginx'],
    },
    {
      name: 'what the container sets is kept; defaultRequest falls back to default',
      limits: [{ type: 'Container', default: { cpu: '1', memory: '1Gi' } }],
      containers: [{ name: 'app', resources: { requests: { cpu: '200m' } } }],
      want: [{ name: 'app', resources: { requests: { cpu: '200m', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } }],
      notes: ['memory request for container app', 'cpu, memory limit for container app'],
    },
    {
      name: 'init containers too, after the containers',
      limits: [{ type: 'Container', defaultRequest: { cpu: '50m' } }],
      containers: [{ name: 'a' }],
      init: [{ name: 'setup' }],
      want: [{ name: 'a', resources: { requests: { cpu: '50m' } } }],
      notes: ['cpu request for container a', 'cpu request for init container setup'],
    },
    { name: 'Pod-type items set nothing', limits: [{ type: 'Pod', max: { cpu: '2' } }], containers: [{ name: 'a' }], want: [{ name: 'a', resources: {} }], notes: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const spec = structuredClone({ containers: c.containers, initContainers: c.init }) as Parameters<typeof applyContainerDefaults>[0];
      expect(applyContainerDefaults(spec, lr(c.limits))).toEqual(c.notes);
      expect(spec.containers).toEqual(c.want);
    });
  }
});

describe('LimitRanger validation messages', () => {
  const cases: { name: string; limits: unknown[]; containers: unknown[]; want: string[] }[] = [
    {
      name: 'min request and max limit',
      limits: [{ type: 'Container', min: { cpu: '100m' }, max: { memory: '1Gi' } }],
      containers: [{ name: 'c', resources: { requests: { cpu: '50m', memory: '1Gi' }, limits: { cpu: '1', memory: '2Gi' } } }],
      want: ['minimum cpu usage per Container is 100m, but request is 50m', 'maximum memory usage per Container is 1Gi, but limit is 2Gi'],
    },
    {
      name: 'missing request / limit',
      limits: [{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' } }],
      containers: [{ name: 'c' }],
      want: ['minimum cpu usage per Container is 100m.  No request is specified', 'maximum cpu usage per Container is 1.  No limit is specified'],
    },
    {
      name: 'ratio',
      limits: [{ type: 'Container', maxLimitRequestRatio: { cpu: '2' } }],
      containers: [{ name: 'c', resources: { requests: { cpu: '100m' }, limits: { cpu: '500m' } } }],
      want: ['cpu max limit to request ratio per Container is 2, but provided ratio is 5.000000'],
    },
    {
      name: 'pod aggregate: containers sum, init containers max',
      limits: [{ type: 'Pod', max: { cpu: '1' } }],
      containers: [
        { name: 'a', resources: { requests: { cpu: '400m' }, limits: { cpu: '600m' } } },
        { name: 'b', resources: { requests: { cpu: '400m' }, limits: { cpu: '600m' } } },
      ],
      want: ['maximum cpu usage per Pod is 1, but limit is 1200m'],
    },
    { name: 'within bounds', limits: [{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' } }], containers: [{ name: 'c', resources: { requests: { cpu: '100m' }, limits: { cpu: '1' } } }], want: [] },
    { name: 'PersistentVolumeClaim items are ignored', limits: [{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' } }], containers: [{ name: 'c' }], want: [] },
  ];
  for (const c of cases) it(c.name, () => expect(validatePodLimits({ containers: c.containers } as never, lr(c.limits))).toEqual(c.want));
});

describe('LimitRanger plugin', () => {
  it('annotates the pod and refuses violations with one 403 listing them all', async () => {
    const env = fakeEnv();
    env.keyFor = (r, _g, ns, n) => `/registry/${r}/${ns}/${n}`;
    env.put('limitranges', lr([{ type: 'Container', default: { cpu: '500m', memory: '512Mi' }, defaultRequest: { cpu: '100m', memory: '128Mi' }, max: { memory: '1Gi' }, min: { cpu: '100m' } }]));
    env.put('limitranges', { ...lr([]), metadata: { name: 'other-ns', namespace: 'other' } });
    const plugin = limitRangerPlugin(env);

    const ok = podCreate({ metadata: { name: 'x' }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } });
    await plugin.admit!(ok);
    await plugin.validate!(ok);
    expect(ok.object!.metadata.annotations).toEqual({ 'kubernetes.io/limit-ranger': 'LimitRanger plugin set: cpu, memory request for container nginx; cpu, memory limit for container nginx' });

    const bad = podCreate({ metadata: { name: 'x' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '50m' }, limits: { memory: '2Gi' } } }] } });
    await plugin.admit!(bad);
    const err = await Promise.resolve(plugin.validate!(bad)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: 'pods "x" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, maximum memory usage per Container is 1Gi, but limit is 2Gi]',
    });
  });

  it('does nothing where limitranges are not served', async () => {
    const env = fakeEnv();
    env.keyFor = () => {
      throw new Error('keyFor: limitranges is not served');
    };
    const plugin = limitRangerPlugin(env);
    const a = podCreate({ metadata: { name: 'x' }, spec: { containers: [{ name: 'c' }] } });
    await plugin.admit!(a);
    await plugin.validate!(a);
    expect(a.object!.metadata.annotations).toBeUndefined();
  });
});

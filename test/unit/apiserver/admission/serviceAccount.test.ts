import { describe, expect, it } from 'vitest';
import { serviceAccountPlugin } from '../../../../main/apiserver/admission/serviceAccount';
import { defaultTolerationSecondsPlugin } from '../../../../main/apiserver/admission/defaultTolerationSeconds';
import { StatusError } from '../../../../main/apiserver/api/status';
import { fakeEnv, podCreate } from './fakeEnv';

const seq = (values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length];
};

const tokenVolume = (name: string) => ({
  name,
  projected: {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  },
});
const mount = (name: string) => ({ name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' });

describe('ServiceAccount admission', () => {
  const env = fakeEnv();
  env.put('serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } });
  env.put('serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'quiet', namespace: 'default' }, automountServiceAccountToken: false, imagePullSecrets: [{ name: 'regcred' }] } as never);
  // random() = 0 picks 'b' each time: kube-api-access-bbbbb
  const plugin = serviceAccountPlugin(env, undefined, { random: seq([0]) });

  const cases: { name: string; spec: Record<string, unknown>; want: Record<string, unknown> }[] = [
    {
      name: 'default SA, projected token volume mounted in every container',
      spec: { containers: [{ name: 'a' }, { name: 'b', volumeMounts: [{ name: 'data', mountPath: '/data' }] }], initContainers: [{ name: 'i' }] },
      want: {
        serviceAccountName: 'default',
        serviceAccount: 'default',
        containers: [{ name: 'a', volumeMounts: [mount('kube-api-access-bbbbb')] }, { name: 'b', volumeMounts: [{ name: 'data', mountPath: '/data' }, mount('kube-api-access-bbbbb')] }],
        initContainers: [{ name: 'i', volumeMounts: [mount('kube-api-access-bbbbb')] }],
        volumes: [tokenVolume('kube-api-access-bbbbb')],
      },
    },
    {
      name: 'automountServiceAccountToken false on the pod',
      spec: { automountServiceAccountToken: false, containers: [{ name: 'a' }] },
      want: { automountServiceAccountToken: false, serviceAccountName: 'default', serviceAccount: 'default', containers: [{ name: 'a' }] },
    },
    {
      name: 'the SA opts out and gives its imagePullSecrets',
      spec: { serviceAccountName: 'quiet', containers: [{ name: 'a' }] },
      want: { serviceAccountName: 'quiet', serviceAccount: 'quiet', containers: [{ name: 'a' }], imagePullSecrets: [{ name: 'regcred' }] },
    },
    {
      name: 'the pod overrides the SA: mounts anyway',
      spec: { serviceAccountName: 'quiet', automountServiceAccountToken: true, imagePullSecrets: [{ name: 'mine' }], containers: [{ name: 'a' }] },
      want: {
        serviceAccountName: 'quiet',
        serviceAccount: 'quiet',
        automountServiceAccountToken: true,
        imagePullSecrets: [{ name: 'mine' }],
        containers: [{ name: 'a', volumeMounts: [mount('kube-api-access-bbbbb')] }],
        volumes: [tokenVolume('kube-api-access-bbbbb')],
      },
    },
    {
      name: 'a container already mounting the path is left alone',
      spec: { containers: [{ name: 'a', volumeMounts: [{ name: 'own', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] }] },
      want: { serviceAccountName: 'default', serviceAccount: 'default', containers: [{ name: 'a', volumeMounts: [{ name: 'own', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] }] },
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const a = podCreate({ metadata: { name: 'p' }, spec: structuredClone(c.spec) });
      expect(plugin.handles!(a)).toBe(true);
      await plugin.admit!(a);
      await plugin.validate!(a);
      expect((a.object as unknown as { spec: unknown }).spec).toEqual(c.want);
    });
  }

  it('a missing SA is refused with kube’s message', async () => {
    const a = podCreate({ metadata: { name: 'x' }, spec: { serviceAccountName: 'sa', containers: [{ name: 'c' }] } });
    const err = await Promise.resolve(plugin.admit!(a)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status).toMatchObject({ code: 403, reason: 'Forbidden', message: 'pods "x" is forbidden: error looking up service account default/sa: serviceaccount "sa" not found' });
  });

  it('only pod creates are handled', () => {
    const a = podCreate({ metadata: { name: 'x' }, spec: {} });
    expect(plugin.handles!({ ...a, operation: 'UPDATE' })).toBe(false);
    expect(plugin.handles!({ ...a, subresource: 'status' })).toBe(false);
    expect(plugin.handles!({ ...a, resource: 'configmaps' })).toBe(false);
  });
});

describe('DefaultTolerationSeconds', () => {
  const plugin = defaultTolerationSecondsPlugin(fakeEnv(), { flags: { defaultNotReadyTolerationSeconds: 300, defaultUnreachableTolerationSeconds: 300 } });
  const notReady = { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
  const unreachable = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
  const cases: { name: string; tolerations?: unknown[]; want: unknown[] }[] = [
    { name: 'none → both', want: [notReady, unreachable] },
    { name: 'existing not-ready kept, unreachable added', tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }], want: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }, unreachable] },
    { name: 'empty key and effect tolerate everything', tolerations: [{ operator: 'Exists' }], want: [{ operator: 'Exists' }] },
    { name: 'NoSchedule does not count', tolerations: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule', operator: 'Exists' }], want: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule', operator: 'Exists' }, notReady, unreachable] },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const a = podCreate({ metadata: { name: 'p' }, spec: c.tolerations ? { tolerations: structuredClone(c.tolerations) } : {} });
      await plugin.admit!(a);
      expect((a.object as unknown as { spec: { tolerations: unknown[] } }).spec.tolerations).toEqual(c.want);
    });
  }
});

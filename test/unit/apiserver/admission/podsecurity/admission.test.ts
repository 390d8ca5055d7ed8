// Pod Security admission's decisions on whole requests, with in-memory
// namespaces and pods: the namespace label policy (enforce refuses with 403,
// warn adds a warning, audit an annotation), workloads (never refused),
// exemptions, namespace label validation (422), the existing-pods warning
// when a namespace's enforce level rises, and which pod updates are judged.

import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../../main/kube/object';
import { StatusError } from '../../../../../main/apiserver/api/status';
import { PodSecurityAdmission, isSignificantPodUpdate } from '../../../../../main/apiserver/admission/podsecurity/admission';
import { loadConfig } from '../../../../../main/apiserver/admission/podsecurity/config';
import { podSecurityPlugin } from '../../../../../main/apiserver/admission/podsecurity/index';
import { newEvaluator } from '../../../../../main/apiserver/admission/podsecurity/registry';
import type { AdmissionAttributes } from '../../../../../main/apiserver/admission/interfaces';
import type { ServerEnv } from '../../../../../main/apiserver/serverEnv';
import { MemStorage } from '../../registry/memStorage';

const user = { username: 'alice', groups: ['system:authenticated'] };

const ns = (name: string, labels: Record<string, string> = {}): KObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } }) as KObject;

const privilegedPod = (name: string, extra: Record<string, unknown> = {}): KObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'x', ...extra }, spec: { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] } }) as KObject;

const plainPod = (name: string): KObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'x' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }) as KObject;

function attrs(over: Partial<AdmissionAttributes>): AdmissionAttributes {
  return { operation: 'CREATE', group: '', version: 'v1', kind: 'Pod', resource: 'pods', subresource: '', namespace: 'x', name: 'p', user, dryRun: false, warnings: [], auditAnnotations: {}, ...over };
}

function admission(namespaces: KObject[], pods: KObject[] = [], config?: unknown): PodSecurityAdmission {
  const loaded = loadConfig(config);
  return new PodSecurityAdmission({
    ...loaded,
    evaluator: newEvaluator(),
    getNamespace: async (name) => namespaces.find((n) => n.metadata.name === name),
    listPods: async (namespace) => pods.filter((p) => p.metadata.namespace === namespace),
  });
}

const PRIV_DETAIL =
  'privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

describe('pods', () => {
  const cases: { name: string; labels: Record<string, string>; pod?: KObject; config?: unknown; user?: string; want: { allowed: boolean; message?: string; code?: number; warnings: string[]; annotations: Record<string, string> } }[] = [
    {
      name: 'enforce=restricted refuses with 403 and kube message',
      labels: { 'pod-security.kubernetes.io/enforce': 'restricted' },
      want: { allowed: false, code: 403, message: `pods "p" is forbidden: violates PodSecurity "restricted:latest": ${PRIV_DETAIL}`, warnings: [], annotations: { 'enforce-policy': 'restricted:latest' } },
    },
    {
      name: 'enforce=baseline with a version quotes it',
      labels: { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.29' },
      want: { allowed: false, code: 403, message: 'pods "p" is forbidden: violates PodSecurity "baseline:v1.29": privileged (container "c" must not set securityContext.privileged=true)', warnings: [], annotations: { 'enforce-policy': 'baseline:v1.29' } },
    },
    {
      name: 'warn=restricted warns and allows',
      labels: { 'pod-security.kubernetes.io/warn': 'restricted' },
      want: { allowed: true, warnings: [`would violate PodSecurity "restricted:latest": ${PRIV_DETAIL}`], annotations: { 'enforce-policy': 'privileged:latest' } },
    },
    {
      name: 'audit=baseline annotates',
      labels: { 'pod-security.kubernetes.io/audit': 'baseline' },
      want: { allowed: true, warnings: [], annotations: { 'enforce-policy': 'privileged:latest', 'audit-violations': 'would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)' } },
    },
    {
      name: 'enforce refusal carries no warnings but keeps the audit',
      labels: { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/warn': 'restricted', 'pod-security.kubernetes.io/audit': 'restricted' },
      want: {
        allowed: false,
        code: 403,
        message: 'pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)',
        warnings: [],
        annotations: { 'enforce-policy': 'baseline:latest', 'audit-violations': `would violate PodSecurity "restricted:latest": ${PRIV_DETAIL}` },
      },
    },
    { name: 'no labels: privileged', labels: {}, want: { allowed: true, warnings: [], annotations: { 'enforce-policy': 'privileged:latest' } } },
    {
      name: 'a bad enforce label fails closed (restricted) and is audited',
      labels: { 'pod-security.kubernetes.io/enforce': 'strict' },
      want: {
        allowed: false,
        code: 403,
        message: `pods "p" is forbidden: violates PodSecurity "restricted:latest": ${PRIV_DETAIL}`,
        warnings: [],
        annotations: { 'enforce-policy': 'restricted:latest', error: 'Failed to parse policy: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted' },
      },
    },
    {
      name: 'config defaults apply to unlabelled namespaces',
      labels: {},
      config: { apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', defaults: { enforce: 'baseline' } },
      want: { allowed: false, code: 403, message: 'pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)', warnings: [], annotations: { 'enforce-policy': 'baseline:latest' } },
    },
    {
      name: 'exempt namespace',
      labels: { 'pod-security.kubernetes.io/enforce': 'restricted' },
      config: { apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', exemptions: { namespaces: ['x'] } },
      want: { allowed: true, warnings: [], annotations: { exempt: 'namespace' } },
    },
    {
      name: 'exempt user',
      labels: { 'pod-security.kubernetes.io/enforce': 'restricted' },
      user: 'ci-bot',
      config: { apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', exemptions: { usernames: ['ci-bot'] } },
      want: { allowed: true, warnings: [], annotations: { exempt: 'user' } },
    },
    {
      name: 'exempt runtime class',
      labels: { 'pod-security.kubernetes.io/enforce': 'restricted' },
      pod: { ...privilegedPod('p'), spec: { runtimeClassName: 'kata', containers: [{ name: 'c', securityContext: { privileged: true } }] } } as KObject,
      config: { apiVersion: 'pod-security.admission.config.k8s.io/v1beta1', kind: 'PodSecurityConfiguration', exemptions: { runtimeClasses: ['kata'] } },
      want: { allowed: true, warnings: [], annotations: { exempt: 'runtimeClass' } },
    },
  ];
  it.each(cases)('$name', async (c) => {
    const psa = admission([ns('x', c.labels)], [], c.config);
    const r = await psa.validate(attrs({ object: c.pod ?? privilegedPod('p'), user: { username: c.user ?? 'alice', groups: [] } }));
    expect(r.allowed).toBe(c.want.allowed);
    expect(r.status?.status.message).toBe(c.want.message);
    expect(r.status?.status.code).toBe(c.want.code);
    if (c.want.code) expect(r.status?.status.details).toEqual({ name: 'p', kind: 'pods' });
    expect(r.warnings).toEqual(c.want.warnings);
    expect(r.auditAnnotations).toEqual(c.want.annotations);
  });

  it('updates: only image / container changes are judged; status and ignored subresources pass', async () => {
    const psa = admission([ns('x', { 'pod-security.kubernetes.io/enforce': 'restricted' })]);
    const old = privilegedPod('p');
    const relabelled = privilegedPod('p', { labels: { a: 'b' } });
    expect((await psa.validate(attrs({ operation: 'UPDATE', object: relabelled, oldObject: old }))).allowed).toBe(true);
    const newImage = { ...old, spec: { containers: [{ name: 'c', image: 'nginx:2', securityContext: { privileged: true } }] } } as KObject;
    expect((await psa.validate(attrs({ operation: 'UPDATE', object: newImage, oldObject: old }))).allowed).toBe(false);
    expect((await psa.validate(attrs({ operation: 'UPDATE', subresource: 'status', object: newImage, oldObject: old }))).allowed).toBe(true);
    const withDebug = { ...old, spec: { ...(old as unknown as { spec: object }).spec, ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] } } as KObject;
    expect((await psa.validate(attrs({ operation: 'UPDATE', subresource: 'ephemeralcontainers', object: withDebug, oldObject: old }))).allowed).toBe(false);
    expect((await psa.validate(attrs({ operation: 'DELETE', oldObject: old }))).allowed).toBe(true);
  });

  it.each([
    { name: 'labels only', change: (p: KObject) => ({ ...p, metadata: { ...p.metadata, labels: { x: 'y' } } }), want: false },
    { name: 'image', change: (p: KObject) => ({ ...p, spec: { containers: [{ name: 'c', image: 'other' }] } }), want: true },
    { name: 'container added', change: (p: KObject) => ({ ...p, spec: { containers: [{ name: 'c', image: 'nginx' }, { name: 'd' }] } }), want: true },
    { name: 'seccomp container annotation', change: (p: KObject) => ({ ...p, metadata: { ...p.metadata, annotations: { 'container.seccomp.security.alpha.kubernetes.io/c': 'unconfined' } } }), want: true },
    { name: 'ephemeral container added', change: (p: KObject) => ({ ...p, spec: { containers: [{ name: 'c', image: 'nginx' }], ephemeralContainers: [{ name: 'e' }] } }), want: true },
  ])('isSignificantPodUpdate: $name', ({ change, want }) => {
    const old = plainPod('p');
    expect(isSignificantPodUpdate(change(old) as KObject, old)).toBe(want);
  });
});

describe('workloads (pod templates): warn and audit, never enforce', () => {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'x' },
    spec: { template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] } } },
  } as unknown as KObject;
  const cronJob = {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'cj', namespace: 'x' },
    spec: { jobTemplate: { spec: { template: { spec: { hostNetwork: true, containers: [{ name: 'c' }] } } } } },
  } as unknown as KObject;
  it.each([
    {
      name: 'deployment in enforce=restricted: created, warned (warn defaults to the stricter enforce level)',
      labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } as Record<string, string>,
      obj: deployment,
      group: 'apps',
      resource: 'deployments',
      warnings: [`would violate PodSecurity "restricted:latest": ${PRIV_DETAIL}`],
      annotations: {},
    },
    {
      name: 'deployment in enforce=restricted, warn=privileged: no warning',
      labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'privileged' },
      obj: deployment,
      group: 'apps',
      resource: 'deployments',
      warnings: [] as string[],
      annotations: {},
    },
    {
      name: 'deployment with warn=restricted',
      labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'restricted' },
      obj: deployment,
      group: 'apps',
      resource: 'deployments',
      warnings: [`would violate PodSecurity "restricted:latest": ${PRIV_DETAIL}`],
      annotations: {},
    },
    {
      name: 'cronjob template with audit=baseline',
      labels: { 'pod-security.kubernetes.io/audit': 'baseline' },
      obj: cronJob,
      group: 'batch',
      resource: 'cronjobs',
      warnings: [],
      annotations: { 'audit-violations': 'would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)' },
    },
  ])('$name', async (c) => {
    const psa = admission([ns('x', c.labels)]);
    const r = await psa.validate(attrs({ group: c.group, resource: c.resource, kind: c.obj.kind, name: c.obj.metadata.name, object: c.obj }));
    expect(r.allowed).toBe(true);
    expect(r.warnings).toEqual(c.warnings);
    expect(r.auditAnnotations).toEqual(c.annotations);
  });
});

describe('namespaces', () => {
  const nsAttrs = (op: 'CREATE' | 'UPDATE', obj: KObject, old?: KObject) =>
    attrs({ operation: op, kind: 'Namespace', resource: 'namespaces', namespace: op === 'UPDATE' ? obj.metadata.name! : '', name: obj.metadata.name!, object: obj, oldObject: old });

  it.each<{ labels: Record<string, string>; want: string }>([
    { labels: { 'pod-security.kubernetes.io/enforce': 'strict' }, want: 'Namespace "x" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted' },
    { labels: { 'pod-security.kubernetes.io/warn-version': '1.29' }, want: 'Namespace "x" is invalid: metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.29": must be "latest" or "v1.x"' },
    {
      labels: { 'pod-security.kubernetes.io/enforce': 'x', 'pod-security.kubernetes.io/audit-version': 'v2.0' },
      want: 'Namespace "x" is invalid: [metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "x": must be one of privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/audit-version]: Invalid value: "v2.0": must be "latest" or "v1.x"]',
    },
  ])('create with bad labels: 422 $want', async ({ labels, want }) => {
    const r = await admission([]).validate(nsAttrs('CREATE', ns('x', labels)));
    expect(r.allowed).toBe(false);
    expect(r.status?.status.code).toBe(422);
    expect(r.status?.status.reason).toBe('Invalid');
    expect(r.status?.status.message).toBe(want);
  });

  it('update: unchanged bad labels do not block; new bad labels do', async () => {
    const bad = ns('x', { 'pod-security.kubernetes.io/enforce': 'strict' });
    const psa = admission([]);
    expect((await psa.validate(nsAttrs('UPDATE', ns('x', { ...bad.metadata.labels, other: 'y' }), bad))).allowed).toBe(true);
    expect((await psa.validate(nsAttrs('UPDATE', ns('x', { 'pod-security.kubernetes.io/enforce': 'stricter' }), bad))).status?.status.code).toBe(422);
  });

  it('raising enforce warns about existing pods, grouped by violations, sorted', async () => {
    const pods = [privilegedPod('web-b'), privilegedPod('web-a'), privilegedPod('web-c'), plainPod('plain'), { ...privilegedPod('host'), spec: { hostNetwork: true, containers: [{ name: 'c' }] } } as KObject];
    const psa = admission([], pods);
    const r = await psa.validate(nsAttrs('UPDATE', ns('x', { 'pod-security.kubernetes.io/enforce': 'baseline' }), ns('x')));
    expect(r.allowed).toBe(true);
    expect(r.warnings).toEqual(['existing pods in namespace "x" violate the new PodSecurity enforce level "baseline:latest"', 'host: host namespaces', 'web-a (and 2 other pods): privileged']);
    const restricted = await psa.validate(nsAttrs('UPDATE', ns('x', { 'pod-security.kubernetes.io/enforce': 'restricted' }), ns('x', { 'pod-security.kubernetes.io/enforce': 'baseline' })));
    expect(restricted.warnings).toEqual([
      'existing pods in namespace "x" violate the new PodSecurity enforce level "restricted:latest"',
      'host: host namespaces, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
      'plain: allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
      'web-a (and 2 other pods): privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
    ]);
  });

  it('checks at most 3000 pods, and stops at the 1 s budget (one pod per controller first)', async () => {
    const owned = (name: string, uid: string) => privilegedPod(name, { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid, controller: true }] });
    const many = Array.from({ length: 3002 }, (_, i) => plainPod(`p${String(i).padStart(4, '0')}`));
    const capped = await admission([], many).evaluatePodsInNamespace('x', { level: 'baseline', version: { latest: true } });
    expect(capped).toEqual(['new PodSecurity enforce level only checked against the first 3000 of 3002 existing pods']);

    // A clock that jumps 600 ms per reading: the budget runs out after the second pod. The
    // replicas of rs-1 go last, so the lone pod of rs-2 is among those checked.
    let t = 0;
    const hostNet = { ...owned('b1', 'rs-2'), spec: { hostNetwork: true, containers: [{ name: 'c' }] } } as KObject;
    const pods = [owned('a1', 'rs-1'), owned('a2', 'rs-1'), owned('a3', 'rs-1'), hostNet];
    const loaded = loadConfig(undefined);
    const psa = new PodSecurityAdmission({ ...loaded, evaluator: newEvaluator(), getNamespace: async () => undefined, listPods: async () => pods, nowMs: () => (t += 600) });
    expect(await psa.evaluatePodsInNamespace('x', { level: 'baseline', version: { latest: true } })).toEqual([
      'new PodSecurity enforce level only checked against the first 2 of 4 existing pods',
      'existing pods in namespace "x" violate the new PodSecurity enforce level "baseline:latest"',
      'a1: privileged',
      'b1: host namespaces',
    ]);
  });

  it.each<{ name: string; old: Record<string, string>; now: Record<string, string> }>([
    { name: 'unchanged enforce', old: { 'pod-security.kubernetes.io/enforce': 'baseline' }, now: { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/warn': 'restricted' } },
    { name: 'relaxed enforce', old: { 'pod-security.kubernetes.io/enforce': 'restricted' }, now: { 'pod-security.kubernetes.io/enforce': 'baseline' } },
    { name: 'to privileged', old: { 'pod-security.kubernetes.io/enforce': 'restricted' }, now: {} },
  ])('no existing-pods check: $name', async ({ old, now }) => {
    const r = await admission([], [privilegedPod('p'), plainPod('q')]).validate(nsAttrs('UPDATE', ns('x', now), ns('x', old)));
    expect(r).toEqual({ allowed: true, warnings: [], auditAnnotations: {} });
  });

  it('exempt namespace: labels are ignored, with a warning', async () => {
    const config = { apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', exemptions: { namespaces: ['x'] } };
    const r = await admission([], [privilegedPod('p')], config).validate(nsAttrs('UPDATE', ns('x', { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'baseline' }), ns('x')));
    expect(r.warnings).toEqual(['namespace "x" is exempt from Pod Security, and the policy (enforce=restricted:latest, warn=baseline:latest) will be ignored']);
  });
});

describe('namespace labels to policy (kube TestPolicyToEvaluate)', () => {
  const p = { level: 'privileged', version: { latest: true } };
  const lv = (level: string, minor?: number) => ({ level, version: minor === undefined ? { latest: true } : { latest: false, major: 1, minor } });
  const policyOf = (enforce: object, warn: object, audit: object) => ({ enforce, warn, audit });
  it.each([
    { name: 'simple enforce', labels: { enforce: 'baseline' }, want: policyOf(lv('baseline'), lv('baseline'), p), err: false },
    { name: 'simple warn', labels: { warn: 'restricted' }, want: policyOf(p, lv('restricted'), p), err: false },
    { name: 'simple audit', labels: { audit: 'baseline' }, want: policyOf(p, p, lv('baseline')), err: false },
    { name: 'enforce & warn', labels: { enforce: 'baseline', warn: 'restricted' }, want: policyOf(lv('baseline'), lv('restricted'), p), err: false },
    { name: 'enforce version', labels: { enforce: 'baseline', 'enforce-version': 'v1.22' }, want: policyOf(lv('baseline', 22), lv('baseline', 22), p), err: false },
    { name: 'enforce version & warn-version', labels: { enforce: 'baseline', 'enforce-version': 'v1.22', 'warn-version': 'latest' }, want: policyOf(lv('baseline', 22), lv('baseline'), p), err: false },
    { name: 'enforce & warn-version', labels: { enforce: 'baseline', 'warn-version': 'v1.23' }, want: policyOf(lv('baseline'), lv('baseline', 23), p), err: false },
    {
      name: 'fully specified',
      labels: { enforce: 'baseline', 'enforce-version': 'v1.20', warn: 'restricted', 'warn-version': 'v1.21', audit: 'restricted', 'audit-version': 'v1.22' },
      want: policyOf(lv('baseline', 20), lv('restricted', 21), lv('restricted', 22)),
      err: false,
    },
    { name: 'enforce no warn', labels: { enforce: 'baseline', warn: 'privileged' }, want: policyOf(lv('baseline'), p, p), err: false },
    { name: 'enforce warn error', labels: { enforce: 'baseline', warn: 'foo' }, want: policyOf(lv('baseline'), p, p), err: true },
    { name: 'enforce error', labels: { enforce: 'foo' }, want: policyOf(lv('restricted'), p, p), err: true },
  ])('$name', ({ labels, want, err }) => {
    const prefixed = Object.fromEntries([['other-label', 'foo-bar'], ...Object.entries(labels).map(([k, v]) => [`pod-security.kubernetes.io/${k}`, v])]);
    const { policy, errors } = admission([]).policyFor(prefixed);
    expect(policy).toEqual(want);
    expect(errors.length > 0).toBe(err);
  });
});

describe('configuration', () => {
  it.each([
    { config: { apiVersion: 'v1', kind: 'Other' }, want: 'PodSecurity configuration error: expected PodSecurityConfiguration, got v1, Kind=Other' },
    {
      config: { apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', defaults: { enforce: 'max', 'warn-version': 'v1' }, exemptions: { usernames: ['a', 'a', ''], namespaces: ['Bad_NS'] } },
      want:
        'PodSecurity invalid: [defaults.enforce: Invalid value: "max": must be one of privileged, baseline, restricted, defaults.warn-version: Invalid value: "v1": must be "latest" or "v1.x", exemptions.namespaces[0]: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\'), exemptions.usernames[1]: Duplicate value: "a", exemptions.usernames[2]: Required value]',
    },
  ])('rejects $config.kind', ({ config, want }) => {
    expect(() => loadConfig(config)).toThrow(want);
  });

  it('reads YAML text and fills unset defaults with privileged:latest', () => {
    const { defaultPolicy, config } = loadConfig('apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults:\n  warn: restricted\n  warn-version: v1.30\n');
    expect(defaultPolicy.warn).toEqual({ level: 'restricted', version: { latest: false, major: 1, minor: 30 } });
    expect(defaultPolicy.enforce).toEqual({ level: 'privileged', version: { latest: true } });
    expect(config.exemptions).toEqual({ usernames: [], namespaces: [], runtimeClasses: [] });
  });
});

describe('the plugin on the server env', () => {
  function env(storage: MemStorage): ServerEnv {
    return { etcdPrefix: '/registry', storageFor: () => storage, keyFor: (r: string, _g: string, n: string, name: string) => (r === 'namespaces' ? `/registry/namespaces/${name}` : `/registry/${r}/${n}/${name}`) } as unknown as ServerEnv;
  }
  it('reads the namespace, prefixes audit annotations, pushes warnings once, throws the Status', async () => {
    const storage = new MemStorage();
    await storage.create('/registry/namespaces/x', ns('x', { 'pod-security.kubernetes.io/warn': 'baseline', 'pod-security.kubernetes.io/audit': 'baseline' }));
    await storage.create('/registry/namespaces/y', ns('y', { 'pod-security.kubernetes.io/enforce': 'baseline' }));
    const plugin = podSecurityPlugin(env(storage));
    const a = attrs({ object: privilegedPod('p') });
    await plugin.validate!(a);
    await plugin.validate!(a);
    expect(a.warnings).toEqual(['would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)']);
    expect(a.auditAnnotations).toEqual({
      'pod-security.kubernetes.io/enforce-policy': 'privileged:latest',
      'pod-security.kubernetes.io/audit-violations': 'would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)',
    });
    const denied = attrs({ namespace: 'y', object: privilegedPod('p') });
    const err = await Promise.resolve(plugin.validate!(denied)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status.message).toBe('pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)');
    // Resources Pod Security does not judge are left alone.
    await plugin.validate!(attrs({ resource: 'configmaps', kind: 'ConfigMap', namespace: 'y' }));
  });
});

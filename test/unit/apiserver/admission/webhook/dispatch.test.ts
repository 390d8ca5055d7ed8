// The dispatchers against the real example webhook served in-process over
// HTTPS (a test CA, a 127.0.0.1 serving certificate): patches, denials,
// failure policies with Go's error texts, timeouts, selectors, match
// conditions and reinvocation.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KObject } from '../../../../../main/kube/object';
import { StatusError, notFound } from '../../../../../main/apiserver/api/status';
import type { AdmissionAttributes } from '../../../../../main/apiserver/admission/interfaces';
import { webhooksOf, type Webhook } from '../../../../../main/apiserver/admission/webhook/hooks';
import type { DispatchDeps } from '../../../../../main/apiserver/admission/webhook/invoke';
import { dispatchMutating } from '../../../../../main/apiserver/admission/webhook/mutating';
import { dispatchValidating } from '../../../../../main/apiserver/admission/webhook/validating';
import { issueCa, issueLeaf } from '../../../../../main/common/pki/certificates';
import { startExampleWebhook, type RunningExampleWebhook } from '../../../../../main/cmd/exampleWebhook';

let dir: string;
let hook: RunningExampleWebhook;
let caBundle: string;
let closedPort: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'webhook-unit-'));
  const ca = await issueCa('webhook-test-ca');
  const leaf = await issueLeaf(ca, { profile: 'server', commonName: 'example-webhook', hosts: ['127.0.0.1', 'localhost'] });
  writeFileSync(join(dir, 'tls.crt'), leaf.cert);
  writeFileSync(join(dir, 'tls.key'), leaf.key);
  caBundle = Buffer.from(ca.cert).toString('base64');
  hook = await startExampleWebhook({ cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key'), port: 0, bindAddress: '127.0.0.1', label: ['team', 'backend'] });
  // A port nothing listens on: bind, note, close.
  closedPort = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}, 30_000);

afterAll(async () => {
  await hook?.close();
  rmSync(dir, { recursive: true, force: true });
});

type HookSpec = Record<string, unknown>;

function hooks(kind: 'mutating' | 'validating', specs: HookSpec[], configName = 'cfg'): Webhook[] {
  const webhooks = specs.map((s) => ({
    clientConfig: { url: `${hook.url}${(s.path as string) ?? (kind === 'mutating' ? '/mutate' : '/validate')}`, caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    failurePolicy: 'Fail',
    timeoutSeconds: 10,
    namespaceSelector: {},
    objectSelector: {},
    ...s,
  }));
  return webhooksOf({ metadata: { name: configName }, webhooks } as unknown as KObject, kind);
}

function podAttrs(labels?: Record<string, string>, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  const object: KObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', ...(labels ? { labels } : {}) }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  return {
    operation: 'CREATE',
    group: '',
    version: 'v1',
    kind: 'Pod',
    resource: 'pods',
    subresource: '',
    namespace: 'default',
    name: 'p',
    user: { username: 'jane', groups: ['system:authenticated'] },
    dryRun: false,
    object,
    warnings: [],
    auditAnnotations: {},
    ...over,
  };
}

const namespaces: Record<string, Record<string, string>> = { default: { 'kubernetes.io/metadata.name': 'default', env: 'dev' } };
const logs: string[] = [];
const deps: DispatchDeps = {
  namespaceLabels: async (name) => {
    if (!namespaces[name]) throw notFound({ group: '', resource: 'namespaces' }, name);
    return namespaces[name]!;
  },
  services: async () => undefined,
  defaults: () => {},
  log: (l) => logs.push(l),
};

async function statusOf(run: Promise<unknown>): Promise<{ code: number; message: string; reason?: string } | undefined> {
  try {
    await run;
    return undefined;
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    return { code: err.code, message: err.status.message ?? '', reason: err.status.reason };
  }
}

describe('mutating webhooks', () => {
  it('add the label with a JSON patch and record audit annotations', async () => {
    const attrs = podAttrs();
    await dispatchMutating(hooks('mutating', [{ name: 'team.example.com' }]), attrs, deps);
    expect(attrs.object!.metadata.labels).toEqual({ team: 'backend' });
    expect(JSON.parse(attrs.auditAnnotations['mutation.webhook.admission.k8s.io/round_0_index_0']!)).toEqual({ configuration: 'cfg', webhook: 'team.example.com', mutated: true });
    expect(JSON.parse(attrs.auditAnnotations['patch.webhook.admission.k8s.io/round_0_index_0']!)).toEqual({
      configuration: 'cfg',
      webhook: 'team.example.com',
      patch: [{ op: 'add', path: '/metadata/labels', value: { team: 'backend' } }],
      patchType: 'JSONPatch',
    });
  });

  it('leave an object that has the label alone; escape keys per RFC 6901', async () => {
    const attrs = podAttrs({ team: 'frontend' });
    await dispatchMutating(hooks('mutating', [{ name: 'team.example.com' }]), attrs, deps);
    expect(attrs.object!.metadata.labels).toEqual({ team: 'frontend' });
    const other = await startExampleWebhook({ cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key'), port: 0, bindAddress: '127.0.0.1', label: ['app.kubernetes.io/team', 'a~b'] });
    try {
      const a2 = podAttrs({ x: 'y' });
      await dispatchMutating(hooks('mutating', [{ name: 'team.example.com', clientConfig: { url: `${other.url}/mutate`, caBundle } }]), a2, deps);
      expect(a2.object!.metadata.labels).toEqual({ x: 'y', 'app.kubernetes.io/team': 'a~b' });
      expect(a2.auditAnnotations['patch.webhook.admission.k8s.io/round_0_index_0']).toContain('"/metadata/labels/app.kubernetes.io~1team"');
    } finally {
      await other.close();
    }
  });

  it('reinvoke an earlier IfNeeded webhook once after a later one changed the object', async () => {
    const other = await startExampleWebhook({ cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key'), port: 0, bindAddress: '127.0.0.1', label: ['tier', 'web'] });
    try {
      const attrs = podAttrs({ a: 'b' });
      const hs = hooks('mutating', [
        { name: 'a.example.com', reinvocationPolicy: 'IfNeeded' },
        { name: 'b.example.com', clientConfig: { url: `${other.url}/mutate`, caBundle } },
      ]);
      await dispatchMutating(hs, attrs, deps);
      expect(attrs.object!.metadata.labels).toEqual({ a: 'b', team: 'backend', tier: 'web' });
      expect(JSON.parse(attrs.auditAnnotations['mutation.webhook.admission.k8s.io/round_1_index_0']!)).toEqual({ configuration: 'cfg', webhook: 'a.example.com', mutated: false });
      expect(attrs.auditAnnotations['mutation.webhook.admission.k8s.io/round_1_index_1']).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});

describe('warnings and audit annotations', () => {
  it('reach the request: warnings as given, annotations under <webhook name>/<key>', async () => {
    const other = await startExampleWebhook({
      cert: join(dir, 'tls.crt'),
      key: join(dir, 'tls.key'),
      port: 0,
      bindAddress: '127.0.0.1',
      label: ['team', 'backend'],
      warning: 'team label is deprecated',
      auditAnnotation: ['decision', 'checked'],
    });
    try {
      const attrs = podAttrs({ team: 'x' });
      await dispatchValidating(hooks('validating', [{ name: 'warn.example.com', clientConfig: { url: `${other.url}/validate`, caBundle } }]), attrs, deps);
      await dispatchMutating(hooks('mutating', [{ name: 'mut.example.com', clientConfig: { url: `${other.url}/mutate`, caBundle } }]), attrs, deps);
      expect(attrs.warnings).toEqual(['team label is deprecated', 'team label is deprecated']);
      expect(attrs.auditAnnotations['warn.example.com/decision']).toBe('checked');
      expect(attrs.auditAnnotations['mut.example.com/decision']).toBe('checked');
    } finally {
      await other.close();
    }
  });
});

describe('failures and denials', () => {
  const refused = (port: number, path: string, timeout = 10) => `failed to call webhook: Post "https://127.0.0.1:${port}${path}?timeout=${timeout}s": dial tcp 127.0.0.1:${port}: connect: connection refused`;
  const cases: { name: string; kind: 'mutating' | 'validating'; spec: HookSpec; attrs?: () => AdmissionAttributes; want?: { code: number; message: string; reason?: string }; annotation?: string }[] = [
    {
      name: 'validating denial carries the webhook message and code',
      kind: 'validating',
      spec: { name: 'team.example.com' },
      want: { code: 403, message: 'admission webhook "team.example.com" denied the request: pod "p" in namespace "default" lacks the required label "team"', reason: undefined },
    },
    { name: 'validating allow', kind: 'validating', spec: { name: 'team.example.com' }, attrs: () => podAttrs({ team: 'x' }) },
    {
      name: 'unreachable with Fail: 500 with Go text',
      kind: 'validating',
      spec: { name: 'down.example.com', clientConfig: { url: 'https://127.0.0.1:PORT/validate', caBundle } },
      want: { code: 500, reason: 'InternalError', message: `Internal error occurred: failed calling webhook "down.example.com": ${refused(-1, '/validate')}` },
    },
    {
      name: 'unreachable with Ignore: goes through, failed-open annotation',
      kind: 'validating',
      spec: { name: 'down.example.com', failurePolicy: 'Ignore', clientConfig: { url: 'https://127.0.0.1:PORT/validate', caBundle } },
      annotation: 'failed-open.validating.webhook.admission.k8s.io/round_0_index_0',
    },
    {
      name: 'mutating unreachable with Fail',
      kind: 'mutating',
      spec: { name: 'down.example.com', clientConfig: { url: 'https://127.0.0.1:PORT/mutate', caBundle } },
      want: { code: 500, reason: 'InternalError', message: `Internal error occurred: failed calling webhook "down.example.com": ${refused(-1, '/mutate')}` },
    },
    {
      name: 'mutating unreachable with Ignore',
      kind: 'mutating',
      spec: { name: 'down.example.com', failurePolicy: 'Ignore', clientConfig: { url: 'https://127.0.0.1:PORT/mutate', caBundle } },
      annotation: 'failed-open.mutation.webhook.admission.k8s.io/round_0_index_0',
    },
    {
      name: 'unknown CA',
      kind: 'validating',
      spec: { name: 'tls.example.com', clientConfig: { url: 'HOOK/validate' } },
      want: { code: 500, reason: 'InternalError', message: 'Internal error occurred: failed calling webhook "tls.example.com": failed to call webhook: Post "HOOK/validate?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority' },
    },
    {
      name: '404 from the webhook',
      kind: 'validating',
      spec: { name: 'nf.example.com', path: '/nope' },
      want: { code: 500, reason: 'InternalError', message: 'Internal error occurred: failed calling webhook "nf.example.com": failed to call webhook: the server could not find the requested resource' },
    },
    {
      name: 'service reference to a missing Service',
      kind: 'validating',
      spec: { name: 'svc.example.com', clientConfig: { service: { namespace: 'hooks', name: 'gate', path: '/validate', port: 443 }, caBundle } },
      want: { code: 500, reason: 'InternalError', message: 'Internal error occurred: failed calling webhook "svc.example.com": failed to call webhook: Post "https://gate.hooks.svc:443/validate?timeout=10s": service "gate" not found' },
    },
    {
      name: 'dry run with side effects',
      kind: 'validating',
      spec: { name: 'se.example.com', sideEffects: 'Some' },
      attrs: () => podAttrs({ team: 'x' }, { dryRun: true }),
      want: { code: 400, reason: 'BadRequest', message: 'admission webhook "se.example.com" does not support dry run' },
    },
  ];
  it.each(cases)('$name', async ({ kind, spec, attrs: mk, want, annotation }) => {
    const fix = (v: unknown): unknown => (typeof v === 'string' ? v.replace('PORT', String(closedPort)).replace('HOOK', hook.url) : v);
    const s = JSON.parse(JSON.stringify(spec), (_k, v: unknown) => fix(v)) as HookSpec;
    const attrs = mk ? mk() : podAttrs();
    const run = kind === 'mutating' ? dispatchMutating(hooks(kind, [s]), attrs, deps) : dispatchValidating(hooks(kind, [s]), attrs, deps);
    const got = await statusOf(run);
    const w = want ? { ...want, message: want.message.replaceAll(':-1', `:${closedPort}`).replaceAll('HOOK', hook.url) } : undefined;
    expect(got).toEqual(w);
    if (annotation) expect(attrs.auditAnnotations[annotation]).toBe(s.name);
  });

  it('a slow webhook past timeoutSeconds fails with context deadline exceeded', async () => {
    const t0 = Date.now();
    const got = await statusOf(dispatchValidating(hooks('validating', [{ name: 'slow.example.com', path: '/slow/3000', timeoutSeconds: 1 }]), podAttrs({ team: 'x' }), deps));
    expect(got).toEqual({ code: 500, reason: 'InternalError', message: `Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "${hook.url}/slow/3000?timeout=1s": context deadline exceeded` });
    expect(Date.now() - t0).toBeLessThan(2500);
  });
});

describe('which webhooks are called', () => {
  // Each webhook here points at a closed port with failurePolicy Fail: called means refused.
  const cases: { name: string; spec: HookSpec; attrs: () => AdmissionAttributes; called: boolean }[] = [
    { name: 'rule matches', spec: {}, attrs: () => podAttrs(), called: true },
    { name: 'other resource', spec: {}, attrs: () => podAttrs(undefined, { resource: 'configmaps', kind: 'ConfigMap' }), called: false },
    { name: 'subresource needs pods/status', spec: {}, attrs: () => podAttrs(undefined, { subresource: 'status', operation: 'UPDATE' }), called: false },
    { name: 'pods/* matches a subresource', spec: { rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/*'] }] }, attrs: () => podAttrs(undefined, { subresource: 'status', operation: 'UPDATE' }), called: true },
    { name: 'operation not listed', spec: {}, attrs: () => podAttrs(undefined, { operation: 'DELETE', object: undefined }), called: false },
    { name: 'Cluster scope skips namespaced', spec: { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: 'Cluster' }] }, attrs: () => podAttrs(), called: false },
    { name: 'namespaceSelector matches', spec: { namespaceSelector: { matchLabels: { env: 'dev' } } }, attrs: () => podAttrs(), called: true },
    { name: 'namespaceSelector skips', spec: { namespaceSelector: { matchLabels: { env: 'prod' } } }, attrs: () => podAttrs(), called: false },
    { name: 'namespaceSelector NotIn', spec: { namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }] } }, attrs: () => podAttrs(), called: false },
    { name: 'objectSelector matches new labels', spec: { objectSelector: { matchLabels: { app: 'web' } } }, attrs: () => podAttrs({ app: 'web' }), called: true },
    { name: 'objectSelector skips', spec: { objectSelector: { matchLabels: { app: 'web' } } }, attrs: () => podAttrs({ app: 'db' }), called: false },
    {
      name: 'objectSelector matches old labels',
      spec: { objectSelector: { matchLabels: { app: 'web' } } },
      attrs: () => podAttrs({ app: 'db' }, { operation: 'UPDATE', oldObject: { metadata: { name: 'p', labels: { app: 'web' } } } }),
      called: true,
    },
    { name: 'matchConditions false skips', spec: { matchConditions: [{ name: 'not-jane', expression: "request.userInfo.username != 'jane'" }] }, attrs: () => podAttrs(), called: false },
    { name: 'matchConditions true calls', spec: { matchConditions: [{ name: 'is-jane', expression: "request.userInfo.username == 'jane'" }] }, attrs: () => podAttrs(), called: true },
    { name: 'matchConditions error with Ignore skips', spec: { failurePolicy: 'Ignore', matchConditions: [{ name: 'x', expression: "object.metadata.labels['missing'] == 'x'" }] }, attrs: () => podAttrs({ a: 'b' }), called: false },
  ];
  it.each(cases)('$name', async ({ spec, attrs, called }) => {
    const h = hooks('validating', [{ name: 'probe.example.com', clientConfig: { url: `https://127.0.0.1:${closedPort}/validate`, caBundle }, ...spec }]);
    const got = await statusOf(dispatchValidating(h, attrs(), deps));
    expect(got?.code === 500).toBe(called);
  });

  it('a matchConditions error with Fail refuses with 403', async () => {
    const h = hooks('validating', [{ name: 'probe.example.com', matchConditions: [{ name: 'x', expression: "object.metadata.labels['missing'] == 'x'" }] }]);
    const got = await statusOf(dispatchValidating(h, podAttrs({ a: 'b' }), deps));
    expect(got).toEqual({
      code: 403,
      reason: 'Forbidden',
      message: `pods "p" is forbidden: failed calling webhook "probe.example.com": expression 'object.metadata.labels['missing'] == 'x'' resulted in error: no such key: missing`,
    });
  });

  it('matchConditions may ask the authorizer chain (authorizer library)', async () => {
    // jane may delete pods in default, nobody else may.
    const authDeps: DispatchDeps = {
      ...deps,
      authorize: async (a) => ({ decision: a.user.username === 'jane' && a.verb === 'delete' && a.resource === 'pods' && a.namespace === 'default' ? 'allow' : 'noOpinion' }),
    };
    const expr = "authorizer.group('').resource('pods').namespace('default').check('delete').allowed()";
    const h = hooks('validating', [{ name: 'probe.example.com', clientConfig: { url: `https://127.0.0.1:${closedPort}/validate`, caBundle }, matchConditions: [{ name: 'can-delete', expression: expr }] }]);
    expect((await statusOf(dispatchValidating(h, podAttrs(), authDeps)))?.code).toBe(500);
    expect(await statusOf(dispatchValidating(h, podAttrs(undefined, { user: { username: 'bob', groups: [] } }), authDeps))).toBeUndefined();
  });

  it('a namespace that does not exist answers 404 when the selector needs its labels', async () => {
    const h = hooks('validating', [{ name: 'probe.example.com', namespaceSelector: { matchLabels: { env: 'dev' } } }]);
    const got = await statusOf(dispatchValidating(h, podAttrs(undefined, { namespace: 'ghost' }), deps));
    expect(got).toMatchObject({ code: 404, message: 'namespaces "ghost" not found' });
  });
});

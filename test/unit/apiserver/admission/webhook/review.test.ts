import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../../main/kube/object';
import type { AdmissionAttributes } from '../../../../../main/apiserver/admission/interfaces';
import { webhooksFrom } from '../../../../../main/apiserver/admission/webhook/hooks';
import { buildReview, InvalidResponseError, verifyResponse } from '../../../../../main/apiserver/admission/webhook/review';
import { toStatusErr } from '../../../../../main/apiserver/admission/webhook/errors';
import { labelPatch } from '../../../../../main/cmd/exampleWebhook';

const attrs: AdmissionAttributes = {
  operation: 'UPDATE',
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  resource: 'deployments',
  subresource: 'scale',
  namespace: 'default',
  name: 'web',
  user: { username: 'jane', uid: 'u1', groups: ['dev'] },
  dryRun: true,
  object: { metadata: { name: 'web' } },
  oldObject: { metadata: { name: 'web', labels: { a: 'b' } } },
  warnings: [],
  auditAnnotations: {},
};

describe('AdmissionReview request', () => {
  it('carries kind, resource, subresource, user, objects, dryRun and options', () => {
    const { uid, body } = buildReview(attrs, 'v1', 'uid-1');
    expect(uid).toBe('uid-1');
    expect(JSON.parse(body)).toEqual({
      kind: 'AdmissionReview',
      apiVersion: 'admission.k8s.io/v1',
      request: {
        uid: 'uid-1',
        kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
        resource: { group: 'apps', version: 'v1', resource: 'deployments' },
        subResource: 'scale',
        requestKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
        requestResource: { group: 'apps', version: 'v1', resource: 'deployments' },
        requestSubResource: 'scale',
        name: 'web',
        namespace: 'default',
        operation: 'UPDATE',
        userInfo: { username: 'jane', uid: 'u1', groups: ['dev'] },
        object: { metadata: { name: 'web' } },
        oldObject: { metadata: { name: 'web', labels: { a: 'b' } } },
        dryRun: true,
        options: { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] },
      },
    });
  });
});

describe('AdmissionReview response checks (VerifyAdmissionResponse)', () => {
  const ok = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' };
  const patch = Buffer.from('[]').toString('base64');
  const cases: { name: string; review: unknown; mutating?: boolean; error?: string; want?: object }[] = [
    { name: 'allowed', review: { ...ok, response: { uid: 'u', allowed: true } }, want: { uid: 'u', allowed: true } },
    { name: 'no response', review: ok, error: 'webhook response was absent' },
    { name: 'uid mismatch', review: { ...ok, response: { uid: 'x', allowed: true } }, error: 'expected response.uid="u", got "x"' },
    { name: 'wrong kind', review: { apiVersion: 'v1', kind: 'Status' }, error: 'expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got /v1, Kind=Status' },
    { name: 'patch without type', mutating: true, review: { ...ok, response: { uid: 'u', allowed: true, patch } }, error: 'webhook returned response.patch but not response.patchType' },
    { name: 'bad patch type', mutating: true, review: { ...ok, response: { uid: 'u', allowed: true, patch, patchType: 'Merge' } }, error: 'webhook returned invalid response.patchType of "Merge"' },
    { name: 'validating ignores a patch', review: { ...ok, response: { uid: 'u', allowed: true, patch } }, want: { uid: 'u', allowed: true } },
    {
      name: 'warnings and annotations',
      review: { ...ok, response: { uid: 'u', allowed: false, status: { code: 422, message: 'no' }, warnings: ['w'], auditAnnotations: { k: 'v' } } },
      want: { uid: 'u', allowed: false, status: { code: 422, message: 'no' }, warnings: ['w'], auditAnnotations: { k: 'v' } },
    },
  ];
  it.each(cases)('$name', ({ review, mutating, error, want }) => {
    if (error) {
      expect(() => verifyResponse('u', 'v1', mutating ?? false, review)).toThrow(new InvalidResponseError(error));
    } else {
      expect(verifyResponse('u', 'v1', mutating ?? false, review)).toEqual(want);
    }
  });
});

describe('denials (ToStatusErr)', () => {
  it.each([
    { status: { code: 403, message: 'no team' }, want: { code: 403, message: 'admission webhook "w.example.com" denied the request: no team' } },
    { status: { code: 200, message: 'low code' }, want: { code: 400, message: 'admission webhook "w.example.com" denied the request: low code' } },
    { status: { reason: 'Forbidden' }, want: { code: 400, reason: 'Forbidden', message: 'admission webhook "w.example.com" denied the request: Forbidden' } },
    { status: undefined, want: { code: 400, message: 'admission webhook "w.example.com" denied the request without explanation' } },
  ])('$want.message', ({ status, want }) => {
    const e = toStatusErr('w.example.com', status);
    expect({ code: e.code, message: e.status.message, ...(e.status.reason ? { reason: e.status.reason } : {}) }).toEqual(want);
  });
});

describe('configurations', () => {
  it('are called in name order, webhooks in listed order', () => {
    const cfg = (name: string, hooks: string[]) => ({ metadata: { name }, webhooks: hooks.map((h) => ({ name: h })) }) as unknown as KObject;
    const hooks = webhooksFrom([cfg('zeta', ['z1.a.b']), cfg('alpha', ['a2.a.b', 'a1.a.b'])], 'mutating');
    expect(hooks.map((h) => `${h.configurationName}/${h.name}`)).toEqual(['alpha/a2.a.b', 'alpha/a1.a.b', 'zeta/z1.a.b']);
    expect(hooks[0]).toMatchObject({ failurePolicy: 'Fail', timeoutSeconds: 10, reinvocationPolicy: 'Never' });
  });
});

describe('the example webhook patch', () => {
  it.each<{ labels: Record<string, string> | undefined; want: object[] | undefined }>([
    { labels: undefined, want: [{ op: 'add', path: '/metadata/labels', value: { team: 'backend' } }] },
    { labels: { a: 'b' }, want: [{ op: 'add', path: '/metadata/labels/team', value: 'backend' }] },
    { labels: { team: 'x' }, want: undefined },
  ])('$labels', ({ labels, want }) => {
    expect(labelPatch(labels, 'team', 'backend')).toEqual(want);
  });
  it('escapes / and ~ in keys (RFC 6901)', () => {
    expect(labelPatch({}, 'example.com/a~b', 'v')).toEqual([{ op: 'add', path: '/metadata/labels/example.com~1a~0b', value: 'v' }]);
  });
});

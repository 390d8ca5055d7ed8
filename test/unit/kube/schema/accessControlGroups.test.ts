// The access-control groups (rbac, authentication, authorization, admissionregistration)
// and core LimitRange/ResourceQuota: bytes worked out by hand from the
// k8s.io/api v0.32 field numbers and Go shapes, and JSON as kube echoes it.

import { describe, expect, test } from 'vitest';
import { fromProto, gvkForMessage, messageForGvk, normalize, strictDecode, toProto } from '../../../../main/kube/schema/index';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const str = (s: string) => Buffer.from(s).toString('hex');

describe('gogo bytes of the new messages', () => {
  const cases: { name: string; message: string; input: Record<string, unknown>; want: string; back?: Record<string, unknown> }[] = [
    {
      name: 'rbac Subject: value strings always written (apiGroup, namespace empty)',
      message: 'k8s.io.api.rbac.v1.Subject',
      input: { kind: 'User', name: 'u' },
      want: `0a04${str('User')}1200` + `1a01${str('u')}2200`,
      back: { kind: 'User', name: 'u' },
    },
    {
      name: 'rbac RoleRef: all three non-omitempty fields come back even when empty',
      message: 'k8s.io.api.rbac.v1.RoleRef',
      input: { kind: 'Role' },
      want: `0a00` + `1204${str('Role')}` + `1a00`,
      back: { apiGroup: '', kind: 'Role', name: '' },
    },
    {
      name: 'rbac PolicyRule: repeated strings in field order',
      message: 'k8s.io.api.rbac.v1.PolicyRule',
      input: { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], nonResourceURLs: [] },
      want: `0a03${str('get')}0a04${str('list')}1200` + `1a04${str('pods')}`,
      back: { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
    },
    {
      name: 'TokenRequestSpec: expirationSeconds is a pointer (field 4 after 1), boundObjectRef absent',
      message: 'k8s.io.api.authentication.v1.TokenRequestSpec',
      input: { audiences: ['api'], expirationSeconds: 3600 },
      want: `0a03${str('api')}` + '20901c',
      back: { audiences: ['api'], expirationSeconds: 3600 },
    },
    {
      name: 'UserInfo.extra: ExtraValue is a message on the wire and a plain list in JSON',
      message: 'k8s.io.api.authentication.v1.UserInfo',
      input: { username: 'u', extra: { k: ['a', 'b'] } },
      want: `0a01${str('u')}1200` + `220b0a016b12060a01610a0162`,
      back: { username: 'u', uid: undefined, extra: { k: ['a', 'b'] } },
    },
    {
      name: 'SubjectAccessReviewStatus: allowed shown even when false, field 4 last',
      message: 'k8s.io.api.authorization.v1.SubjectAccessReviewStatus',
      input: { allowed: false },
      want: '0800' + '1200' + '1a00' + '2000',
      back: { allowed: false },
    },
    {
      name: 'NamedRuleWithOperations: two levels of inline structs, scope pointer unset',
      message: 'k8s.io.api.admissionregistration.v1.NamedRuleWithOperations',
      input: { resourceNames: ['a'], operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] },
      want: `0a01${str('a')}` + `1216` + `0a06${str('CREATE')}` + `120c0a00` + `1202${str('v1')}` + `1a04${str('pods')}`,
      back: { resourceNames: ['a'], operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] },
    },
    {
      name: 'WebhookClientConfig: caBundle bytes (2) before url pointer (3)',
      message: 'k8s.io.api.admissionregistration.v1.WebhookClientConfig',
      input: { url: 'https://x', caBundle: 'AQI=' },
      want: `12020102` + `1a09${str('https://x')}`,
      back: { url: 'https://x', caBundle: 'AQI=' },
    },
    {
      name: 'LimitRangeItem: type always written, Quantity map entries',
      message: 'k8s.io.api.core.v1.LimitRangeItem',
      input: { type: 'Container', max: { cpu: '1' } },
      want: `0a09${str('Container')}` + `120a0a03${str('cpu')}12030a01${str('1')}`,
      back: { type: 'Container', max: { cpu: '1' } },
    },
  ];
  test.each(cases)('$name', ({ message, input, want, back }) => {
    const bytes = toProto(message, input);
    expect(hex(bytes)).toBe(want);
    const json = fromProto(message, bytes);
    expect(JSON.parse(JSON.stringify(json))).toEqual(JSON.parse(JSON.stringify(back)));
  });
});

describe('each new kind round-trips as kube echoes it', () => {
  const meta = { name: 'x', creationTimestamp: '2024-05-01T10:00:00Z' };
  const nsMeta = { ...meta, namespace: 'default' };
  const cases: { kind: string; group: string; input: Record<string, unknown>; want: Record<string, unknown> }[] = [
    {
      kind: 'Role',
      group: 'rbac.authorization.k8s.io',
      input: { metadata: nsMeta, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] }] },
      want: { metadata: nsMeta, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] }] },
    },
    {
      kind: 'ClusterRole',
      group: 'rbac.authorization.k8s.io',
      input: {
        metadata: meta,
        rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg: 'true' } }] },
      },
      want: {
        metadata: meta,
        rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg: 'true' } }] },
      },
    },
    {
      kind: 'RoleBinding',
      group: 'rbac.authorization.k8s.io',
      input: { metadata: nsMeta, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'default' }] },
      want: { metadata: nsMeta, subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'default' }], roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' } },
    },
    {
      kind: 'ClusterRoleBinding',
      group: 'rbac.authorization.k8s.io',
      input: { metadata: meta },
      want: { metadata: meta, roleRef: { apiGroup: '', kind: '', name: '' } },
    },
    {
      kind: 'TokenRequest',
      group: 'authentication.k8s.io',
      input: { metadata: nsMeta, spec: { audiences: ['https://kubernetes.default.svc'], expirationSeconds: 600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: 'u-1' } }, status: { token: 't', expirationTimestamp: '2024-05-01T10:10:00Z' } },
      want: { metadata: nsMeta, spec: { audiences: ['https://kubernetes.default.svc'], expirationSeconds: 600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: 'u-1' } }, status: { token: 't', expirationTimestamp: '2024-05-01T10:10:00Z' } },
    },
    {
      kind: 'TokenReview',
      group: 'authentication.k8s.io',
      input: { metadata: {}, spec: { token: 'abc' }, status: { authenticated: false } },
      want: { metadata: { creationTimestamp: null }, spec: { token: 'abc' }, status: { user: {} } },
    },
    {
      kind: 'SelfSubjectReview',
      group: 'authentication.k8s.io',
      input: { metadata: {}, status: { userInfo: { username: 'alice', groups: ['system:authenticated'], extra: { scopes: [] } } } },
      want: { metadata: { creationTimestamp: null }, status: { userInfo: { username: 'alice', groups: ['system:authenticated'], extra: { scopes: [] } } } },
    },
    {
      kind: 'SubjectAccessReview',
      group: 'authorization.k8s.io',
      input: { spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' }, user: 'bob', extra: { k: ['v'] } }, status: { allowed: true, reason: 'RBAC' } },
      want: { metadata: { creationTimestamp: null }, spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' }, user: 'bob', extra: { k: ['v'] } }, status: { allowed: true, reason: 'RBAC' } },
    },
    {
      kind: 'SelfSubjectAccessReview',
      group: 'authorization.k8s.io',
      input: { spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } } },
      want: { metadata: { creationTimestamp: null }, spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } }, status: { allowed: false } },
    },
    {
      kind: 'LocalSubjectAccessReview',
      group: 'authorization.k8s.io',
      input: { metadata: { namespace: 'ns' }, spec: { resourceAttributes: { namespace: 'ns', verb: 'list', group: 'apps', resource: 'deployments', labelSelector: { rawSelector: 'a=b' } }, groups: ['g'] } },
      want: { metadata: { namespace: 'ns', creationTimestamp: null }, spec: { resourceAttributes: { namespace: 'ns', verb: 'list', group: 'apps', resource: 'deployments', labelSelector: { rawSelector: 'a=b' } }, groups: ['g'] }, status: { allowed: false } },
    },
    {
      kind: 'SelfSubjectRulesReview',
      group: 'authorization.k8s.io',
      input: { spec: { namespace: 'default' }, status: { resourceRules: [{ verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews'] }], incomplete: false } },
      want: { metadata: { creationTimestamp: null }, spec: { namespace: 'default' }, status: { resourceRules: [{ verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews'] }], incomplete: false } },
    },
    {
      kind: 'ValidatingWebhookConfiguration',
      group: 'admissionregistration.k8s.io',
      input: {
        metadata: meta,
        webhooks: [{ name: 'v.example.com', clientConfig: { service: { namespace: 'ns', name: 'svc', port: 443 } }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }], failurePolicy: 'Fail', sideEffects: 'None', timeoutSeconds: 10, admissionReviewVersions: ['v1'], matchConditions: [{ name: 'm', expression: 'true' }] }],
      },
      want: {
        metadata: meta,
        webhooks: [{ name: 'v.example.com', clientConfig: { service: { namespace: 'ns', name: 'svc', port: 443 } }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }], failurePolicy: 'Fail', sideEffects: 'None', timeoutSeconds: 10, admissionReviewVersions: ['v1'], matchConditions: [{ name: 'm', expression: 'true' }] }],
      },
    },
    {
      kind: 'MutatingWebhookConfiguration',
      group: 'admissionregistration.k8s.io',
      input: { metadata: meta, webhooks: [{ name: 'm.example.com', clientConfig: { url: 'https://127.0.0.1:9443/m' }, reinvocationPolicy: 'Never', namespaceSelector: {}, sideEffects: 'None', admissionReviewVersions: ['v1'] }] },
      want: { metadata: meta, webhooks: [{ name: 'm.example.com', clientConfig: { url: 'https://127.0.0.1:9443/m' }, namespaceSelector: {}, sideEffects: 'None', admissionReviewVersions: ['v1'], reinvocationPolicy: 'Never' }] },
    },
    {
      kind: 'ValidatingAdmissionPolicy',
      group: 'admissionregistration.k8s.io',
      input: {
        metadata: meta,
        spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }] }, validations: [{ expression: 'object.spec.replicas <= 5', reason: 'Invalid' }], variables: [{ name: 'r', expression: 'object.spec.replicas' }] },
        status: { observedGeneration: 1, typeChecking: {} },
      },
      want: {
        metadata: meta,
        spec: { matchConstraints: { resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }] }, validations: [{ expression: 'object.spec.replicas <= 5', reason: 'Invalid' }], failurePolicy: 'Fail', variables: [{ name: 'r', expression: 'object.spec.replicas' }] },
        status: { observedGeneration: 1, typeChecking: {} },
      },
    },
    {
      kind: 'ValidatingAdmissionPolicyBinding',
      group: 'admissionregistration.k8s.io',
      input: { metadata: meta, spec: { policyName: 'p', validationActions: ['Deny'], paramRef: { name: 'cfg', parameterNotFoundAction: 'Deny' } } },
      want: { metadata: meta, spec: { policyName: 'p', paramRef: { name: 'cfg', parameterNotFoundAction: 'Deny' }, validationActions: ['Deny'] } },
    },
    {
      kind: 'LimitRange',
      group: '',
      input: { metadata: nsMeta, spec: { limits: [{ type: 'Container', default: { memory: '512Mi' }, defaultRequest: { cpu: '0.5' } }] } },
      want: { metadata: nsMeta, spec: { limits: [{ type: 'Container', default: { memory: '512Mi' }, defaultRequest: { cpu: '500m' } }] } },
    },
    {
      kind: 'ResourceQuota',
      group: '',
      input: { metadata: nsMeta, spec: { hard: { pods: '10', 'requests.memory': '1Gi' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }, status: { hard: { pods: '10' }, used: { pods: '0' } } },
      want: { metadata: nsMeta, spec: { hard: { pods: '10', 'requests.memory': '1Gi' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }, status: { hard: { pods: '10' }, used: { pods: '0' } } },
    },
  ];
  test.each(cases)('$group $kind', ({ kind, group, input, want }) => {
    const message = messageForGvk({ group, version: 'v1', kind });
    expect(message).toBeDefined();
    expect(gvkForMessage(message!)).toEqual({ group, version: 'v1', kind });
    const apiVersion = group ? `${group}/v1` : 'v1';
    expect(normalize(message!, { kind, apiVersion, ...input })).toEqual({ kind, apiVersion, ...want });
    expect(fromProto(message!, toProto(message!, want))).toEqual(want);
  });
});

describe('strict decoding knows the new fields and Go types', () => {
  test.each([
    {
      name: 'extra values must be string lists',
      gvk: { group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview' },
      body: '{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"extra":{"k":"v"}}}',
      error: 'json: cannot unmarshal string into Go struct field SubjectAccessReviewSpec.spec.extra of type v1.ExtraValue',
    },
    {
      name: 'a named enum type in the message',
      gvk: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingWebhookConfiguration' },
      body: '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","webhooks":[{"name":"a","sideEffects":1}]}',
      error: 'json: cannot unmarshal number into Go struct field ValidatingWebhook.webhooks.sideEffects of type v1.SideEffectClass',
    },
    {
      name: 'inline rule fields, unknown field reported',
      gvk: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicy' },
      body: '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[""],"bogus":1}]}}}',
      strict: 'unknown field "spec.matchConstraints.resourceRules[0].bogus"',
    },
  ])('$name', ({ gvk, body, error, strict }) => {
    const result = strictDecode(gvk, JSON.parse(body), body);
    if (error) expect(result.typeError).toBe(error);
    if (strict) expect(result.strictErrors).toContain(strict);
  });
});

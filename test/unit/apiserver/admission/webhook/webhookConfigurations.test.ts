import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../../main/kube/object';
import { invalid } from '../../../../../main/apiserver/api/status';
import { mutatingWebhookConfigurations, validatingWebhookConfigurations } from '../../../../../main/apiserver/registry/admissionregistration/webhookConfigurations';
import type { ResourceDef } from '../../../../../main/apiserver/registry/rest/resourceDef';
import { testContext } from '../../registry/ctx';

type Hook = Record<string, any>;

function config(kind: string, hooks: Hook[]): KObject {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name: 'cfg' }, webhooks: hooks } as KObject;
}

function hook(over: Hook = {}): Hook {
  return {
    name: 'team.example.com',
    clientConfig: { url: 'https://127.0.0.1:8443/mutate' },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...over,
  };
}

function messageFor(def: ResourceDef, hooks: Hook[]): string {
  const obj = config(def.kind, hooks);
  def.strategy.defaults(obj);
  const errs = def.strategy.validate(obj, testContext());
  return errs.length ? invalid({ group: def.group, kind: def.kind }, 'cfg', errs).message : '';
}

const M = mutatingWebhookConfigurations;
const V = validatingWebhookConfigurations;
const prefixM = 'MutatingWebhookConfiguration.admissionregistration.k8s.io "cfg" is invalid: ';

describe('webhook configuration defaults', () => {
  it('fills v1 defaults on mutating and validating webhooks', () => {
    const m = config('MutatingWebhookConfiguration', [hook({ clientConfig: { service: { name: 's', namespace: 'ns' } } })]);
    M.strategy.defaults(m);
    const h = (m as Hook).webhooks[0];
    expect(h).toMatchObject({ failurePolicy: 'Fail', matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 10, reinvocationPolicy: 'Never' });
    expect(h.rules[0].scope).toBe('*');
    expect(h.clientConfig.service.port).toBe(443);
    const v = config('ValidatingWebhookConfiguration', [hook({ failurePolicy: 'Ignore', timeoutSeconds: 3 })]);
    V.strategy.defaults(v);
    const vh = (v as Hook).webhooks[0];
    expect(vh.reinvocationPolicy).toBeUndefined();
    expect(vh.failurePolicy).toBe('Ignore');
    expect(vh.timeoutSeconds).toBe(3);
  });

  it('prints NAME WEBHOOKS AGE', () => {
    expect(M.table.columns.map((c) => c.name)).toEqual(['Name', 'Webhooks', 'Age']);
    const obj = config('MutatingWebhookConfiguration', [hook(), hook({ name: 'b.example.com' })]);
    obj.metadata.creationTimestamp = '2026-03-01T11:58:00Z';
    expect(M.table.cells(obj, new Date('2026-03-01T12:00:00Z'))).toEqual(['cfg', 2, '2m']);
  });
});

describe('webhook configuration validation (kube messages)', () => {
  const cases: { name: string; def: ResourceDef; hooks: Hook[]; want: string }[] = [
    { name: 'valid mutating', def: M, hooks: [hook()], want: '' },
    { name: 'valid validating with service', def: V, hooks: [hook({ clientConfig: { service: { name: 's', namespace: 'ns', path: '/validate' } } })], want: '' },
    {
      name: 'sideEffects required',
      def: M,
      hooks: [hook({ sideEffects: undefined })],
      want: `${prefixM}webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun`,
    },
    {
      name: 'sideEffects Some not allowed',
      def: M,
      hooks: [hook({ sideEffects: 'Some' })],
      want: `${prefixM}webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`,
    },
    {
      name: 'admissionReviewVersions must include v1 or v1beta1',
      def: M,
      hooks: [hook({ admissionReviewVersions: ['v2'] })],
      want: `${prefixM}webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1`,
    },
    {
      name: 'admissionReviewVersions required',
      def: M,
      hooks: [hook({ admissionReviewVersions: [] })],
      want: `${prefixM}webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1`,
    },
    {
      name: 'duplicate names',
      def: M,
      hooks: [hook(), hook()],
      want: `${prefixM}webhooks[1].name: Duplicate value: "team.example.com"`,
    },
    {
      name: 'name needs three segments',
      def: M,
      hooks: [hook({ name: 'team.example' })],
      want: `${prefixM}webhooks[0].name: Invalid value: "team.example": should be a domain with at least three segments separated by dots`,
    },
    {
      name: 'url xor service',
      def: M,
      hooks: [hook({ clientConfig: { url: 'https://a.b/c', service: { name: 's', namespace: 'n' } } })],
      want: `${prefixM}webhooks[0].clientConfig: Required value: exactly one of url or service is required`,
    },
    {
      name: 'url must be https',
      def: M,
      hooks: [hook({ clientConfig: { url: 'http://127.0.0.1:1/x' } })],
      want: `${prefixM}webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
    },
    {
      name: 'url without query',
      def: M,
      hooks: [hook({ clientConfig: { url: 'https://127.0.0.1:1/x?a=b' } })],
      want: `${prefixM}webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL`,
    },
    {
      name: 'timeout range',
      def: M,
      hooks: [hook({ timeoutSeconds: 31 })],
      want: `${prefixM}webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds`,
    },
    {
      name: 'failurePolicy value',
      def: M,
      hooks: [hook({ failurePolicy: 'Maybe' })],
      want: `${prefixM}webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"`,
    },
    {
      name: 'operations',
      def: M,
      hooks: [hook({ rules: [{ operations: ['POST'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] })],
      want: `${prefixM}webhooks[0].rules[0].operations[0]: Unsupported value: "POST": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`,
    },
    {
      name: 'wildcard with other resources',
      def: M,
      hooks: [hook({ rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*', 'pods'] }] })],
      want: `${prefixM}webhooks[0].rules[0].resources: Invalid value: []string{"*/*", "pods"}: if '*/*' is present, must not specify other resources`,
    },
    {
      name: 'reinvocationPolicy value',
      def: M,
      hooks: [hook({ reinvocationPolicy: 'Always' })],
      want: `${prefixM}webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"`,
    },
    {
      name: 'matchConditions need names',
      def: M,
      hooks: [hook({ matchConditions: [{ name: '', expression: 'true' }] })],
      want: `${prefixM}webhooks[0].matchConditions[0].name: Required value`,
    },
    {
      name: 'service path segments',
      def: M,
      hooks: [hook({ clientConfig: { service: { name: 's', namespace: 'n', path: 'foo' } } })],
      want: `${prefixM}webhooks[0].clientConfig.service.path: Invalid value: "foo": must start with a '/'`,
    },
  ];
  it.each(cases)('$name', ({ def, hooks, want }) => {
    expect(messageFor(def, hooks)).toBe(want);
  });
});

describe('matchConditions are compiled at create', () => {
  it.each([
    { expr: "request.userInfo.username == 'jane'", want: '' },
    { expr: "'a'", wantPrefix: `${prefixM}webhooks[0].matchConditions[0].expression: Invalid value: "'a'": ` },
    { expr: 'nope == 1', wantPrefix: `${prefixM}webhooks[0].matchConditions[0].expression: Invalid value: "nope == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope'` },
  ])('$expr', ({ expr, want, wantPrefix }) => {
    const got = messageFor(M, [hook({ matchConditions: [{ name: 'c', expression: expr }] })]);
    if (want !== undefined) expect(got).toBe(want);
    else expect(got.startsWith(wantPrefix!)).toBe(true);
  });
});

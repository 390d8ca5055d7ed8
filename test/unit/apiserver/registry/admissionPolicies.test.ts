import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import { fieldErrorBody } from '../../../../main/apiserver/api/status';
import { validatingAdmissionPolicies as vap, validatingAdmissionPolicyBindings as vapb } from '../../../../main/apiserver/registry/admissionregistration/policies';

const rules = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] };

function policy(spec: Record<string, unknown>, name = 'demo.example.com'): KObject {
  const obj = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { matchConstraints: structuredClone(rules), ...spec } } as unknown as KObject;
  vap.strategy.defaults(obj);
  return obj;
}

function binding(spec: Record<string, unknown>): KObject {
  const obj = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'b' }, spec } as unknown as KObject;
  vapb.strategy.defaults(obj);
  return obj;
}

const messages = (errs: { field: string }[]) => errs.map((e) => `${e.field}: ${fieldErrorBody(e as never)}`);

describe('ValidatingAdmissionPolicy defaults', () => {
  it('failurePolicy Fail, matchPolicy Equivalent, empty selectors, rule scope *', () => {
    const p = policy({ validations: [{ expression: 'true' }] });
    expect((p as unknown as { spec: unknown }).spec).toEqual({
      failurePolicy: 'Fail',
      validations: [{ expression: 'true' }],
      matchConstraints: {
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
        resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'], scope: '*' }],
      },
    });
  });
});

const policyCases: { name: string; spec: Record<string, unknown>; want: string[] }[] = [
  { name: 'valid', spec: { validations: [{ expression: 'object.spec.replicas <= 5' }] }, want: [] },
  {
    name: 'expression that does not compile',
    spec: { validations: [{ expression: 'object.spec.replicas <=' }] },
    want: [expect.stringMatching(/^spec\.validations\[0\]\.expression: Invalid value: "object\.spec\.replicas <=": compilation failed: ERROR: <input>:1:\d+: Syntax error: .*\n \| object\.spec\.replicas <=\n \| \.*\^$/) as unknown as string],
  },
  {
    name: 'params without paramKind',
    spec: { validations: [{ expression: 'object.spec.replicas <= params.max' }] },
    want: [
      'spec.validations[0].expression: Invalid value: "object.spec.replicas <= params.max": compilation failed: ERROR: <input>:1:25: undeclared reference to \'params\' (in container \'\')\n | object.spec.replicas <= params.max\n | ........................^',
    ],
  },
  { name: 'params with paramKind', spec: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: "object.spec.replicas <= int(params.data.max)" }] }, want: [] },
  { name: 'non-bool expression', spec: { validations: [{ expression: "'x'" }] }, want: ['spec.validations[0].expression: Invalid value: "\'x\'": must evaluate to bool but got string'] },
  { name: 'messageExpression must be a string', spec: { validations: [{ expression: 'true', messageExpression: '1' }] }, want: ['spec.validations[0].messageExpression: Invalid value: "1": must evaluate to string but got int'] },
  { name: 'variables are typed and in scope', spec: { variables: [{ name: 'r', expression: 'object.spec.replicas' }, { name: 'big', expression: 'variables.r > 5' }], validations: [{ expression: '!variables.big' }] }, want: [] },
  { name: 'bad variable name', spec: { variables: [{ name: 'in', expression: '1' }], validations: [{ expression: 'true' }] }, want: ['spec.variables[0].name: Invalid value: "in": name is not a valid CEL identifier'] },
  {
    name: 'nothing to do',
    spec: {},
    want: ['spec.validations: Required value: validations or auditAnnotations must contain at least one item', 'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item'],
  },
  { name: 'bad reason', spec: { validations: [{ expression: 'true', reason: 'Teapot' }] }, want: ['spec.validations[0].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"'] },
  { name: 'failurePolicy', spec: { failurePolicy: 'Maybe', validations: [{ expression: 'true' }] }, want: ['spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"'] },
  { name: 'bad operation', spec: { matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['PATCH'], resources: ['*'] }] }, validations: [{ expression: 'true' }] }, want: ['spec.matchConstraints.resourceRules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"'] },
  { name: 'no resource rules', spec: { matchConstraints: {}, validations: [{ expression: 'true' }] }, want: ['spec.matchConstraints.resourceRules: Required value'] },
];

describe('ValidatingAdmissionPolicy validation', () => {
  for (const c of policyCases) {
    it(c.name, () => {
      expect(messages(vap.strategy.validate(policy(c.spec), {} as never))).toEqual(c.want);
    });
  }
});

const bindingCases: { name: string; spec: Record<string, unknown>; want: string[] }[] = [
  { name: 'valid', spec: { policyName: 'p', validationActions: ['Deny'] }, want: [] },
  { name: 'actions required', spec: { policyName: 'p' }, want: ['spec.validationActions: Required value: at least one validation action is required'] },
  {
    name: 'Deny and Warn',
    spec: { policyName: 'p', validationActions: ['Deny', 'Warn'] },
    want: ['spec.validationActions: Invalid value: []string{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'],
  },
  { name: 'unknown action', spec: { policyName: 'p', validationActions: ['Log'] }, want: ['spec.validationActions[0]: Unsupported value: "Log": supported values: "Audit", "Deny", "Warn"'] },
  {
    name: 'paramRef needs a name or selector and an action',
    spec: { policyName: 'p', validationActions: ['Audit'], paramRef: {} },
    want: ['spec.paramRef: Required value: one of name or selector must be specified', 'spec.paramRef.parameterNotFoundAction: Required value'],
  },
  { name: 'matchResources typo path', spec: { policyName: 'p', validationActions: ['Deny'], matchResources: { matchPolicy: 'Fuzzy' } }, want: ['spec.matchResouces.matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"'] },
];

describe('ValidatingAdmissionPolicyBinding validation', () => {
  for (const c of bindingCases) {
    it(c.name, () => {
      expect(messages(vapb.strategy.validate(binding(c.spec), {} as never))).toEqual(c.want);
    });
  }
});

describe('tables', () => {
  const now = new Date('2026-01-01T00:10:00Z');
  it('policy: NAME VALIDATIONS PARAMKIND AGE', () => {
    const p = policy({ paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'true' }, { expression: 'true' }] });
    p.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
    expect(vap.table.columns.map((c) => c.name)).toEqual(['Name', 'Validations', 'ParamKind', 'Age']);
    expect(vap.table.cells(p, now)).toEqual(['demo.example.com', 2, 'v1/ConfigMap', '10m']);
  });
  it('binding: NAME POLICYNAME PARAMREF AGE', () => {
    const b = binding({ policyName: 'p', validationActions: ['Deny'], paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } });
    b.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
    expect(vapb.table.columns.map((c) => c.name)).toEqual(['Name', 'PolicyName', 'ParamRef', 'Age']);
    expect(vapb.table.cells(b, now)).toEqual(['b', 'p', '*/limits', '10m']);
  });
});

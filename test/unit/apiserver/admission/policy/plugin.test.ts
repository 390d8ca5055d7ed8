import { describe, expect, it } from 'vitest';
import { validatingAdmissionPolicyPlugin } from '../../../../../main/apiserver/admission/policy';
import type { KObject } from '../../../../../main/kube/object';
import { StatusError } from '../../../../../main/apiserver/api/status';
import type { AdmissionAttributes } from '../../../../../main/apiserver/admission/interfaces';
import { configmaps } from '../../../../../main/apiserver/registry/core/config';
import { namespaces } from '../../../../../main/apiserver/registry/core/namespaces';
import { validatingAdmissionPolicies, validatingAdmissionPolicyBindings } from '../../../../../main/apiserver/registry/admissionregistration/policies';
import { fakeEnv } from '../fakeEnv';

const deploymentRules = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] };

function setup(policies: Record<string, unknown>[], bindings: Record<string, unknown>[], extra: { resource: string; obj: Record<string, unknown> }[] = []) {
  const base = fakeEnv();
  const env = { ...base, resources: () => [configmaps, namespaces, validatingAdmissionPolicies, validatingAdmissionPolicyBindings] };
  let gen = 1;
  for (const p of policies) {
    const obj = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', ...p } as unknown as KObject;
    obj.metadata.uid = `uid-${obj.metadata.name}`;
    obj.metadata.generation = gen++;
    validatingAdmissionPolicies.strategy.defaults(obj);
    base.put('validatingadmissionpolicies', obj);
  }
  for (const b of bindings) {
    const obj = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', ...b } as unknown as KObject;
    validatingAdmissionPolicyBindings.strategy.defaults(obj);
    base.put('validatingadmissionpolicybindings', obj);
  }
  base.put('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', labels: { env: 'dev' } } } as unknown as KObject);
  for (const e of extra) base.put(e.resource, e.obj as unknown as KObject);
  return { env, plugin: validatingAdmissionPolicyPlugin(env) };
}

function deploymentCreate(replicas: number, labels: Record<string, string> = {}): AdmissionAttributes {
  const object = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', labels }, spec: { replicas } } as unknown as KObject;
  return {
    operation: 'CREATE',
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    resource: 'deployments',
    subresource: '',
    namespace: 'default',
    name: 'web',
    user: { username: 'alice', groups: ['system:authenticated'] },
    dryRun: false,
    object,
    warnings: [],
    auditAnnotations: {},
  };
}

const policy = (name: string, spec: Record<string, unknown>) => ({ metadata: { name }, spec: { matchConstraints: structuredClone(deploymentRules), ...spec } });
const binding = (name: string, policyName: string, validationActions: string[], extra: Record<string, unknown> = {}) => ({ metadata: { name }, spec: { policyName, validationActions, ...extra } });

async function run(plugin: ReturnType<typeof validatingAdmissionPolicyPlugin>, a: AdmissionAttributes): Promise<StatusError | undefined> {
  try {
    await plugin.validate!(a);
    return undefined;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
}

const maxReplicas = policy('max-replicas', { validations: [{ expression: 'object.spec.replicas <= 5' }] });

describe('ValidatingAdmissionPolicy plugin', () => {
  it('Deny: kube status, message, 422 Invalid and the message as a cause', async () => {
    const { plugin } = setup([maxReplicas], [binding('max-replicas-b', 'max-replicas', ['Deny'])]);
    const err = await run(plugin, deploymentCreate(6));
    const message = `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-b' denied request: failed expression: object.spec.replicas <= 5`;
    expect(err?.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'Invalid',
      details: { name: 'web', group: 'apps', kind: 'deployments', causes: [{ message: `ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-b' denied request: failed expression: object.spec.replicas <= 5` }] },
      code: 422,
    });
    expect(await run(plugin, deploymentCreate(5))).toBeUndefined();
  });

  it('a policy without a binding does nothing', async () => {
    const { plugin } = setup([maxReplicas], []);
    expect(await run(plugin, deploymentCreate(60))).toBeUndefined();
  });

  it('Warn: a warning, no error', async () => {
    const { plugin } = setup([maxReplicas], [binding('b', 'max-replicas', ['Warn'])]);
    const a = deploymentCreate(6);
    expect(await run(plugin, a)).toBeUndefined();
    expect(a.warnings).toEqual(["Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'b': failed expression: object.spec.replicas <= 5"]);
  });

  it('Audit: the validation_failure annotation', async () => {
    const { plugin } = setup([maxReplicas], [binding('b', 'max-replicas', ['Audit'])]);
    const a = deploymentCreate(7);
    expect(await run(plugin, a)).toBeUndefined();
    expect(JSON.parse(a.auditAnnotations['validation.policy.admission.k8s.io/validation_failure']!)).toEqual([
      { message: 'failed expression: object.spec.replicas <= 5', policy: 'max-replicas', binding: 'b', expressionIndex: 0, validationActions: ['Audit'] },
    ]);
  });

  const messageCases: { name: string; validation: Record<string, unknown>; want: string; code: number; reason: string }[] = [
    { name: 'message', validation: { expression: 'object.spec.replicas <= 5', message: ' too many replicas ' }, want: 'too many replicas', code: 422, reason: 'Invalid' },
    { name: 'messageExpression', validation: { expression: 'object.spec.replicas <= 5', message: 'fallback', messageExpression: "'replicas ' + string(object.spec.replicas) + ' > 5'" }, want: 'replicas 6 > 5', code: 422, reason: 'Invalid' },
    { name: 'messageExpression error falls back to message', validation: { expression: 'object.spec.replicas <= 5', message: 'fallback', messageExpression: 'object.spec.nope' }, want: 'fallback', code: 422, reason: 'Invalid' },
    { name: 'reason Forbidden is a 403', validation: { expression: 'object.spec.replicas <= 5', reason: 'Forbidden' }, want: 'failed expression: object.spec.replicas <= 5', code: 403, reason: 'Forbidden' },
    { name: 'evaluation error with failurePolicy Fail', validation: { expression: 'object.spec.nope == 1' }, want: "expression 'object.spec.nope == 1' resulted in error: no such key: nope", code: 422, reason: 'Invalid' },
  ];
  for (const c of messageCases) {
    it(`denial text: ${c.name}`, async () => {
      const { plugin } = setup([policy('p', { validations: [c.validation] })], [binding('b', 'p', ['Deny'])]);
      const err = await run(plugin, deploymentCreate(6));
      expect(err?.status.message).toBe(`deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: ${c.want}`);
      expect([err?.status.code, err?.status.reason]).toEqual([c.code, c.reason]);
    });
  }

  it('failurePolicy Ignore admits on evaluation errors', async () => {
    const { plugin } = setup([policy('p', { failurePolicy: 'Ignore', validations: [{ expression: 'object.spec.nope == 1' }] })], [binding('b', 'p', ['Deny'])]);
    expect(await run(plugin, deploymentCreate(6))).toBeUndefined();
  });

  it('params from a ConfigMap (name in the request namespace), Deny when missing', async () => {
    const p = policy('p', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'object.spec.replicas <= int(params.data.maxReplicas)', messageExpression: "'at most ' + params.data.maxReplicas" }] });
    const cm = { resource: 'configmaps', obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits', namespace: 'default' }, data: { maxReplicas: '3' } } };
    const withParams = setup([p], [binding('b', 'p', ['Deny'], { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } })], [cm]);
    expect((await run(withParams.plugin, deploymentCreate(4)))?.status.message).toBe(`deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: at most 3`);
    expect(await run(withParams.plugin, deploymentCreate(3))).toBeUndefined();

    const missing = setup([p], [binding('b', 'p', ['Deny'], { paramRef: { name: 'absent', parameterNotFoundAction: 'Deny' } })]);
    expect((await run(missing.plugin, deploymentCreate(1)))?.status.message).toBe(
      "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
    const allow = setup([p], [binding('b', 'p', ['Deny'], { paramRef: { name: 'absent', parameterNotFoundAction: 'Allow' } })]);
    expect(await run(allow.plugin, deploymentCreate(100))).toBeUndefined();
  });

  it('params by selector: every matching param validates', async () => {
    const p = policy('p', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'object.spec.replicas <= int(params.data.max)', messageExpression: "params.metadata.name + ' says no'" }] });
    const cms = [
      { resource: 'configmaps', obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default', labels: { limit: 'yes' } }, data: { max: '10' } } },
      { resource: 'configmaps', obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'default', labels: { limit: 'yes' } }, data: { max: '2' } } },
      { resource: 'configmaps', obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { max: '0' } } },
    ];
    const { plugin } = setup([p], [binding('b', 'p', ['Deny'], { paramRef: { selector: { matchLabels: { limit: 'yes' } }, parameterNotFoundAction: 'Deny' } })], cms);
    expect((await run(plugin, deploymentCreate(5)))?.status.message).toContain("denied request: b says no");
    expect(await run(plugin, deploymentCreate(2))).toBeUndefined();
  });

  it('an unknown paramKind is a policy configuration error', async () => {
    const { plugin } = setup([policy('p', { paramKind: { apiVersion: 'example.com/v1', kind: 'Limits' }, validations: [{ expression: 'true' }] })], [binding('b', 'p', ['Deny'])]);
    expect((await run(plugin, deploymentCreate(1)))?.status.message).toBe(
      "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Limits'",
    );
  });

  const matchCases: { name: string; spec: Record<string, unknown>; bindingExtra?: Record<string, unknown>; labels?: Record<string, string>; denied: boolean }[] = [
    { name: 'other resources are not matched', spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] } }, denied: false },
    { name: 'operation not listed', spec: { matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['deployments'] }] } }, denied: false },
    { name: 'wildcards', spec: { matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }] } }, denied: true },
    { name: 'excluded by name', spec: { matchConstraints: { ...deploymentRules, excludeResourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['*'], resources: ['deployments'], resourceNames: ['web'] }] } }, denied: false },
    { name: 'namespaceSelector matches the namespace labels', spec: { matchConstraints: { ...deploymentRules, namespaceSelector: { matchLabels: { env: 'dev' } } } }, denied: true },
    { name: 'namespaceSelector does not match', spec: { matchConstraints: { ...deploymentRules, namespaceSelector: { matchLabels: { env: 'prod' } } } }, denied: false },
    { name: 'objectSelector', spec: { matchConstraints: { ...deploymentRules, objectSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] } } }, labels: { tier: 'web' }, denied: true },
    { name: 'objectSelector misses', spec: { matchConstraints: { ...deploymentRules, objectSelector: { matchLabels: { tier: 'db' } } } }, labels: { tier: 'web' }, denied: false },
    { name: 'binding matchResources narrows', spec: {}, bindingExtra: { matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } } }, denied: false },
    { name: 'matchConditions false skips', spec: { matchConditions: [{ name: 'not-alice', expression: "request.userInfo.username != 'alice'" }] }, denied: false },
    { name: 'matchConditions true validates', spec: { matchConditions: [{ name: 'alice', expression: "request.userInfo.username == 'alice'" }] }, denied: true },
  ];
  for (const c of matchCases) {
    it(`matching: ${c.name}`, async () => {
      const { plugin } = setup([policy('p', { validations: [{ expression: 'object.spec.replicas <= 5' }], ...c.spec })], [binding('b', 'p', ['Deny'], c.bindingExtra)]);
      const err = await run(plugin, deploymentCreate(6, c.labels));
      expect(err !== undefined).toBe(c.denied);
    });
  }

  it('variables are evaluated lazily, errors name the variable', async () => {
    const { plugin } = setup(
      [policy('p', { variables: [{ name: 'r', expression: 'object.spec.replicas' }, { name: 'bad', expression: 'object.spec.nope' }], validations: [{ expression: 'variables.r <= 5' }, { expression: 'variables.bad == 1 || true' }] })],
      [binding('b', 'p', ['Deny'])],
    );
    expect((await run(plugin, deploymentCreate(6)))?.status.message).toContain("denied request: failed expression: variables.r <= 5");
    expect((await run(plugin, deploymentCreate(1)))?.status.message).toContain(
      `denied request: expression 'variables.bad == 1 || true' resulted in error: composited variable "bad" fails to evaluate: no such key: nope`,
    );
  });

  it('audit annotations from valueExpression, keyed by policy name', async () => {
    const { plugin } = setup([policy('p', { auditAnnotations: [{ key: 'replicas', valueExpression: "'replicas=' + string(object.spec.replicas)" }, { key: 'none', valueExpression: 'null' }] })], [binding('b', 'p', ['Audit'])]);
    const a = deploymentCreate(6);
    expect(await run(plugin, a)).toBeUndefined();
    expect(a.auditAnnotations).toEqual({ 'p/replicas': 'replicas=6' });
  });

  it('authorizer checks ask the server\'s authorizer chain', async () => {
    const { env, plugin } = setup(
      [
        policy('p', {
          validations: [
            { expression: "authorizer.group('apps').resource('deployments').namespace(object.metadata.namespace).check('delete').allowed()", message: 'must be able to delete deployments' },
            { expression: "authorizer.requestResource.check('create').allowed()" },
            { expression: "!authorizer.path('/metrics').check('get').allowed()" },
          ],
        }),
      ],
      [binding('b', 'p', ['Deny'])],
    );
    const asked: string[] = [];
    env.authorize = async (attrs) => {
      asked.push(`${attrs.user.username} ${attrs.verb} ${attrs.isResourceRequest ? `${attrs.apiGroup}/${attrs.resource} in ${attrs.namespace}` : attrs.path}`);
      return { decision: attrs.verb === 'create' || attrs.user.username === 'admin' ? 'allow' : 'noOpinion' };
    };
    const p2 = validatingAdmissionPolicyPlugin(env);
    expect((await run(p2, deploymentCreate(1)))?.status.message).toContain('denied request: must be able to delete deployments');
    expect(asked.sort()).toEqual(['alice create apps/deployments in default', 'alice delete apps/deployments in default', 'alice get /metrics']);
    const admin = deploymentCreate(1);
    admin.user = { username: 'admin', groups: [] };
    expect((await run(p2, admin))?.status.message).toContain("denied request: failed expression: !authorizer.path('/metrics').check('get').allowed()");
    expect(plugin).toBeDefined();
  });

  it('compiles a policy once per generation', async () => {
    const { env, plugin } = setup([maxReplicas], [binding('b', 'max-replicas', ['Deny'])]);
    await run(plugin, deploymentCreate(1));
    // Change the stored expression without bumping generation: the cached program is still used.
    const key = '/registry/validatingadmissionpolicies/max-replicas';
    const stored = env.objects.get(key)! as unknown as { spec: { validations: { expression: string }[] }; metadata: { generation: number } };
    stored.spec.validations[0]!.expression = 'object.spec.replicas <= 100';
    expect(await run(plugin, deploymentCreate(6))).toBeDefined();
    stored.metadata.generation++;
    expect(await run(plugin, deploymentCreate(6))).toBeUndefined();
  });
});

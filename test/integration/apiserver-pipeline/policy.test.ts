// ValidatingAdmissionPolicy on a real `pilothouse apiserver` with kubectl
// 1.32 (ports 30600–30699): a Deny binding refuses a Deployment over the
// limit with kube's exact message and admits one at it; a Warn binding
// warns and creates; messageExpression; ConfigMap params; a policy whose
// expression does not compile is refused at create; kubectl's table columns.
// Each case selects its own Deployments by a label so the policies never meet.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';

const PORT_BASE = 30600;

let api: TestApiServer;

async function kubectl(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = await api.kubectl(args, { timeoutMs: 30_000, stdin });
  return { code: r.code ?? -1, stdout: r.stdout, stderr: r.stderr };
}
async function ok(args: string[], stdin?: string): Promise<string> {
  const r = await kubectl(args, stdin);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} → ${r.code}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** A policy over apps/v1 deployments with this label, and its binding. */
function policyYaml(name: string, caseLabel: string, validations: string, actions: string[], extra: { paramKind?: string; paramRef?: string } = {}): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${name}
spec:
  failurePolicy: Fail
${extra.paramKind ?? ''}  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
    objectSelector:
      matchLabels:
        vap-case: ${caseLabel}
  validations:
${validations}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: ${name}-binding
spec:
  policyName: ${name}
  validationActions: [${actions.join(', ')}]
${extra.paramRef ?? ''}`;
}

function deploymentYaml(name: string, caseLabel: string, replicas: number): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  labels:
    vap-case: ${caseLabel}
spec:
  replicas: ${replicas}
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      containers:
      - name: web
        image: nginx
`;
}

/** Policies reach the plugin through the watch cache: retry the first create until the policy is in force. */
async function createUntilDenied(yaml: string, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await kubectl(['create', '-f', '-'], yaml);
    if (r.code !== 0) return r.stderr.trim();
    const name = /deployment\.apps\/(\S+) created/.exec(r.stdout)?.[1];
    if (name) await ok(['delete', 'deployment', name, '--wait=false']);
    if (Date.now() > deadline) throw new Error(`never denied: ${r.stdout}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

beforeAll(async () => {
  api = await startTestApiServer(PORT_BASE);
}, 90_000);

afterAll(async () => {
  await reapApiServers();
});

describe('ValidatingAdmissionPolicy with kubectl', () => {
  it('Deny: replicas 6 refused with kube\'s message, 5 admitted', async () => {
    await ok(['apply', '-f', '-'], policyYaml('max-replicas.example.com', 'deny', '  - expression: "object.spec.replicas <= 5"', ['Deny']));
    const stderr = await createUntilDenied(deploymentYaml('six', 'deny', 6));
    expect(stderr).toBe(
      `The deployments "six" is invalid: : ValidatingAdmissionPolicy 'max-replicas.example.com' with binding 'max-replicas.example.com-binding' denied request: failed expression: object.spec.replicas <= 5`,
    );
    expect(await ok(['create', '-f', '-'], deploymentYaml('five', 'deny', 5))).toContain('deployment.apps/five created');
    // An update over the limit is refused too.
    const scale = await kubectl(['patch', 'deployment', 'five', '--type=merge', '-p', '{"spec":{"replicas":9}}']);
    expect(scale.code).not.toBe(0);
    expect(scale.stderr).toContain("denied request: failed expression: object.spec.replicas <= 5");
  });

  it('Warn: a warning on stderr, and the Deployment is created', async () => {
    await ok(['apply', '-f', '-'], policyYaml('warn-replicas.example.com', 'warn', '  - expression: "object.spec.replicas <= 2"\n    message: "more than 2 replicas"', ['Warn']));
    const deadline = Date.now() + 15_000;
    let r = await kubectl(['create', '-f', '-'], deploymentYaml('warned-0', 'warn', 3));
    for (let i = 1; !r.stderr.includes('Warning') && Date.now() < deadline; i++) {
      r = await kubectl(['create', '-f', '-'], deploymentYaml(`warned-${i}`, 'warn', 3));
    }
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/deployment\.apps\/warned-\d+ created/);
    expect(r.stderr.trim()).toBe("Warning: Validation failed for ValidatingAdmissionPolicy 'warn-replicas.example.com' with binding 'warn-replicas.example.com-binding': more than 2 replicas");
  });

  it('messageExpression builds the message', async () => {
    await ok(
      ['apply', '-f', '-'],
      policyYaml('message-expr.example.com', 'msg', `  - expression: "object.spec.replicas <= 1"\n    messageExpression: "'replicas ' + string(object.spec.replicas) + ' is more than 1 for ' + object.metadata.name"\n    reason: Forbidden`, ['Deny']),
    );
    const stderr = await createUntilDenied(deploymentYaml('three', 'msg', 3));
    expect(stderr).toBe(
      `Error from server (Forbidden): error when creating "STDIN": deployments.apps "three" is forbidden: ValidatingAdmissionPolicy 'message-expr.example.com' with binding 'message-expr.example.com-binding' denied request: replicas 3 is more than 1 for three`,
    );
  });

  it('params from a ConfigMap in the request namespace', async () => {
    await ok(['create', 'configmap', 'replica-limit', '--from-literal=maxReplicas=2']);
    await ok(
      ['apply', '-f', '-'],
      policyYaml('param-limit.example.com', 'params', `  - expression: "object.spec.replicas <= int(params.data.maxReplicas)"\n    messageExpression: "'replicas must be at most ' + params.data.maxReplicas"`, ['Deny'], {
        paramKind: '  paramKind:\n    apiVersion: v1\n    kind: ConfigMap\n',
        paramRef: '  paramRef:\n    name: replica-limit\n    parameterNotFoundAction: Deny\n',
      }),
    );
    const stderr = await createUntilDenied(deploymentYaml('p3', 'params', 3));
    expect(stderr).toContain("with binding 'param-limit.example.com-binding' denied request: replicas must be at most 2");
    expect(await ok(['create', '-f', '-'], deploymentYaml('p2', 'params', 2))).toContain('deployment.apps/p2 created');
    // Raise the limit in the ConfigMap: the same Deployment is now admitted.
    await ok(['patch', 'configmap', 'replica-limit', '--type=merge', '-p', '{"data":{"maxReplicas":"4"}}']);
    const deadline = Date.now() + 15_000;
    let r = await kubectl(['create', '-f', '-'], deploymentYaml('p3', 'params', 3));
    while (r.code !== 0 && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 200));
      r = await kubectl(['create', '-f', '-'], deploymentYaml('p3', 'params', 3));
    }
    expect(r.stdout).toContain('deployment.apps/p3 created');
  });

  it('an expression that does not compile is refused at create', async () => {
    const r = await kubectl(['create', '-f', '-'], policyYaml('broken.example.com', 'broken', '  - expression: "object.spec.replicas <= params.max"', ['Deny']).split('---')[0]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe(
      `The ValidatingAdmissionPolicy "broken.example.com" is invalid: spec.validations[0].expression: Invalid value: "object.spec.replicas <= params.max": compilation failed: ERROR: <input>:1:25: undeclared reference to 'params' (in container '')\n | object.spec.replicas <= params.max\n | ........................^`,
    );
    const actions = await kubectl(['create', '-f', '-'], `apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n  name: both\nspec:\n  policyName: x\n  validationActions: [Deny, Warn]\n`);
    expect(actions.stderr.trim()).toBe(
      `The ValidatingAdmissionPolicyBinding "both" is invalid: spec.validationActions: Invalid value: []string{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)`,
    );
  });

  it('kubectl get shows kube\'s columns', async () => {
    const policies = await ok(['get', 'validatingadmissionpolicies']);
    expect(policies.split('\n')[0]).toMatch(/^NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE$/);
    expect(policies).toMatch(/param-limit\.example\.com\s+1\s+v1\/ConfigMap\s+\S+/);
    expect(policies).toMatch(/max-replicas\.example\.com\s+1\s+<unset>\s+\S+/);
    const bindings = await ok(['get', 'validatingadmissionpolicybindings']);
    expect(bindings.split('\n')[0]).toMatch(/^NAME\s+POLICYNAME\s+PARAMREF\s+AGE$/);
    expect(bindings).toMatch(/param-limit\.example\.com-binding\s+param-limit\.example\.com\s+\*\/replica-limit\s+\S+/);
    const policy = JSON.parse(await ok(['get', 'validatingadmissionpolicy', 'max-replicas.example.com', '-o', 'json'])) as { metadata: { generation: number }; spec: Record<string, unknown> };
    expect(policy.metadata.generation).toBe(1);
    expect(policy.spec.matchConstraints).toMatchObject({ matchPolicy: 'Equivalent', namespaceSelector: {} });
  });
});

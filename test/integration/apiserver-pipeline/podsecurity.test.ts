// PodSecurity admission through kubectl 1.32 against the real program
// (`pilothouse apiserver`, PodSecurity on by default): a namespace labelled
// enforce=restricted refuses a privileged pod with kube's exact message;
// warn=restricted creates it with the warning on stderr; a Deployment in an
// enforce=restricted namespace is created with a warning (workloads are
// never refused); labelling a namespace warns about its existing pods; bad
// labels are refused; the PodSecurityConfiguration from
// --admission-control-config-file exempts a namespace; audit annotations
// reach the audit log. Ports 30400–30406.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';

const PORT_BASE = 30400;

let api: TestApiServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'psa-'));
  writeFileSync(
    join(dir, 'admission.yaml'),
    `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults:
      enforce: privileged
    exemptions:
      namespaces: [psa-exempt]
`,
  );
  writeFileSync(
    join(dir, 'audit-policy.yaml'),
    `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
  resources:
  - group: ""
    resources: ["pods"]
`,
  );
  api = await startTestApiServer(PORT_BASE, [
    `--admission-control-config-file=${join(dir, 'admission.yaml')}`,
    `--audit-policy-file=${join(dir, 'audit-policy.yaml')}`,
    `--audit-log-path=${join(dir, 'audit.log')}`,
  ]);
}, 120_000);

afterAll(async () => {
  await reapApiServers();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function ok(args: string[], stdin?: string): Promise<{ stdout: string; stderr: string }> {
  const r = await api.kubectl(args, { stdin });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}\n${api.logTail(20)}`);
  return r;
}

/** A namespace with its default service account (no controllers run here to make it; the ServiceAccount plugin wants it). */
async function namespace(name: string, labels: string[]): Promise<void> {
  await ok(['create', 'namespace', name]);
  await ok(['create', 'serviceaccount', 'default', '-n', name]);
  if (labels.length > 0) await ok(['label', 'namespace', name, ...labels]);
}

const privilegedPod = (name: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  containers:
  - name: c
    image: nginx
    securityContext:
      privileged: true
`;

const RESTRICTED_VIOLATIONS =
  'privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

describe('PodSecurity admission with kubectl', () => {
  it('enforce=restricted refuses a privileged pod with kube\'s message', async () => {
    await namespace('psa-enforce', ['pod-security.kubernetes.io/enforce=restricted']);
    const r = await api.kubectl(['create', '-n', 'psa-enforce', '-f', '-'], { stdin: privilegedPod('x') });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Error from server (Forbidden): error when creating "STDIN": pods "x" is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_VIOLATIONS}\n`);
    const get = await api.kubectl(['get', 'pod', 'x', '-n', 'psa-enforce']);
    expect(get.stderr).toContain('pods "x" not found');
  }, 60_000);

  it('warn=restricted creates the pod and prints the warning', async () => {
    await namespace('psa-warn', ['pod-security.kubernetes.io/warn=restricted']);
    const r = await ok(['create', '-n', 'psa-warn', '-f', '-'], privilegedPod('x'));
    expect(r.stdout).toBe('pod/x created\n');
    expect(r.stderr).toBe(`Warning: would violate PodSecurity "restricted:latest": ${RESTRICTED_VIOLATIONS}\n`);
  }, 60_000);

  it('a Deployment in an enforce=restricted namespace is created, with a warning', async () => {
    const r = await ok(['create', 'deployment', 'web', '-n', 'psa-enforce', '--image=nginx']);
    expect(r.stdout).toBe('deployment.apps/web created\n');
    expect(r.stderr).toBe(
      'Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")\n',
    );
  }, 60_000);

  it('labelling a namespace warns about its existing pods; metadata-only pod updates pass', async () => {
    await namespace('psa-label', []);
    await ok(['create', '-n', 'psa-label', '-f', '-'], privilegedPod('a'));
    await ok(['create', '-n', 'psa-label', '-f', '-'], privilegedPod('b'));
    await ok(['run', 'plain', '-n', 'psa-label', '--image=nginx']);
    const r = await ok(['label', 'namespace', 'psa-label', 'pod-security.kubernetes.io/enforce=baseline']);
    expect(r.stdout).toBe('namespace/psa-label labeled\n');
    expect(r.stderr).toBe('Warning: existing pods in namespace "psa-label" violate the new PodSecurity enforce level "baseline:latest"\nWarning: a (and 1 other pod): privileged\n');
    // The existing privileged pod may still be relabelled: its checked fields did not change.
    const relabel = await ok(['label', 'pod', 'a', '-n', 'psa-label', 'tier=web']);
    expect(relabel.stdout).toBe('pod/a labeled\n');
    // But a new one is refused now.
    const again = await api.kubectl(['create', '-n', 'psa-label', '-f', '-'], { stdin: privilegedPod('c') });
    expect(again.stderr).toBe('Error from server (Forbidden): error when creating "STDIN": pods "c" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)\n');
  }, 60_000);

  it('invalid Pod Security labels are refused (422)', async () => {
    await namespace('psa-bad', []);
    const r = await api.kubectl(['label', 'namespace', 'psa-bad', 'pod-security.kubernetes.io/enforce=strict']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'Namespace "psa-bad" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
    );
    const create = await api.kubectl(['create', '-f', '-'], { stdin: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: psa-bad2\n  labels:\n    pod-security.kubernetes.io/warn-version: "1.30"\n' });
    expect(create.stderr).toBe(
      'The Namespace "psa-bad2" is invalid: metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.30": must be "latest" or "v1.x"\n',
    );
  }, 60_000);

  it('an exempt namespace (PodSecurityConfiguration) ignores its labels, with a warning', async () => {
    await namespace('psa-exempt', []);
    const label = await ok(['label', 'namespace', 'psa-exempt', 'pod-security.kubernetes.io/enforce=restricted']);
    expect(label.stderr).toBe('Warning: namespace "psa-exempt" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored\n');
    const r = await ok(['create', '-n', 'psa-exempt', '-f', '-'], privilegedPod('x'));
    expect(r.stdout).toBe('pod/x created\n');
    expect(r.stderr).toBe('');
  }, 60_000);

  it('audit=baseline puts the violations into the audit log', async () => {
    await namespace('psa-audit', ['pod-security.kubernetes.io/audit=baseline']);
    await ok(['create', '-n', 'psa-audit', '-f', '-'], privilegedPod('x'));
    let event: { annotations?: Record<string, string> } | undefined;
    for (let i = 0; i < 50 && !event; i++) {
      const lines = readFileSync(join(dir, 'audit.log'), 'utf8').split('\n').filter(Boolean);
      event = lines
        .map((l) => JSON.parse(l) as { verb: string; stage: string; objectRef?: { namespace?: string; name?: string }; annotations?: Record<string, string> })
        .find((e) => e.verb === 'create' && e.stage === 'ResponseComplete' && e.objectRef?.namespace === 'psa-audit' && e.objectRef?.name === 'x');
      if (!event) await new Promise((r) => setTimeout(r, 100));
    }
    expect(event?.annotations).toMatchObject({
      'pod-security.kubernetes.io/enforce-policy': 'privileged:latest',
      'pod-security.kubernetes.io/audit-violations': 'would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)',
    });
  }, 60_000);
});

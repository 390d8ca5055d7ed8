// Admission webhooks end to end: `pilothouse apiserver` with the webhook
// plugins, `pilothouse example-webhook` as a separate process serving HTTPS
// with a certificate from a test CA (the caBundle), and kubectl 1.32 as the
// client. Ports 30500–30599: the control plane on 30500..30506, the example
// webhook on 30510, nothing listens on 30511.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCa, issueLeaf } from '../../../main/common/pki/certificates';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';
import { CLI_JS } from '../../support/cluster';

const PORT_BASE = 30500;
const HOOK_PORT = 30510;
const DEAD_PORT = 30511;
const HOOK = `https://127.0.0.1:${HOOK_PORT}`;

let api: TestApiServer;
let dir: string;
let caBundle: string;
let webhook: ChildProcess | undefined;

/** Starts the example webhook and resolves once it printed its ready line. */
function startExampleWebhook(cert: string, key: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI_JS, 'example-webhook', '--tls-cert-file', cert, '--tls-private-key-file', key, '--port', String(HOOK_PORT), '--bind-address', '127.0.0.1', '--label', 'team=backend', '--warning', 'pods here get team=backend'], {
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`example-webhook not ready: ${out}`)), 15_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('example-webhook: serving on')) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`example-webhook exited ${code}: ${out}`));
    });
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'webhook-it-'));
  const ca = await issueCa('example-webhook-ca');
  const leaf = await issueLeaf(ca, { profile: 'server', commonName: 'example-webhook', hosts: ['127.0.0.1'] });
  writeFileSync(join(dir, 'tls.crt'), leaf.cert);
  writeFileSync(join(dir, 'tls.key'), leaf.key);
  caBundle = Buffer.from(ca.cert).toString('base64');
  webhook = await startExampleWebhook(join(dir, 'tls.crt'), join(dir, 'tls.key'));
  // Only the plugins under test beside NamespaceLifecycle: no service-account controller runs here.
  const flags = ['--disable-admission-plugins=ServiceAccount,LimitRanger,PodSecurity,ResourceQuota,ValidatingAdmissionPolicy'];
  api = await startTestApiServer(PORT_BASE, flags);
}, 300_000);

afterAll(async () => {
  if (webhook && webhook.exitCode === null) {
    const exited = new Promise((r) => webhook!.once('exit', r));
    webhook.kill('SIGKILL');
    await exited;
  }
  await reapApiServers();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function ok(args: string[], stdin?: string): Promise<string> {
  const r = await api.kubectl(args, { stdin });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}\n${api.logTail(20)}`);
  return r.stdout;
}

/** Runs body with a webhook configuration in place and removes it afterwards, whatever happened. */
async function withConfig(kind: 'mutating' | 'validating', name: string, yaml: string, body: () => Promise<void>): Promise<void> {
  await ok(['apply', '-f', '-'], yaml);
  try {
    await body();
  } finally {
    await api.kubectl(['delete', `${kind}webhookconfiguration`, name, '--ignore-not-found']);
  }
}

async function fails(args: string[], stdin?: string): Promise<string> {
  const r = await api.kubectl(args, { stdin });
  if (r.code === 0) throw new Error(`kubectl ${args.join(' ')} succeeded: ${r.stdout}`);
  return r.stderr;
}

function webhookConfig(kind: 'Mutating' | 'Validating', name: string, hook: Record<string, string>): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}WebhookConfiguration
metadata:
  name: ${name}
webhooks:
- name: ${hook.name}
  clientConfig:
    url: ${hook.url}
    caBundle: ${caBundle}
  rules:
  - operations: ["CREATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["${hook.resource ?? 'pods'}"]
  failurePolicy: ${hook.failurePolicy ?? 'Fail'}
  timeoutSeconds: ${hook.timeoutSeconds ?? '10'}
  sideEffects: None
  admissionReviewVersions: ["v1"]
${hook.extra ?? ''}`;
}

describe('mutating webhook (the seed example: every Pod carries team=backend)', () => {
  it('adds team=backend to a Pod created without it; selectors skip as configured', async () => {
    const yaml = webhookConfig('Mutating', 'team-label', {
      name: 'team.example.com',
      url: `${HOOK}/mutate`,
      extra: `  namespaceSelector:
    matchExpressions:
    - {key: webhooks, operator: NotIn, values: ["off"]}
  objectSelector:
    matchExpressions:
    - {key: skip-webhook, operator: DoesNotExist}
`,
    });
    await withConfig('mutating', 'team-label', yaml, async () => {
      expect(await ok(['get', 'mutatingwebhookconfigurations'])).toMatch(/^NAME\s+WEBHOOKS\s+AGE\nteam-label\s+1\s+\S+\n$/);
      expect(await ok(['get', 'mutatingwebhookconfiguration', 'team-label', '-o', 'jsonpath={.webhooks[0].reinvocationPolicy} {.webhooks[0].matchPolicy} {.webhooks[0].rules[0].scope}'])).toBe('Never Equivalent *');

      const run1 = await api.kubectl(['run', 'p1', '--image=nginx']);
      expect(run1.code).toBe(0);
      // The webhook's warning reaches kubectl as a Warning header.
      expect(run1.stderr).toContain('Warning: pods here get team=backend');
      expect(await ok(['get', 'pod', 'p1', '-o', 'jsonpath={.metadata.labels.team}'])).toBe('backend');
      expect(await ok(['get', 'pod', 'p1', '-o', 'jsonpath={.metadata.labels.run}'])).toBe('p1');
      // The request's trace shows the webhook plugin's stage with the patch it applied.
      const traces = JSON.parse(await ok(['get', '--raw', '/debug/pilothouse/traces'])) as { items: { method: string; resource?: string; name?: string; stages: { stage: string; verdict: string; patch?: unknown[] }[] }[] };
      const create = traces.items.find((t) => t.method === 'POST' && t.resource === 'pods' && t.stages.some((s) => s.stage === 'admission:mutating:MutatingAdmissionWebhook' && s.verdict === 'mutate'));
      expect(create?.stages.find((s) => s.stage === 'admission:mutating:MutatingAdmissionWebhook')?.patch).toEqual([{ op: 'add', path: '/metadata/labels/team', value: 'backend' }]);

      // objectSelector: a pod labelled skip-webhook is not sent to the webhook.
      await ok(['run', 'p2', '--image=nginx', '--labels=skip-webhook=yes']);
      expect(await ok(['get', 'pod', 'p2', '-o', 'jsonpath={.metadata.labels}'])).toBe('{"skip-webhook":"yes"}');

      // namespaceSelector: pods in a namespace labelled webhooks=off are not either.
      await ok(['create', 'namespace', 'quiet']);
      await ok(['label', 'namespace', 'quiet', 'webhooks=off']);
      await ok(['run', 'p3', '-n', 'quiet', '--image=nginx']);
      expect(await ok(['get', 'pod', 'p3', '-n', 'quiet', '-o', 'jsonpath={.metadata.labels}'])).toBe('{"run":"p3"}');

      // A pod that has the label keeps its value.
      await ok(['run', 'p4', '--image=nginx', '--labels=team=frontend']);
      expect(await ok(['get', 'pod', 'p4', '-o', 'jsonpath={.metadata.labels.team}'])).toBe('frontend');
    });
  }, 60_000);
});

describe('validating webhooks and failure policies', () => {
  it("a validating webhook denies with kube's message", async () => {
    await withConfig('validating', 'require-team', webhookConfig('Validating', 'require-team', { name: 'require-team.example.com', url: `${HOOK}/validate`, resource: 'configmaps' }), async () => {
      const err = await fails(['apply', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\n');
      expect(err).toContain('Error from server: error when creating "STDIN": admission webhook "require-team.example.com" denied the request: configmap "c1" in namespace "default" lacks the required label "team"');
      // The same object with the label goes through.
      await ok(['apply', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\n  labels: {team: backend}\n');
      expect(await ok(['get', 'configmap', 'c1', '-o', 'jsonpath={.metadata.name}'])).toBe('c1');
    });
  }, 60_000);

  it('an unreachable webhook refuses the request with failurePolicy Fail and lets it through with Ignore', async () => {
    await withConfig('validating', 'down', webhookConfig('Validating', 'down', { name: 'down.example.com', url: `https://127.0.0.1:${DEAD_PORT}/validate`, resource: 'configmaps' }), async () => {
      const err = await fails(['create', 'configmap', 'c2']);
      expect(err).toBe(
        `error: failed to create configmap: Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:${DEAD_PORT}/validate?timeout=10s": dial tcp 127.0.0.1:${DEAD_PORT}: connect: connection refused\n`,
      );
      await ok(['patch', 'validatingwebhookconfiguration', 'down', '--type=json', '-p', '[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Ignore"}]']);
      expect(await ok(['create', 'configmap', 'c2'])).toBe('configmap/c2 created\n');
    });
  }, 60_000);

  it("a slow webhook times out after timeoutSeconds with kube's message", async () => {
    await withConfig('validating', 'slow', webhookConfig('Validating', 'slow', { name: 'slow.example.com', url: `${HOOK}/slow/20000`, resource: 'configmaps', timeoutSeconds: '1' }), async () => {
      const t0 = Date.now();
      const err = await fails(['create', 'configmap', 'c3']);
      expect(err).toContain(`Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "${HOOK}/slow/20000?timeout=1s": context deadline exceeded`);
      // One second for the webhook plus kubectl's own start on a busy box; far before the webhook's 20 s.
      expect(Date.now() - t0).toBeLessThan(12_000);
    });
  }, 60_000);

  it('configurations are validated as kube validates them', async () => {
    const bad = webhookConfig('Validating', 'bad', { name: 'bad', url: 'http://127.0.0.1/validate' }).replace('  sideEffects: None\n', '');
    const err = await fails(['apply', '-f', '-'], bad);
    expect(err).toContain(
      [
        'The ValidatingWebhookConfiguration "bad" is invalid: ',
        '* webhooks[0].name: Invalid value: "bad": should be a domain with at least three segments separated by dots',
        '* webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
        `* webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      ].join('\n'),
    );
  }, 30_000);
});

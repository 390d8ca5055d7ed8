// The API server exactly as `pilothouse up` runs it (apiServerFlags: Node,RBAC,
// service-account keys, the audit log, kube's default admission plugins),
// driven the way the first seed describes with kubectl 1.32 and the admin
// kubeconfig: a developer `jane` may only touch the default namespace; every
// request is in the audit log with who, what and the decision; and nothing
// here needed a flag beyond what `up` passes. Ports 30900–30906.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';
import { CLI_JS } from '../../support/cluster';
import { eventually } from '../../support/waitFor';

let api: TestApiServer;
let manager: ChildProcess | undefined;

beforeAll(async () => {
  api = await startTestApiServer(30900);
  // The controller manager as up runs it (its own identity, controllers as service accounts):
  // the clusterrole-aggregation controller fills edit/view/admin from the bootstrap aggregate-to-* roles.
  manager = spawn(process.execPath, [CLI_JS, 'controllers', `--data-dir=${api.tc.dir}`, '--components=kube-controller-manager', '--leader-elect=false'], {
    stdio: 'ignore',
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
  });
}, 240_000);

afterAll(async () => {
  if (manager && manager.exitCode === null && manager.signalCode === null) {
    manager.kill('SIGKILL');
    await new Promise((r) => manager!.once('exit', r));
  }
  await reapApiServers();
}, 30_000);

async function ok(...args: string[]): Promise<string> {
  const r = await api.kubectl(args, { timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} → ${r.code}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

interface AuditEvent {
  stage: string;
  verb: string;
  user: { username: string };
  impersonatedUser?: { username: string };
  objectRef?: { resource?: string; namespace?: string; name?: string; apiGroup?: string };
  responseStatus?: { code?: number };
  annotations?: Record<string, string>;
}

describe('the API server as up runs it (secure by default)', () => {
  it('jane, bound to edit in default: creates there, is refused in kube-system with kube’s 403, and can-i agrees', async () => {
    expect(await ok('create', 'rolebinding', 'jane-edit', '--clusterrole=edit', '--user=jane', '-n', 'default')).toBe('rolebinding.rbac.authorization.k8s.io/jane-edit created\n');
    await eventually('the aggregation controller to fill the edit role', async () => {
      const edit = JSON.parse(await ok('get', 'clusterrole', 'edit', '-o', 'json')) as { rules?: { resources?: string[] }[] };
      return edit.rules?.some((r) => r.resources?.includes('deployments'));
    }, { timeoutMs: 90_000, intervalMs: 200 });

    expect(await ok('--as', 'jane', 'create', 'deployment', 'web', '--image=nginx', '-n', 'default')).toBe('deployment.apps/web created\n');
    const denied = await api.kubectl(['--as', 'jane', 'create', 'deployment', 'web', '--image=nginx', '-n', 'kube-system']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toBe(
      'error: failed to create deployment: deployments.apps is forbidden: User "jane" cannot create resource "deployments" in API group "apps" in the namespace "kube-system"\n',
    );
    const no = await api.kubectl(['auth', 'can-i', 'create', 'deployments', '-n', 'kube-system', '--as', 'jane']);
    expect([no.code, no.stdout]).toEqual([1, 'no\n']);
    const yes = await api.kubectl(['auth', 'can-i', 'create', 'deployments', '-n', 'default', '--as', 'jane']);
    expect([yes.code, yes.stdout]).toEqual([0, 'yes\n']);
  }, 120_000);

  it('the audit log has each request with user, verb, object and decision', async () => {
    const events = readFileSync(api.layout.auditLogFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as AuditEvent);
    const created = events.find((e) => e.verb === 'create' && e.objectRef?.resource === 'deployments' && e.objectRef.namespace === 'default' && e.stage === 'ResponseComplete');
    expect(created).toMatchObject({
      user: { username: 'admin' },
      impersonatedUser: { username: 'jane' },
      objectRef: { resource: 'deployments', namespace: 'default', name: 'web', apiGroup: 'apps' },
      responseStatus: { code: 201 },
      annotations: { 'authorization.k8s.io/decision': 'allow' },
    });
    expect(created!.annotations!['authorization.k8s.io/reason']).toBe('RBAC: allowed by RoleBinding "jane-edit/default" of ClusterRole "edit" to User "jane"');
    const refused = events.find((e) => e.verb === 'create' && e.objectRef?.resource === 'deployments' && e.objectRef.namespace === 'kube-system' && e.stage === 'ResponseComplete');
    expect(refused).toMatchObject({ impersonatedUser: { username: 'jane' }, responseStatus: { code: 403 }, annotations: { 'authorization.k8s.io/decision': 'forbid' } });
    // Health probes and Lease renewals are left out by the default policy.
    expect(events.some((e) => e.verb === 'get' && e.objectRef?.resource === 'leases')).toBe(false);
  }, 30_000);
});

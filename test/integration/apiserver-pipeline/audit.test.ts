// Audit logging on a real `pilothouse apiserver` (ports 30720–30729) with
// kubectl 1.32: a policy file with first-match rules at every level, the
// JSON-lines log kube writes (one ResponseComplete per request with user,
// verb, objectRef, status and the authorization decision; request/response
// objects by level), 401 and 403 (RBAC denying an impersonated user), the
// Audit-Id header, and rotation under --audit-log-maxsize/--audit-log-maxbackup.

import { existsSync, statSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';

const PORT_BASE = 30720;

interface Event {
  level: string;
  auditID: string;
  stage: string;
  requestURI: string;
  verb: string;
  user: { username?: string; groups?: string[] };
  impersonatedUser?: { username?: string; groups?: string[] };
  userAgent?: string;
  sourceIPs?: string[];
  objectRef?: Record<string, string>;
  responseStatus?: { code?: number; reason?: string; message?: string; status?: string };
  requestObject?: Record<string, any>;
  responseObject?: Record<string, any>;
  annotations?: Record<string, string>;
}

let api: TestApiServer;
let dir: string;
let logPath: string;

const policy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*", "/version", "/api", "/apis*", "/openapi*"]
- level: None
  userGroups: [system:nodes]
- level: RequestResponse
  resources: [{group: "", resources: [configmaps]}]
  omitManagedFields: true
- level: Request
  resources: [{group: "", resources: [secrets]}]
- level: None
  verbs: [watch]
- level: Metadata
`;

async function kubectl(...args: string[]): Promise<string> {
  const r = await api.kubectl(args, { timeoutMs: 30_000 });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} → ${r.code}: ${r.stderr}`);
  return r.stdout;
}

function readEvents(): Event[] {
  const files = readdirSync(dir).filter((f) => f.startsWith('audit')).sort();
  return files.flatMap((f) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Event),
  );
}

/** Events matching `pred`, waiting briefly for the queued writes to reach the file. */
async function events(pred: (e: Event) => boolean, atLeast = 1): Promise<Event[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const got = readEvents().filter(pred);
    if (got.length >= atLeast || Date.now() > deadline) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'a2-audit-'));
  logPath = join(dir, 'audit.log');
  writeFileSync(join(dir, 'policy.yaml'), policy);
  api = await startTestApiServer(PORT_BASE, [
    `--audit-policy-file=${join(dir, 'policy.yaml')}`,
    `--audit-log-path=${logPath}`,
    '--audit-log-maxsize=1',
    '--audit-log-maxbackup=1',
    '--authorization-mode=RBAC',
  ]);
}, 240_000);

afterAll(async () => {
  await reapApiServers();
  rmSync(dir, { recursive: true, force: true });
});

describe('audit log', () => {
  it('kubectl get pods: one ResponseComplete event with user, verb, objectRef, status and the authorization decision', async () => {
    await kubectl('get', 'pods', '-n', 'default');
    const [ev, ...more] = await events((e) => e.requestURI === '/api/v1/namespaces/default/pods?limit=500');
    expect(more).toEqual([]);
    expect(ev).toMatchObject({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      stage: 'ResponseComplete',
      verb: 'list',
      sourceIPs: ['127.0.0.1'],
      objectRef: { resource: 'pods', namespace: 'default', apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 200 },
    });
    expect(ev!.user.groups).toContain('system:masters');
    expect(ev!.userAgent).toMatch(/^kubectl\/v1\.32/);
    expect(ev!.annotations!['authorization.k8s.io/decision']).toBe('allow');
    expect(ev!.annotations!['authorization.k8s.io/reason']).toBe('');
    expect(ev!.requestObject).toBeUndefined();
    expect(ev!.responseObject).toBeUndefined();
  });

  it('a create at Metadata names its object from the body it sent (protobuf from kubectl create deployment), without the body', async () => {
    await kubectl('create', 'deployment', 'audited', '--image=nginx');
    const [ev] = await events((e) => e.verb === 'create' && e.objectRef?.resource === 'deployments');
    expect(ev!.level).toBe('Metadata');
    expect(ev!.objectRef).toEqual({ resource: 'deployments', namespace: 'default', name: 'audited', apiGroup: 'apps', apiVersion: 'v1' });
    expect(ev!.requestObject).toBeUndefined();
    expect(ev!.responseStatus).toEqual({ metadata: {}, code: 201 });
  });

  it('RequestResponse for configmaps (managed fields omitted), Request for secrets, None for excluded paths', async () => {
    await kubectl('create', 'configmap', 'cm1', '--from-literal=colour=blue');
    const [cm] = await events((e) => e.verb === 'create' && e.objectRef?.resource === 'configmaps');
    expect(cm!.level).toBe('RequestResponse');
    expect(cm!.objectRef).toMatchObject({ resource: 'configmaps', namespace: 'default', name: 'cm1', apiVersion: 'v1' });
    expect(cm!.requestObject).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'cm1' }, data: { colour: 'blue' } });
    expect(cm!.responseObject!.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(cm!.responseObject!.metadata.managedFields).toBeUndefined();
    expect(cm!.responseStatus).toEqual({ metadata: {}, code: 201 });

    await kubectl('create', 'secret', 'generic', 'sec1', '--from-literal=k=v');
    const [sec] = await events((e) => e.verb === 'create' && e.objectRef?.resource === 'secrets');
    expect(sec!.level).toBe('Request');
    expect(sec!.requestObject!.data).toEqual({ k: 'dg==' });
    expect(sec!.responseObject).toBeUndefined();

    await kubectl('version');
    expect(readEvents().some((e) => e.requestURI === '/version' || e.requestURI.startsWith('/api?') || e.requestURI === '/api')).toBe(false);
  });

  it('a failed request carries kube\'s Status; the Audit-Id header names the event', async () => {
    const r = await apiRequest(api.layout, 'GET', '/api/v1/namespaces/default/configmaps/missing');
    expect(r.status).toBe(404);
    const id = String(r.headers['audit-id']);
    const [ev] = await events((e) => e.auditID === id);
    expect(ev!.responseStatus).toMatchObject({ status: 'Failure', reason: 'NotFound', message: 'configmaps "missing" not found', code: 404 });
    expect(ev!.responseObject).toMatchObject({ kind: 'Status', code: 404 });
  });

  it('401: an event with an empty user', async () => {
    const r = await apiRequest(api.layout, 'GET', '/api/v1/namespaces', undefined, { Authorization: 'Bearer not-a-valid-token' }, true);
    expect(r.status).toBe(401);
    const id = String(r.headers['audit-id']);
    const [ev] = await events((e) => e.auditID === id);
    expect(ev).toMatchObject({ stage: 'ResponseStarted', verb: 'list', user: {}, responseStatus: { status: 'Failure', reason: 'Unauthorized', code: 401 } });
  });

  it('403 for an impersonated user: the requestor as user, impersonatedUser, forbid decision and the Status', async () => {
    const r = await api.kubectl(['get', 'secrets', '-n', 'default', '--as=bob']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('User "bob" cannot list resource "secrets"');
    const [ev] = await events((e) => e.impersonatedUser?.username === 'bob' && e.objectRef?.resource === 'secrets');
    expect(ev!.user.groups).toContain('system:masters');
    expect(ev!.impersonatedUser!.groups).toContain('system:authenticated');
    expect(ev!.responseStatus).toMatchObject({ status: 'Failure', reason: 'Forbidden', code: 403 });
    expect(ev!.annotations!['authorization.k8s.io/decision']).toBe('forbid');
  });

  it('rotates at --audit-log-maxsize=1 keeping --audit-log-maxbackup=1 backup', async () => {
    // ~400 KB configmap read back at RequestResponse: each get logs it twice over (response object).
    const big = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { blob: 'z'.repeat(400_000) } });
    expect((await apiRequest(api.layout, 'POST', '/api/v1/namespaces/default/configmaps', big)).status).toBe(201);
    for (let i = 0; i < 4; i++) expect((await apiRequest(api.layout, 'GET', '/api/v1/namespaces/default/configmaps/big')).status).toBe(200);
    // The log is written off the request path (a queue drained in the background): wait for it, bounded.
    const deadline = Date.now() + 20_000;
    let backups: string[] = [];
    while (Date.now() < deadline) {
      backups = readdirSync(dir).filter((f) => /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/.test(f));
      if (backups.length > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(backups.length, `files in ${dir}: ${readdirSync(dir).map((f) => `${f} ${statSync(join(dir, f)).size}`).join(', ')}`).toBe(1);
    expect(existsSync(logPath)).toBe(true);
    for (const f of [...backups, 'audit.log']) expect(readFileSync(join(dir, f)).length).toBeLessThanOrEqual(1024 * 1024);
  }, 60_000);
});

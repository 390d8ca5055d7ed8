// What clients see when a write is refused, against a real control plane:
// optimistic locking (two writers with the same resourceVersion), kube's
// validation messages through kubectl, malformed bodies, strict field
// validation, unknown routes and media types, and no credentials. After
// every refused write, etcd holds nothing for the object.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, PORTS_APISERVER, reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';

let api: TestApiServer;

beforeAll(async () => {
  api = await startTestApiServer(PORTS_APISERVER.errors);
}, 120_000);

afterAll(async () => {
  await reapApiServers();
});

async function stored(key: string): Promise<string> {
  const r = await api.etcdctl(['get', key, '--keys-only']);
  return r.stdout.trim();
}

function manifest(name: string, text: string): string {
  const file = join(api.home, `${name}.yaml`);
  writeFileSync(file, text);
  return file;
}

const DEPLOY = (name: string, replicas: number, extraSpec = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}${extraSpec}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: c
        image: nginx
`;

describe('refused writes', () => {
  it('two writers with the same resourceVersion: the second gets 409 Conflict and nothing is overwritten', async () => {
    const created = await apiRequest(api.layout, 'POST', '/apis/apps/v1/namespaces/default/deployments', JSON.stringify(yamlDeployment('race', 1)));
    expect(created.status).toBe(201);
    const current = (await apiRequest(api.layout, 'GET', '/apis/apps/v1/namespaces/default/deployments/race')).json() as { metadata: { resourceVersion: string }; spec: { replicas: number } };
    const writerA = structuredClone(current);
    writerA.spec.replicas = 2;
    const writerB = structuredClone(current);
    writerB.spec.replicas = 7;
    const a = await apiRequest(api.layout, 'PUT', '/apis/apps/v1/namespaces/default/deployments/race', JSON.stringify(writerA));
    expect(a.status).toBe(200);
    const b = await apiRequest(api.layout, 'PUT', '/apis/apps/v1/namespaces/default/deployments/race', JSON.stringify(writerB));
    expect(b.status).toBe(409);
    expect(b.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Operation cannot be fulfilled on deployments.apps "race": the object has been modified; please apply your changes to the latest version and try again',
      reason: 'Conflict',
      details: { name: 'race', group: 'apps', kind: 'deployments' },
      code: 409,
    });
    const after = (await apiRequest(api.layout, 'GET', '/apis/apps/v1/namespaces/default/deployments/race')).json() as { spec: { replicas: number } };
    expect(after.spec.replicas).toBe(2);
  }, 60_000);

  it('PUT without resourceVersion is an unconditional update for deployments (AllowUnconditionalUpdate), as kube', async () => {
    const current = (await apiRequest(api.layout, 'GET', '/apis/apps/v1/namespaces/default/deployments/race')).json() as { metadata: Record<string, unknown>; spec: { replicas: number } };
    delete current.metadata.resourceVersion;
    current.spec.replicas = 3;
    const r = await apiRequest(api.layout, 'PUT', '/apis/apps/v1/namespaces/default/deployments/race', JSON.stringify(current));
    expect(r.status).toBe(200);
    expect((r.json() as { spec: { replicas: number } }).spec.replicas).toBe(3);
  }, 30_000);

  it('replicas -100 → 422 with kube\'s message, nothing stored', async () => {
    const r = await api.kubectl(['apply', '-f', manifest('bad', DEPLOY('bad', -100))]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('The Deployment "bad" is invalid: spec.replicas: Invalid value: -100: must be greater than or equal to 0');
    expect(await stored('/registry/deployments/default/bad')).toBe('');
  }, 30_000);

  it('a pod without containers → spec.containers: Required value, nothing stored', async () => {
    const r = await api.kubectl(['create', '-f', manifest('nocont', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: nocont\nspec:\n  containers: []\n')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('The Pod "nocont" is invalid: spec.containers: Required value');
    expect(await stored('/registry/pods/default/nocont')).toBe('');
  }, 30_000);

  it('a taken ClusterIP → provided IP is already allocated, nothing stored', async () => {
    const svc = (name: string) => `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\nspec:\n  clusterIP: 10.96.0.10\n  ports:\n  - port: 53\n    protocol: UDP\n`;
    const first = await api.kubectl(['create', '-f', manifest('dns-a', svc('dns-a'))]);
    expect(first.stdout).toBe('service/dns-a created\n');
    const second = await api.kubectl(['create', '-f', manifest('dns-b', svc('dns-b'))]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('provided IP is already allocated');
    expect(second.stderr).toContain('The Service "dns-b" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated');
    expect(await stored('/registry/services/specs/default/dns-b')).toBe('');
  }, 30_000);

  it('malformed JSON and YAML bodies → 400 BadRequest, nothing stored', async () => {
    const json = await apiRequest(api.layout, 'POST', '/apis/apps/v1/namespaces/default/deployments', '{"metadata": {"name": "broken"');
    expect(json.status).toBe(400);
    expect(json.json()).toMatchObject({ reason: 'BadRequest', code: 400 });
    expect(json.json().message).toContain('unexpected end of JSON input');
    const bad = await apiRequest(api.layout, 'POST', '/apis/apps/v1/namespaces/default/deployments', '{bad}');
    expect(bad.json().message).toBe("the object provided is unrecognized (must be of type Deployment): couldn't get version/kind; json parse error: invalid character 'b' looking for beginning of object key string ({bad})");
    const yaml = await apiRequest(api.layout, 'POST', '/apis/apps/v1/namespaces/default/deployments', 'metadata:\n  name: broken\n   spec: [', { 'Content-Type': 'application/yaml' });
    expect(yaml.status).toBe(400);
    expect(yaml.json().reason).toBe('BadRequest');
    expect(await stored('/registry/deployments/default/broken')).toBe('');
  }, 30_000);

  it('an unknown field → kube\'s strict decoding error through kubectl, nothing stored', async () => {
    const r = await api.kubectl(['apply', '-f', manifest('unknown', DEPLOY('unknown', 1, '\n  foo: bar'))]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"');
    expect(await stored('/registry/deployments/default/unknown')).toBe('');
    // fieldValidation=Warn stores it and says so in a Warning header.
    const warn = await apiRequest(api.layout, 'POST', '/apis/apps/v1/namespaces/default/deployments?fieldValidation=Warn', JSON.stringify({ ...yamlDeployment('warned', 1), spec: { ...yamlDeployment('warned', 1).spec, foo: 'bar' } }));
    expect(warn.status).toBe(201);
    expect(warn.headers.warning).toBe('299 - "unknown field \\"spec.foo\\""');
  }, 30_000);

  it('404, 405, 415, 401 and anonymous 403 bodies', async () => {
    const nf = await apiRequest(api.layout, 'GET', '/api/v1/namespaces/default/pods/missing');
    expect(nf.status).toBe(404);
    expect(nf.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods "missing" not found', reason: 'NotFound', details: { name: 'missing', kind: 'pods' }, code: 404 });
    const route = await apiRequest(api.layout, 'GET', '/apis/apps/v1/namespaces/default/widgets');
    expect(route.status).toBe(404);
    expect(route.json().message).toBe('the server could not find the requested resource');
    const media = await apiRequest(api.layout, 'POST', '/apis/apps/v1/namespaces/default/deployments', 'x', { 'Content-Type': 'text/plain' });
    expect(media.status).toBe(415);
    expect(media.json().reason).toBe('UnsupportedMediaType');
    const method = await apiRequest(api.layout, 'PUT', '/apis/apps/v1/namespaces/default/deployments', '{}');
    expect(method.status).toBe(405);
    // A bad credential is 401; no credential at all is system:anonymous, whom RBAC refuses (403), as kube-apiserver.
    const bad = await apiRequest(api.layout, 'GET', '/api/v1/namespaces', undefined, { Authorization: 'Bearer not-a-token' }, true);
    expect(bad.status).toBe(401);
    expect(bad.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    const anon = await apiRequest(api.layout, 'GET', '/api/v1/namespaces', undefined, {}, true);
    expect(anon.status).toBe(403);
    expect(anon.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
      reason: 'Forbidden',
      details: { kind: 'namespaces' },
      code: 403,
    });
  }, 30_000);
});

function yamlDeployment(name: string, replicas: number) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  };
}

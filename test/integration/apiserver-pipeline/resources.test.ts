// kubectl 1.32 against a real `pilothouse apiserver` (3 TLS etcd members)
// for the access-control resources: RBAC roles and bindings (create, get -o wide,
// describe, explain, the immutable roleRef, validation), ResourceQuota
// (`create quota`, the /status split, printer columns) and LimitRange
// (defaults, describe), each stored under kube's etcd key.
// Ports 30000–30006.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiServerFlags, apiServerLayout, waitApiServerReady, writeKubeconfig, type ApiServerLayout } from '../../../main/controlplane/apiserverLayout';
import { SupervisedProcess } from '../../../main/controlplane/supervisedProcess';
import { apiRequest, apiServerTestProgram, KUBECTL, reapApiServers, run } from '../../support/apiserver';
import { reapClusters, startTestCluster } from '../../support/cluster';
import { ETCDCTL, type CtlResult } from '../../support/etcdctl';

const PORT_BASE = 30000;

/**
 * startTestApiServer's control plane with patient timeouts: on a shared,
 * loaded machine three TLS etcd members plus the API server can take well
 * over the harness's 30 s to come up. Same layout, flags and clients.
 */
interface Api {
  layout: ApiServerLayout;
  home: string;
  proc: SupervisedProcess;
  kubectl(args: string[]): Promise<CtlResult>;
  etcdctl(args: string[]): Promise<CtlResult>;
  logTail(lines?: number): string;
}

async function startPatient(portBase: number, timeoutMs = 150_000): Promise<Api> {
  const tc = await startTestCluster('pilothouse', portBase, timeoutMs, { tls: true });
  const pki = tc.cluster.pki!;
  const layout = await apiServerLayout(tc.dir, portBase, tc.cluster.layout.length, pki);
  const proc = new SupervisedProcess({ id: 'apiserver', kind: 'apiserver', program: apiServerTestProgram(), args: apiServerFlags(layout, tc.cluster.layout), logFile: layout.logFile, restart: 'never' });
  const logTail = (lines = 40) => (existsSync(layout.logFile) ? readFileSync(layout.logFile, 'utf8').split('\n').slice(-lines).join('\n') : '(no log)');
  const home = join(tc.dir, 'home');
  mkdirSync(home, { recursive: true });
  proc.start();
  const ready = await waitApiServerReady(layout, timeoutMs, () => proc.running);
  if (!ready.ok) {
    proc.kill('SIGKILL');
    await proc.waitExit();
    throw new Error(`API server on ${layout.port} not ready: ${ready.why}\n${logTail()}`);
  }
  writeKubeconfig(layout);
  const endpoints = tc.cluster.layout.map((m) => m.clientUrl).join(',');
  return {
    layout,
    home,
    proc,
    logTail,
    kubectl: (args) => run(KUBECTL, args, { KUBECONFIG: layout.kubeconfig, HOME: home }),
    etcdctl: (args) => run(ETCDCTL, [`--endpoints=${endpoints}`, `--cacert=${pki.ca.cert}`, `--cert=${pki.client.cert}`, `--key=${pki.client.key}`, ...args], { ETCDCTL_API: '3' }),
  };
}

let api: Api;

beforeAll(async () => {
  api = await startPatient(PORT_BASE);
}, 400_000);

afterAll(async () => {
  if (api) {
    api.proc.kill('SIGKILL');
    await api.proc.waitExit();
  }
  await reapApiServers();
  await reapClusters();
}, 60_000);

async function ok(args: string[]): Promise<string> {
  const r = await api.kubectl(args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}\n${api.logTail(20)}`);
  return r.stdout;
}

async function fails(args: string[]): Promise<string> {
  const r = await api.kubectl(args);
  expect(r.code).not.toBe(0);
  return r.stderr;
}

function manifest(name: string, text: string): string {
  const file = join(api.home, `${name}.yaml`);
  writeFileSync(file, text);
  return file;
}

async function keys(prefix: string): Promise<string[]> {
  const r = await api.etcdctl(['get', prefix, '--prefix', '--keys-only']);
  return r.stdout.split('\n').filter(Boolean);
}

/** The rows of kubectl's table output, columns split on runs of 2+ spaces. */
const rows = (out: string) =>
  out
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));

describe('RBAC objects with kubectl', () => {
  it('create role / clusterrole / bindings; stored under /registry/<resource>/', async () => {
    expect(await ok(['create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods,deployments.apps'])).toBe('role.rbac.authorization.k8s.io/pod-reader created\n');
    expect(await ok(['create', 'clusterrole', 'health-reader', '--verb=get', '--non-resource-url=/healthz,/livez'])).toBe('clusterrole.rbac.authorization.k8s.io/health-reader created\n');
    expect(await ok(['create', 'rolebinding', 'read-pods', '--role=pod-reader', '--user=alice', '--group=devs', '--serviceaccount=default:builder'])).toBe(
      'rolebinding.rbac.authorization.k8s.io/read-pods created\n',
    );
    expect(await ok(['create', 'clusterrolebinding', 'health', '--clusterrole=health-reader', '--group=system:authenticated'])).toBe(
      'clusterrolebinding.rbac.authorization.k8s.io/health created\n',
    );
    expect(await keys('/registry/roles/default/')).toEqual(['/registry/roles/default/pod-reader']);
    expect(await keys('/registry/rolebindings/default/')).toEqual(['/registry/rolebindings/default/read-pods']);
    expect(await keys('/registry/clusterroles/health')).toEqual(['/registry/clusterroles/health-reader']);
    expect(await keys('/registry/clusterrolebindings/health')).toEqual(['/registry/clusterrolebindings/health']);

    const role = JSON.parse(await ok(['get', 'role', 'pod-reader', '-o', 'json'])) as { rules: unknown[] };
    expect(role.rules).toEqual([
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get', 'list', 'watch'], apiGroups: ['apps'], resources: ['deployments'] },
    ]);
    const binding = JSON.parse(await ok(['get', 'rolebinding', 'read-pods', '-o', 'json'])) as Record<string, unknown>;
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' });
    expect(binding.subjects).toEqual([
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
      { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'default' },
    ]);
  }, 90_000);

  it('get prints kube columns: NAME CREATED AT for roles, ROLE AGE (+ subjects wide) for bindings', async () => {
    const roles = rows(await ok(['get', 'clusterrole', 'health-reader']));
    expect(roles[0]).toEqual(['NAME', 'CREATED AT']);
    expect(roles[1][0]).toBe('health-reader');
    expect(roles[1][1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const wide = rows(await ok(['get', 'rolebinding', 'read-pods', '-o', 'wide']));
    expect(wide[0]).toEqual(['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
    expect([wide[1][0], wide[1][1], wide[1][3], wide[1][4], wide[1][5]]).toEqual(['read-pods', 'Role/pod-reader', 'alice', 'devs', 'default/builder']);
    expect(rows(await ok(['get', 'clusterrolebinding', 'health']))[0]).toEqual(['NAME', 'ROLE', 'AGE']);
  }, 60_000);

  it('describe shows rules and subjects', async () => {
    const role = await ok(['describe', 'role', 'pod-reader']);
    expect(role).toMatch(/PolicyRule:\n\s+Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs/);
    expect(role).toMatch(/deployments\.apps\s+\[\]\s+\[\]\s+\[get list watch\]/);
    const binding = await ok(['describe', 'rolebinding', 'read-pods']);
    expect(binding).toMatch(/Role:\n\s+Kind:\s+Role\n\s+Name:\s+pod-reader/);
    expect(binding).toMatch(/ServiceAccount\s+builder\s+default/);
  }, 60_000);

  it('roleRef cannot change; bad rules and subjects are refused with kube messages', async () => {
    const patch = await fails(['patch', 'rolebinding', 'read-pods', '--type=merge', '-p', '{"roleRef":{"kind":"ClusterRole","name":"health-reader"}}']);
    expect(patch).toContain(
      'The RoleBinding "read-pods" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"health-reader"}: cannot change roleRef',
    );
    // Subjects may change.
    await ok(['patch', 'rolebinding', 'read-pods', '--type=merge', '-p', '{"subjects":[{"kind":"User","name":"bob","apiGroup":"rbac.authorization.k8s.io"}]}']);
    const bad = manifest(
      'bad-role',
      `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: bad
rules:
- verbs: [get]
  nonResourceURLs: [/healthz]
`,
    );
    expect(await fails(['create', '-f', bad])).toContain(
      'The Role "bad" is invalid: rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs',
    );
    const crb = await fails(['create', 'clusterrolebinding', 'sa-without-ns', '--clusterrole=view', '--user=x', '--dry-run=server', '-o', 'name', '--serviceaccount=:sa']);
    expect(crb).toMatch(/serviceaccount must be <namespace>:<name>|subjects\[1\]\.namespace: Required value/);
    expect(await keys('/registry/roles/default/bad')).toEqual([]);
  }, 60_000);

  it('names with colons are fine (system roles)', async () => {
    expect(await ok(['create', 'clusterrole', 'system:pilothouse:test', '--verb=get', '--resource=nodes'])).toBe('clusterrole.rbac.authorization.k8s.io/system:pilothouse:test created\n');
    expect(await keys('/registry/clusterroles/system:pilothouse:test')).toEqual(['/registry/clusterroles/system:pilothouse:test']);
  }, 60_000);

  it('explain reads the rbac schema', async () => {
    const out = await ok(['explain', 'role.rules']);
    expect(out).toContain('GROUP:      rbac.authorization.k8s.io');
    expect(out).toContain('KIND:       Role');
    expect(out).toContain('FIELD: rules <[]PolicyRule>');
    expect(out).toMatch(/verbs\s+<\[\]string> -required-/);
    const crb = await ok(['explain', 'clusterrolebinding.roleRef']);
    expect(crb).toMatch(/apiGroup\s+<string> -required-/);
  }, 60_000);

  it('discovery lists the group with kube resources and no short names', async () => {
    const out = rows(await ok(['api-resources', '--api-group=rbac.authorization.k8s.io']));
    expect(out.slice(1).map((r) => r.join(' '))).toEqual([
      'clusterrolebindings rbac.authorization.k8s.io/v1 false ClusterRoleBinding',
      'clusterroles rbac.authorization.k8s.io/v1 false ClusterRole',
      'rolebindings rbac.authorization.k8s.io/v1 true RoleBinding',
      'roles rbac.authorization.k8s.io/v1 true Role',
    ]);
  }, 60_000);
});

describe('ResourceQuota and LimitRange with kubectl', () => {
  it('create quota; status only through /status; get shows AGE REQUEST LIMIT', async () => {
    expect(await ok(['create', 'quota', 'compute', '--hard=pods=4,requests.cpu=2,limits.memory=4Gi'])).toBe('resourcequota/compute created\n');
    expect(await keys('/registry/resourcequotas/default/')).toEqual(['/registry/resourcequotas/default/compute']);
    const stored = JSON.parse(await ok(['get', 'quota', 'compute', '-o', 'json'])) as { spec: unknown; status?: unknown; metadata: { resourceVersion: string } };
    expect(stored.spec).toEqual({ hard: { 'limits.memory': '4Gi', pods: '4', 'requests.cpu': '2' } });
    // ResourceQuotaStatus is a value struct: encoding/json shows it even when empty.
    expect(stored.status).toEqual({});

    // A main-resource update cannot write status; /status can (and keeps spec).
    const path = '/api/v1/namespaces/default/resourcequotas/compute';
    const withStatus = { ...stored, status: { hard: { pods: '4', 'requests.cpu': '2', 'limits.memory': '4Gi' }, used: { pods: '1', 'requests.cpu': '500m' } } };
    const main = await apiRequest(api.layout, 'PUT', path, JSON.stringify(withStatus));
    expect(main.status).toBe(200);
    expect(main.json().status).toEqual({});
    const fresh = main.json() as { metadata: { resourceVersion: string } };
    const status = await apiRequest(api.layout, 'PUT', `${path}/status`, JSON.stringify({ ...withStatus, metadata: fresh.metadata, spec: { hard: { pods: '99' } } }));
    expect(status.status).toBe(200);
    expect(status.json().spec).toEqual({ hard: { 'limits.memory': '4Gi', pods: '4', 'requests.cpu': '2' } });

    const table = rows(await ok(['get', 'quota']));
    expect(table[0]).toEqual(['NAME', 'AGE', 'REQUEST', 'LIMIT']);
    expect([table[1][0], table[1][2], table[1][3]]).toEqual(['compute', 'pods: 1/4, requests.cpu: 500m/2', 'limits.memory: 0/4Gi']);
    const described = await ok(['describe', 'quota', 'compute']);
    expect(described).toMatch(/requests\.cpu\s+500m\s+2/);
    expect(described).toMatch(/pods\s+1\s+4/);
  }, 90_000);

  it('quota validation and immutable scopes', async () => {
    expect(await fails(['create', 'quota', 'bad', '--hard=pods=-1'])).toContain('error: failed to create quota: ResourceQuota "bad" is invalid: spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0');
    await ok(['create', 'quota', 'scoped', '--hard=pods=2', '--scopes=NotTerminating']);
    const patch = await fails(['patch', 'quota', 'scoped', '--type=merge', '-p', '{"spec":{"scopes":["Terminating"]}}']);
    expect(patch).toContain('The ResourceQuota "scoped" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating"}: field is immutable');
  }, 60_000);

  it('limitrange: container defaults filled in, bounds checked, describe and CREATED AT', async () => {
    const file = manifest(
      'limits',
      `apiVersion: v1
kind: LimitRange
metadata:
  name: mem
spec:
  limits:
  - type: Container
    max: {memory: 1Gi}
    min: {cpu: 100m}
`,
    );
    expect(await ok(['create', '-f', file])).toBe('limitrange/mem created\n');
    expect(await keys('/registry/limitranges/default/')).toEqual(['/registry/limitranges/default/mem']);
    const lr = JSON.parse(await ok(['get', 'limits', 'mem', '-o', 'json'])) as { spec: { limits: unknown[] } };
    expect(lr.spec.limits).toEqual([{ type: 'Container', max: { memory: '1Gi' }, min: { cpu: '100m' }, default: { memory: '1Gi' }, defaultRequest: { cpu: '100m', memory: '1Gi' } }]);
    expect(rows(await ok(['get', 'limitrange']))[0]).toEqual(['NAME', 'CREATED AT']);
    const described = await ok(['describe', 'limits', 'mem']);
    expect(described).toMatch(/Container\s+memory\s+-\s+1Gi\s+1Gi\s+1Gi\s+-/);

    const bad = manifest(
      'bad-limits',
      `apiVersion: v1
kind: LimitRange
metadata:
  name: bad
spec:
  limits:
  - type: Pod
    min: {cpu: "2"}
    max: {cpu: "1"}
`,
    );
    expect(await fails(['create', '-f', bad])).toContain('The LimitRange "bad" is invalid: spec.limits[0].min[cpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:2, scale:0}');
  }, 60_000);
});

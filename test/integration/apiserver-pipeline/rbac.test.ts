// Authorization end to end: `pilothouse apiserver --authorization-mode=Node,RBAC`
// with kubectl 1.32 and the real controllers. The bootstrap roles exist
// (and survive a restart without duplicates); a user bound to `edit` in
// default (whose rules the clusterrole-aggregation controller fills) can
// create a Deployment there and gets kube's 403 in kube-system; `kubectl
// auth can-i` answers from SelfSubjectAccessReview / SelfSubjectRulesReview;
// escalation through roles and bindings is refused with kube's message; and
// the controllers get a 3-replica Deployment Running once the controller
// manager's identity is bound to the controller roles it needs.
// Ports 30200–30206.

import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLeaf } from '../../../main/common/pki/certificates';
import { componentKubeconfig } from '../../../main/common/pki/componentPki';
import { apiServerFlags, apiServerLayout, waitApiServerReady, writeKubeconfig } from '../../../main/controlplane/apiserverLayout';
import { SupervisedProcess } from '../../../main/controlplane/supervisedProcess';
import { CLI_JS, reapClusters, startTestCluster } from '../../support/cluster';
import { KUBECTL, run } from '../../support/apiserver';
import { ETCDCTL, type CtlResult } from '../../support/etcdctl';
import { eventually } from '../../support/waitFor';

const waitOpts = { intervalMs: 250, detail: () => `--- controllers\n${controllersLog.split('\n').slice(-30).join('\n')}\n--- apiserver\n${api.logTail(20)}` };

const PORT_BASE = 30200;
const PRIVATE = resolve(`test-results/rbac-${process.pid}`);
// The harness's startTestApiServer waits 30 s for etcd and for /readyz; on
// this shared, loaded machine that is often too short, so this file starts
// the same pieces (3 TLS members, `pilothouse apiserver` with the flags
// `up` uses) with longer waits.
const READY_MS = 120_000;
interface Api {
  layout: Awaited<ReturnType<typeof apiServerLayout>>;
  tc: Awaited<ReturnType<typeof startTestCluster>>;
  home: string;
  kubectl(args: string[], opts?: { stdin?: string; env?: Record<string, string> }): Promise<CtlResult>;
  etcdctl(args: string[]): Promise<CtlResult>;
  restart(): Promise<void>;
  logTail(lines?: number): string;
}
let api: Api;
let apiProc: SupervisedProcess | undefined;

async function startApiServer(): Promise<Api> {
  const tc = await startTestCluster('pilothouse', PORT_BASE, READY_MS, { tls: true });
  const layout = await apiServerLayout(tc.dir, PORT_BASE, tc.cluster.layout.length, tc.cluster.pki!);
  const proc = new SupervisedProcess({ id: 'apiserver', kind: 'apiserver', program: { command: process.execPath, args: [join(PRIVATE, 'out/main/cli.js'), 'apiserver'], env: { ELECTRON_RUN_AS_NODE: '1' } }, args: apiServerFlags(layout, tc.cluster.layout, ['--authorization-mode=Node,RBAC']), logFile: layout.logFile, restart: 'never' });
  apiProc = proc;
  const home = join(tc.dir, 'home');
  mkdirSync(home, { recursive: true });
  const logTail = (lines = 40): string => (existsSync(layout.logFile) ? readFileSync(layout.logFile, 'utf8').split('\n').slice(-lines).join('\n') : '(no log)');
  const startAndWait = async (): Promise<void> => {
    proc.start();
    const ready = await waitApiServerReady(layout, READY_MS, () => proc.running);
    if (!ready.ok) throw new Error(`API server on ${layout.port} not ready: ${ready.why}\n${logTail()}`);
  };
  await startAndWait();
  writeKubeconfig(layout);
  const pki = tc.cluster.pki!;
  return {
    layout,
    tc,
    home,
    logTail,
    kubectl: (args, opts = {}) => run(KUBECTL, args, { KUBECONFIG: layout.kubeconfig, HOME: home, ...opts.env }, { stdin: opts.stdin }),
    etcdctl: (args) => run(ETCDCTL, [`--endpoints=${tc.cluster.layout.map((m) => m.clientUrl).join(',')}`, `--cacert=${pki.ca.cert}`, `--cert=${pki.client.cert}`, `--key=${pki.client.key}`, ...args], { ETCDCTL_API: '3' }),
    async restart() {
      await proc.stop();
      await startAndWait();
    },
  };
}
let controllers: ChildProcess | undefined;
let controllersLog = '';
const kubeconfigs: Record<string, string> = {};

/** A client certificate signed by the test cluster's kube CA, and a kubeconfig for it. */
async function userKubeconfig(user: string, groups: string[] = []): Promise<string> {
  const ca = { cert: readFileSync(api.layout.pki.ca.cert, 'utf8'), key: readFileSync(api.layout.pki.ca.key, 'utf8') };
  const pair = await issueLeaf(ca, { profile: 'client', commonName: user, organizations: groups.length ? groups : undefined });
  const file = join(api.home, `${user}.kubeconfig`);
  writeFileSync(file, componentKubeconfig(api.layout.url, ca.cert, user, pair.cert, pair.key), { mode: 0o600 });
  return file;
}

const as = (user: string, args: string[], stdin?: string): Promise<CtlResult> => api.kubectl(args, { env: { KUBECONFIG: kubeconfigs[user]! }, stdin });

async function admin(args: string[], stdin?: string): Promise<string> {
  const r = await api.kubectl(args, { stdin });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}\n${api.logTail(20)}`);
  return r.stdout;
}

beforeAll(async () => {
  if (!existsSync(CLI_JS)) throw new Error('run npm run build first');
  cpSync(resolve(CLI_JS, '../..'), join(PRIVATE, 'out'), { recursive: true });
  api = await startApiServer();
  kubeconfigs.jane = await userKubeconfig('jane');
  kubeconfigs.bob = await userKubeconfig('bob');
}, 330_000);

afterAll(async () => {
  if (controllers && controllers.exitCode === null && controllers.signalCode === null) {
    controllers.kill('SIGKILL');
    await new Promise((r) => controllers!.once('exit', r));
  }
  if (apiProc) {
    apiProc.kill('SIGKILL');
    await apiProc.waitExit();
  }
  await reapClusters();
  rmSync(PRIVATE, { recursive: true, force: true });
}, 30_000);

describe('RBAC under --authorization-mode=Node,RBAC', () => {
  it('bootstraps kube’s roles and bindings, labelled and annotated', async () => {
    const cr = JSON.parse(await admin(['get', 'clusterrole', 'cluster-admin', '-o', 'json'])) as { metadata: { labels: Record<string, string>; annotations: Record<string, string> }; rules: unknown[] };
    expect(cr.metadata.labels['kubernetes.io/bootstrapping']).toBe('rbac-defaults');
    expect(cr.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate']).toBe('true');
    expect(cr.rules).toEqual([{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['*'] }]);
    const crb = JSON.parse(await admin(['get', 'clusterrolebinding', 'system:kube-scheduler', '-o', 'json'])) as { subjects: unknown[] };
    expect(crb.subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:kube-scheduler' }]);
    const roles = await admin(['get', 'roles', '-n', 'kube-system', '-o', 'name']);
    expect(roles).toContain('role.rbac.authorization.k8s.io/system::leader-locking-kube-controller-manager');
  });

  it('a user with no bindings gets kube’s 403', async () => {
    const r = await as('jane', ['get', 'pods']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"');
    const can = await as('jane', ['auth', 'can-i', 'list', 'pods']);
    expect([can.code, can.stdout.trim()]).toEqual([1, 'no']);
  });

  it('the controllers run under Node,RBAC once the controller manager identity holds the controller roles', async () => {
    // kube's controller manager acts with one service account per controller
    // (--use-service-account-credentials); ours acts as system:kube-controller-manager,
    // whose own role cannot create pods or fill aggregated roles — bind it to those controllers' roles.
    for (const c of ['deployment-controller', 'replicaset-controller', 'clusterrole-aggregation-controller', 'generic-garbage-collector', 'namespace-controller', 'service-account-controller', 'endpoint-controller', 'node-controller']) {
      await admin(['create', 'clusterrolebinding', `kcm-${c}`, `--clusterrole=system:controller:${c}`, '--user=system:kube-controller-manager']);
    }
    controllers = spawn(process.execPath, [join(PRIVATE, 'out/main/cli.js'), 'controllers', `--data-dir=${api.tc.dir}`, '--nodes=3', '--leader-elect=false'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    });
    controllers.stdout!.setEncoding('utf8').on('data', (d: string) => (controllersLog += d));
    controllers.stderr!.setEncoding('utf8').on('data', (d: string) => (controllersLog += d));
    // The aggregation controller fills edit from system:aggregate-to-edit.
    await eventually('edit to be aggregated', async () => {
        const r = await api.kubectl(['get', 'clusterrole', 'edit', '-o', 'json']);
        return r.code === 0 && ((JSON.parse(r.stdout) as { rules?: unknown[] }).rules ?? []).length > 0;
      }, { ...waitOpts, timeoutMs: 90_000 });
    await eventually('3 Ready nodes', async () => (await admin(['get', 'nodes', '--no-headers'])).split('\n').filter((l) => / Ready /.test(l)).length === 3, { ...waitOpts, timeoutMs: 30_000 });
  }, 180_000);

  it('a user bound to edit creates a Deployment in default, is refused in kube-system, and the pods run', async () => {
    expect(await admin(['create', 'rolebinding', 'jane-edit', '--clusterrole=edit', '--user=jane', '-n', 'default'])).toBe('rolebinding.rbac.authorization.k8s.io/jane-edit created\n');
    await eventually('jane to be allowed', async () => (await as('jane', ['auth', 'can-i', 'create', 'deployments'])).stdout.trim() === 'yes', { ...waitOpts, timeoutMs: 10_000 });
    const ok = await as('jane', ['create', 'deployment', 'web', '--image=nginx', '--replicas=3']);
    expect([ok.code, ok.stdout, ok.stderr]).toEqual([0, 'deployment.apps/web created\n', '']);
    const denied = await as('jane', ['create', 'deployment', 'web', '--image=nginx', '-n', 'kube-system']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('deployments.apps is forbidden: User "jane" cannot create resource "deployments" in API group "apps" in the namespace "kube-system"');
    const can = await as('jane', ['auth', 'can-i', 'create', 'deployments', '-n', 'kube-system']);
    expect([can.code, can.stdout.trim()]).toEqual([1, 'no']);
    const yes = await as('jane', ['auth', 'can-i', 'create', 'deployments.apps', '-n', 'default']);
    expect([yes.code, yes.stdout.trim()]).toEqual([0, 'yes']);
    const list = await as('jane', ['auth', 'can-i', '--list', '-n', 'default']);
    expect(list.code).toBe(0);
    const rows = list.stdout.split('\n').map((l) => l.trim().split(/\s{2,}/));
    expect(rows[0]).toEqual(['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs']);
    expect(rows).toContainEqual(['deployments.apps', '[]', '[]', '[create update patch delete deletecollection get list watch]']);
    expect(rows).toContainEqual(['selfsubjectaccessreviews.authorization.k8s.io', '[]', '[]', '[create]']);
    await eventually('3 Running pods of web', async () => {
        const pods = JSON.parse(await admin(['get', 'pods', '-l', 'app=web', '-o', 'json'])) as { items: { status?: { phase?: string } }[] };
        return pods.items.filter((p) => p.status?.phase === 'Running').length === 3;
      }, { ...waitOpts, timeoutMs: 60_000 });
  }, 90_000);

  it('refuses escalation through roles and bindings with kube’s message', async () => {
    await admin(['create', 'rolebinding', 'bob-admin', '--clusterrole=admin', '--user=bob', '-n', 'default']);
    await eventually('bob to be admin', async () => (await as('bob', ['auth', 'can-i', 'create', 'roles'])).stdout.trim() === 'yes', { ...waitOpts, timeoutMs: 10_000 });
    const held = await as('bob', ['create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods']);
    expect([held.code, held.stderr]).toEqual([0, '']);
    const esc = await as('bob', ['create', 'role', 'node-reader', '--verb=get', '--resource=nodes']);
    expect(esc.code).toBe(1);
    expect(esc.stderr.trim()).toBe(
      'Error from server (Forbidden): roles.rbac.authorization.k8s.io "node-reader" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}',
    );
    const bind = await as('bob', ['create', 'rolebinding', 'grab', '--clusterrole=cluster-admin', '--user=bob']);
    expect(bind.code).toBe(1);
    expect(bind.stderr.trim()).toBe(
      'error: failed to create rolebinding: rolebindings.rbac.authorization.k8s.io "grab" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}',
    );
    // A binding to a role bob holds is fine (edit ⊂ admin in this namespace).
    const fine = await as('bob', ['create', 'rolebinding', 'carol-edit', '--clusterrole=edit', '--user=carol']);
    expect([fine.code, fine.stderr]).toEqual([0, '']);
  });

  it('a role labelled aggregate-to-edit extends edit', async () => {
    const before = await as('jane', ['auth', 'can-i', 'create', 'limitranges']);
    expect([before.code, before.stdout.trim()]).toEqual([1, 'no']);
    await admin(['apply', '-f', '-'], 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: limits-edit\n  labels:\n    rbac.authorization.k8s.io/aggregate-to-edit: "true"\nrules:\n- apiGroups: [""]\n  resources: ["limitranges"]\n  verbs: ["create"]\n');
    await eventually('jane to be allowed to create limitranges', async () => (await as('jane', ['auth', 'can-i', 'create', 'limitranges'])).stdout.trim() === 'yes', { ...waitOpts, timeoutMs: 45_000 });
  }, 60_000);

  it('bootstrap roles are reconciled, not duplicated, across a restart (user additions and autoupdate=false kept)', async () => {
    await admin(['label', 'clusterrole', 'system:heapster', 'mine=yes']);
    await admin(['annotate', '--overwrite', 'clusterrole', 'system:kube-dns', 'rbac.authorization.kubernetes.io/autoupdate=false']);
    await admin(['patch', 'clusterrole', 'system:kube-dns', '--type=json', '-p', '[{"op":"replace","path":"/rules","value":[{"apiGroups":[""],"resources":["services"],"verbs":["list"]}]}]']);
    await admin(['patch', 'clusterrole', 'system:auth-delegator', '--type=json', '-p', '[{"op":"remove","path":"/rules/1"}]']);
    const before = (await api.etcdctl(['get', '/registry/clusterroles/', '--prefix', '--keys-only'])).stdout.split('\n').filter(Boolean);
    await api.restart();
    const after = (await api.etcdctl(['get', '/registry/clusterroles/', '--prefix', '--keys-only'])).stdout.split('\n').filter(Boolean);
    expect(after).toEqual(before);
    const heapster = JSON.parse(await admin(['get', 'clusterrole', 'system:heapster', '-o', 'json'])) as { metadata: { labels: Record<string, string> } };
    expect(heapster.metadata.labels.mine).toBe('yes');
    const dns = JSON.parse(await admin(['get', 'clusterrole', 'system:kube-dns', '-o', 'json'])) as { rules: unknown[] };
    expect(dns.rules).toEqual([{ apiGroups: [''], resources: ['services'], verbs: ['list'] }]);
    const delegator = JSON.parse(await admin(['get', 'clusterrole', 'system:auth-delegator', '-o', 'json'])) as { rules: unknown[] };
    expect(delegator.rules).toContainEqual({ apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] });
  }, 60_000);
});

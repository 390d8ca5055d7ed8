// The built-in admission plugins on a real `pilothouse apiserver` with
// kubectl 1.32 (ports 30300–30399): ServiceAccount (default SA, token
// volume, missing SA refused), DefaultTolerationSeconds, LimitRanger
// defaults and refusals, ResourceQuota with the resource quota controller
// running in this process (status filled, third pod refused with kube's
// message, usage given back on delete), the per-plugin trace stages with
// their patches, and --disable-admission-plugins=ServiceAccount on a second
// API server over the same etcd.

import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiServerFlags, waitApiServerReady, type ApiServerLayout } from '../../../main/controlplane/apiserverLayout';
import { SupervisedProcess } from '../../../main/controlplane/supervisedProcess';
import { clientsFromFile, DEFAULT_CONTROLLER_OPTIONS, newEventRecorder, realClock, SharedInformerFactory, type KubeClients } from '../../../main/client/kube';
import { startResourceQuotaController } from '../../../main/controllers/manager/resourceQuota';
import { mkdirSync } from 'node:fs';
import { apiServerLayout, writeKubeconfig } from '../../../main/controlplane/apiserverLayout';
import { apiRequest, apiServerTestProgram, KUBECTL, reapApiServers, run } from '../../support/apiserver';
import { reapClusters, startTestCluster, type TestCluster } from '../../support/cluster';
import type { CtlResult } from '../../support/etcdctl';
import { eventually } from '../../support/waitFor';

const PORT_BASE = 30300;
const SECOND_PORT = 30310;

interface Api {
  tc: TestCluster;
  layout: ApiServerLayout;
  proc: SupervisedProcess;
  kubectl(args: string[], opts?: { stdin?: string; timeoutMs?: number }): Promise<CtlResult>;
}
let api: Api;
let clients: KubeClients;
const stopControllers = new AbortController();
let informers: SharedInformerFactory;

async function kubectl(...args: string[]): Promise<string> {
  const r = await api.kubectl(args, { timeoutMs: 30_000 });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} → ${r.code}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}
async function kubectlFails(...args: string[]): Promise<string> {
  const r = await api.kubectl(args, { timeoutMs: 30_000 });
  expect(r.code, `kubectl ${args.join(' ')} should fail: ${r.stdout}`).not.toBe(0);
  return r.stderr;
}
const getJson = async <T>(...args: string[]): Promise<T> => JSON.parse(await kubectl(...args, '-o', 'json')) as T;
const apply = (yaml: string) => api.kubectl(['apply', '-f', '-'], { stdin: yaml }).then((r) => {
  if (r.code !== 0) throw new Error(`apply: ${r.stderr}`);
  return r.stdout;
});
const sa = (ns: string, name = 'default') => `apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n`;

interface Pod {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: {
    serviceAccountName?: string;
    serviceAccount?: string;
    volumes?: { name: string; projected?: { sources: Record<string, unknown>[]; defaultMode: number } }[];
    containers: { name: string; volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[]; resources?: Record<string, Record<string, string>> }[];
    tolerations?: { key: string; operator: string; effect: string; tolerationSeconds: number }[];
  };
}

/**
 * startTestApiServer's layout, with more patience: on this box, shared by
 * many test runs, three TLS etcd members have taken over 40 s to elect, past
 * the harness's 30 s.
 */
async function startApiServerPatiently(portBase: number): Promise<Api> {
  const tc = await startTestCluster('pilothouse', portBase, 120_000, { tls: true });
  const layout = await apiServerLayout(tc.dir, portBase, tc.cluster.layout.length, tc.cluster.pki!);
  const proc = new SupervisedProcess({ id: 'apiserver', kind: 'apiserver', program: apiServerTestProgram(), args: apiServerFlags(layout, tc.cluster.layout), logFile: layout.logFile, restart: 'never' });
  procs.push(proc);
  proc.start();
  const ready = await waitApiServerReady(layout, 90_000, () => proc.running);
  if (!ready.ok) throw new Error(`API server on ${layout.port} not ready: ${ready.why}`);
  writeKubeconfig(layout);
  const home = join(tc.dir, 'home');
  mkdirSync(home, { recursive: true });
  return { tc, layout, proc, kubectl: (args, opts = {}) => run(KUBECTL, args, { KUBECONFIG: layout.kubeconfig, HOME: home }, opts) };
}

const procs: SupervisedProcess[] = [];

beforeAll(async () => {
  api = await startApiServerPatiently(PORT_BASE);
  clients = await clientsFromFile(api.layout.kubeconfig, 'admission-test');
  informers = new SharedInformerFactory(clients.rest, { resyncMs: 0 });
  informers.start(stopControllers.signal);
  startResourceQuotaController(
    {
      component: 'kube-controller-manager',
      clients,
      informers,
      recorder: (c, host) => newEventRecorder(clients.rest, { component: c, host }),
      nodeClients: async () => clients,
      clock: realClock,
      options: DEFAULT_CONTROLLER_OPTIONS,
      signal: stopControllers.signal,
      log: () => {},
    },
    60_000,
  );
}, 200_000);

afterAll(async () => {
  stopControllers.abort();
  await informers?.stopped();
  clients?.rest.close();
  for (const p of procs) p.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.waitExit()));
  await reapApiServers();
  await reapClusters();
}, 30_000);

describe('ServiceAccount and DefaultTolerationSeconds', () => {
  it('refuses a pod while the namespace has no default ServiceAccount; then mounts its token', async () => {
    await kubectl('create', 'namespace', 'sa-test');
    const refused = await kubectlFails('run', 'early', '--image=nginx', '-n', 'sa-test');
    expect(refused).toContain('Error from server (Forbidden): pods "early" is forbidden: error looking up service account sa-test/default: serviceaccount "default" not found');

    await apply(sa('sa-test'));
    await kubectl('run', 'web', '--image=nginx', '-n', 'sa-test');
    const pod = await getJson<Pod>('get', 'pod', 'web', '-n', 'sa-test');
    expect(pod.spec.serviceAccountName).toBe('default');
    expect(pod.spec.serviceAccount).toBe('default');
    const vol = pod.spec.volumes?.find((v) => v.name.startsWith('kube-api-access-'));
    expect(vol?.name).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(vol?.projected).toEqual({
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    });
    expect(pod.spec.containers[0].volumeMounts).toEqual([{ name: vol!.name, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }]);
    expect(pod.spec.tolerations).toEqual([
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
  }, 60_000);

  it('refuses a pod naming a missing ServiceAccount; automountServiceAccountToken=false mounts nothing', async () => {
    const refused = await kubectlFails('run', 'ghostly', '--image=nginx', '-n', 'sa-test', '--overrides={"spec":{"serviceAccountName":"ghost"}}');
    expect(refused).toContain('pods "ghostly" is forbidden: error looking up service account sa-test/ghost: serviceaccount "ghost" not found');
    await apply(`${sa('sa-test', 'quiet')}automountServiceAccountToken: false\n`);
    await kubectl('run', 'calm', '--image=nginx', '-n', 'sa-test', '--overrides={"spec":{"serviceAccountName":"quiet"}}');
    const pod = await getJson<Pod>('get', 'pod', 'calm', '-n', 'sa-test');
    expect(pod.spec.serviceAccountName).toBe('quiet');
    expect(pod.spec.volumes ?? []).toEqual([]);
    expect(pod.spec.containers[0].volumeMounts).toBeUndefined();
  }, 60_000);
});

describe('LimitRanger', () => {
  it('defaults requests and limits into a pod and annotates it; refuses what is out of range', async () => {
    await kubectl('create', 'namespace', 'lr-test');
    await apply(sa('lr-test'));
    await apply(
      [
        'apiVersion: v1',
        'kind: LimitRange',
        'metadata:',
        '  name: limits',
        '  namespace: lr-test',
        'spec:',
        '  limits:',
        '  - type: Container',
        '    default: {cpu: 500m, memory: 512Mi}',
        '    defaultRequest: {cpu: 100m, memory: 128Mi}',
        '    min: {cpu: 100m}',
        '    max: {memory: 1Gi}',
      ].join('\n'),
    );
    await kubectl('run', 'nginx', '--image=nginx', '-n', 'lr-test');
    const pod = await getJson<Pod>('get', 'pod', 'nginx', '-n', 'lr-test');
    expect(pod.spec.containers[0].resources).toEqual({ limits: { cpu: '500m', memory: '512Mi' }, requests: { cpu: '100m', memory: '128Mi' } });
    expect(pod.metadata.annotations?.['kubernetes.io/limit-ranger']).toBe('LimitRanger plugin set: cpu, memory request for container nginx; cpu, memory limit for container nginx');
    const fromYaml = parseYaml(await kubectl('get', 'pod', 'nginx', '-n', 'lr-test', '-o', 'yaml')) as Pod;
    expect(fromYaml.spec.containers[0].resources).toEqual(pod.spec.containers[0].resources);

    const refused = await kubectlFails(
      'run', 'greedy', '--image=nginx', '-n', 'lr-test',
      '--overrides={"spec":{"containers":[{"name":"greedy","image":"nginx","resources":{"requests":{"cpu":"50m"},"limits":{"memory":"2Gi"}}}]}}',
    ); // prettier-ignore
    expect(refused).toContain('Error from server (Forbidden): pods "greedy" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, maximum memory usage per Container is 1Gi, but limit is 2Gi]');
  }, 60_000);
});

interface Quota {
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}

describe('ResourceQuota', () => {
  it('the controller fills the status; the third pod is refused; a delete gives the slot back', async () => {
    await kubectl('create', 'namespace', 'rq-test');
    await apply(sa('rq-test'));
    await kubectl('create', 'configmap', 'settings', '--from-literal=k=v', '-n', 'rq-test');
    await kubectl('create', 'quota', 'q', '--hard=pods=2,count/configmaps=5', '-n', 'rq-test');
    const filled = await eventually('quota status', async () => {
      const q = await getJson<Quota>('get', 'quota', 'q', '-n', 'rq-test');
      return q.status?.used ? q : undefined;
    }, { timeoutMs: 20_000, intervalMs: 200 });
    expect(filled.status).toEqual({ hard: { pods: '2', 'count/configmaps': '5' }, used: { pods: '0', 'count/configmaps': '1' } });

    await kubectl('run', 'p1', '--image=nginx', '-n', 'rq-test');
    await kubectl('run', 'p2', '--image=nginx', '-n', 'rq-test');
    const refused = await kubectlFails('run', 'p3', '--image=nginx', '-n', 'rq-test');
    expect(refused).toContain('Error from server (Forbidden): pods "p3" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
    expect((await getJson<Quota>('get', 'quota', 'q', '-n', 'rq-test')).status?.used?.pods).toBe('2');

    const describe = await kubectl('describe', 'quota', 'q', '-n', 'rq-test');
    expect(describe).toMatch(/Resource\s+Used\s+Hard/);
    expect(describe).toMatch(/pods\s+2\s+2/);

    await kubectl('delete', 'pod', 'p1', '-n', 'rq-test');
    await eventually('usage given back', async () => ((await getJson<Quota>('get', 'quota', 'q', '-n', 'rq-test')).status?.used?.pods === '1' ? true : undefined), { timeoutMs: 20_000, intervalMs: 200 });
    await kubectl('run', 'p4', '--image=nginx', '-n', 'rq-test');
  }, 90_000);

  it('a quota on limits.cpu requires every container to state it', async () => {
    await kubectl('create', 'quota', 'compute', '--hard=limits.cpu=2', '-n', 'rq-test');
    await eventually('compute quota status', async () => ((await getJson<Quota>('get', 'quota', 'compute', '-n', 'rq-test')).status?.used ? true : undefined), { timeoutMs: 20_000, intervalMs: 200 });
    // The pods quota is full too; the constraint of the compute quota speaks first only if it comes first: delete a pod to leave room.
    await kubectl('delete', 'pod', 'p2', '-n', 'rq-test');
    await eventually('usage given back', async () => ((await getJson<Quota>('get', 'quota', 'q', '-n', 'rq-test')).status?.used?.pods === '1' ? true : undefined), { timeoutMs: 20_000, intervalMs: 200 });
    const refused = await kubectlFails('run', 'nginx', '--image=nginx', '-n', 'rq-test');
    expect(refused).toContain('pods "nginx" is forbidden: failed quota: compute: must specify limits.cpu for: nginx');
  }, 60_000);
});

interface Trace {
  method: string;
  path: string;
  code?: number;
  stages: { stage: string; verdict: string; reason?: string; patch?: { op: string; path: string; value?: unknown }[] }[];
}

describe('admission trace', () => {
  it('a pod create shows each plugin’s stage, with the patch of those that mutated', async () => {
    await kubectl('run', 'traced', '--image=nginx', '-n', 'sa-test');
    const res = await apiRequest(api.layout, 'GET', '/debug/pilothouse/traces');
    expect(res.status).toBe(200);
    const traces = (res.json() as { items: Trace[] }).items;
    const t = traces.filter((x) => x.method === 'POST' && x.path === '/api/v1/namespaces/sa-test/pods' && x.code === 201).at(-1)!;
    expect(t).toBeDefined();
    const stage = (name: string) => t.stages.find((s) => s.stage === name);
    expect(stage('admission:mutating:NamespaceLifecycle')?.verdict).toBe('allow');
    expect(stage('admission:mutating:LimitRanger')?.verdict).toBe('allow');
    const saStage = stage('admission:mutating:ServiceAccount')!;
    expect(saStage.verdict).toBe('mutate');
    const ops = saStage.patch!.map((p) => `${p.op} ${p.path}`);
    expect(ops).toContain('add /spec/serviceAccountName');
    expect(ops).toContain('add /spec/containers/0/volumeMounts');
    expect(ops).toContain('add /spec/volumes');
    const tol = stage('admission:mutating:DefaultTolerationSeconds')!;
    expect(tol).toMatchObject({ verdict: 'mutate', patch: [{ op: 'add', path: '/spec/tolerations', value: expect.any(Array) }] });
    expect(stage('admission:validating:ResourceQuota')?.verdict).toBe('allow');

    const denials = traces.filter((x) => x.path === '/api/v1/namespaces/rq-test/pods' && x.code === 403).map((x) => x.stages.find((st) => st.verdict === 'deny'));
    expect(denials).toContainEqual(
      expect.objectContaining({ stage: 'admission:validating:ResourceQuota', reason: 'pods "p3" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2' }),
    );
  }, 30_000);
});

describe('--disable-admission-plugins=ServiceAccount', () => {
  it('a second API server over the same etcd admits a pod without a ServiceAccount and mounts nothing', async () => {
    const layout: ApiServerLayout = { ...api.layout, port: SECOND_PORT, url: `https://127.0.0.1:${SECOND_PORT}`, logFile: join(api.tc.dir, 'logs', 'apiserver-2.log') };
    const second = new SupervisedProcess({ id: 'apiserver-2', kind: 'apiserver', program: apiServerTestProgram(), args: apiServerFlags(layout, api.tc.cluster.layout, ['--disable-admission-plugins=ServiceAccount']), logFile: layout.logFile, restart: 'never' });
    procs.push(second);
    second.start();
    const ready = await waitApiServerReady(layout, 60_000, () => second.running);
    expect(ready).toEqual({ ok: true });
    await kubectl('create', 'namespace', 'no-sa');
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bare' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    const created = await apiRequest(layout, 'POST', '/api/v1/namespaces/no-sa/pods', body);
    expect(created.status).toBe(201);
    const pod = created.json() as unknown as Pod;
    expect(pod.spec.serviceAccountName).toBeUndefined();
    expect(pod.spec.volumes).toBeUndefined();
    // The first server (ServiceAccount on) still refuses there.
    expect((await apiRequest(api.layout, 'POST', '/api/v1/namespaces/no-sa/pods', body.replace('"bare"', '"other"'))).status).toBe(403);
  }, 60_000);
});

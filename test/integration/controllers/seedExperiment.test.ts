// The seed's experiment: what happens when someone bypasses the API server
// and edits a Deployment in etcd directly to `replicas: -100`?
//
//   - etcd stores it and the API server serves it: nothing between etcdctl
//     and etcd validates anything (the watch cache simply decodes the bytes);
//   - the same object through the API server is refused with 422;
//   - the controllers (a real `pilothouse controllers` process) see the new
//     spec by watch. The deployment controller computes the ReplicaSet's new
//     size from it and asks the API server to scale the ReplicaSet to -100,
//     which the API server's validation refuses (422) — so the invalid value
//     never reaches any object the controllers own: the ReplicaSet and its
//     pods stay as they were, the controller retries with backoff, and the
//     process keeps running. A later valid change (kubectl scale) converges.
// The control plane runs as `pilothouse up` sets it up (RBAC, admission,
// audit, controllers as their own service accounts), so the audit log names
// who tried the refused writes.
// Ports 30800–30806.

import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KObject } from '../../../main/kube/object';
import { decodeStored, protobufCodec } from '../../../main/kube/codec';
import { CLI_JS } from '../../support/cluster';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';
import { eventually } from '../../support/waitFor';

const PORT_BASE = 30800;
const PRIVATE = resolve(`test-results/seed-experiment-${process.pid}`);
const KEY = '/registry/deployments/default/seed';

let api: TestApiServer;
let controllers: ChildProcess;
let controllersLog = '';

interface AuditEvent {
  verb?: string;
  user?: { username?: string };
  objectRef?: { resource?: string };
  responseStatus?: { code?: number };
}

interface Deploy {
  metadata: { generation?: number; uid?: string };
  spec: { replicas?: number };
  status?: { replicas?: number; readyReplicas?: number; observedGeneration?: number };
}

const deploymentYaml = (name: string, replicas: number): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.26
`;

async function kubectl(...args: string[]): Promise<string> {
  const r = await api.kubectl(args, { timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} → ${r.code}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

const getJson = async <T>(...args: string[]): Promise<T> => JSON.parse(await kubectl(...args, '-o', 'json')) as T;

async function runningPods(app: string): Promise<number> {
  const pods = await getJson<{ items: { status?: { phase?: string }; metadata: { deletionTimestamp?: string } }[] }>('get', 'pods', '-l', `app=${app}`);
  return pods.items.filter((p) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp).length;
}

beforeAll(async () => {
  if (!existsSync(CLI_JS)) throw new Error('run npm run build first');
  // A private copy of out/: a rebuild of the shared out/ must not pull files from under the running program.
  cpSync(resolve(CLI_JS, '../..'), join(PRIVATE, 'out'), { recursive: true });
  api = await startTestApiServer(PORT_BASE);
  controllers = spawn(
    process.execPath,
    [join(PRIVATE, 'out/main/cli.js'), 'controllers', `--data-dir=${api.tc.dir}`, '--nodes=2', '--leader-elect=false'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } },
  );
  controllers.stdout!.setEncoding('utf8').on('data', (d: string) => (controllersLog += d));
  controllers.stderr!.setEncoding('utf8').on('data', (d: string) => (controllersLog += d));
}, 150_000);

afterAll(async () => {
  if (controllers && controllers.exitCode === null && controllers.signalCode === null) {
    controllers.kill('SIGKILL');
    await new Promise((r) => controllers.once('exit', r));
  }
  await reapApiServers();
  rmSync(PRIVATE, { recursive: true, force: true });
}, 30_000);

describe('the seed experiment: replicas -100 written to etcd directly', () => {
  it('is stored and served, refused through the API server, and the controllers refuse to act on it without crashing', async () => {
    const created = await api.kubectl(['apply', '-f', '-'], { stdin: deploymentYaml('seed', 2) });
    expect(created.code, created.stderr).toBe(0);
    await eventually('2 Running pods', async () => (await runningPods('seed')) === 2, { timeoutMs: 90_000, intervalMs: 200 });
    const before = await getJson<Deploy>('get', 'deploy', 'seed');
    const rsBefore = await getJson<{ items: { metadata: { name: string }; spec: { replicas: number } }[] }>('get', 'rs', '-l', 'app=seed');
    expect(rsBefore.items).toHaveLength(1);

    // The edit, done as the seed does it: read the stored bytes, change spec.replicas, put them back with etcdctl.
    const got = (await api.etcdctl(['get', KEY, '--print-value-only'])) as { raw?: Buffer; code: number | null };
    expect(got.code).toBe(0);
    const stored = decodeStored(got.raw!.subarray(0, got.raw!.length - 1)) as KObject & Deploy;
    stored.spec.replicas = -100;
    const put = await api.etcdctl(['put', KEY], { stdin: Buffer.from(protobufCodec().encode(stored)) });
    expect(put.code, put.stderr).toBe(0);
    expect(put.stdout.trim()).toBe('OK');

    // Stored and served: nothing checked it. No API server ran, so generation was not bumped either.
    await eventually('the API server to serve -100', async () => (await getJson<Deploy>('get', 'deploy', 'seed')).spec.replicas === -100, { timeoutMs: 10_000, intervalMs: 200 });
    expect(await kubectl('get', 'deploy', 'seed', '-o', 'jsonpath={.spec.replicas}')).toBe('-100');
    expect((await getJson<Deploy>('get', 'deploy', 'seed')).metadata.generation).toBe(before.metadata.generation);

    // The same object through the API server is refused, with kube's message, and nothing changes.
    const refused = await api.kubectl(['apply', '-f', '-'], { stdin: deploymentYaml('seed', -100) });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('spec.replicas: Invalid value: -100: must be greater than or equal to 0');

    // The controllers: the deployment controller tries to scale the ReplicaSet to -100 and the API server refuses it.
    // It keeps retrying (rate-limited, with growing backoff), every attempt refused the same way.
    const refusal = /deployment: sync default\/seed: ReplicaSet\.apps "seed-[a-z0-9]+" is invalid: spec\.replicas: Invalid value: -100: must be greater than or equal to 0/g;
    await eventually('the controller to retry and be refused by validation', async () => (controllersLog.match(refusal) ?? []).length >= 2, { timeoutMs: 20_000, intervalMs: 200 });
    const rsAfter = await getJson<{ items: { metadata: { name: string }; spec: { replicas: number } }[] }>('get', 'rs', '-l', 'app=seed');
    expect(rsAfter.items.map((r) => [r.metadata.name, r.spec.replicas])).toEqual(rsBefore.items.map((r) => [r.metadata.name, r.spec.replicas]));
    expect(await runningPods('seed')).toBe(2);
    expect(controllers.exitCode).toBeNull();
    expect(controllers.signalCode).toBeNull();
    // Who tried: the deployment controller as its own service account (kubeadm's
    // --use-service-account-credentials under RBAC), and the audit log recorded each refusal.
    const audit = readFileSync(api.layout.auditLogFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as AuditEvent);
    const refusals = audit.filter((e) => e.objectRef?.resource === 'replicasets' && e.verb === 'update' && e.responseStatus?.code === 422);
    expect(refusals.length).toBeGreaterThanOrEqual(2);
    expect(new Set(refusals.map((e) => e.user?.username))).toEqual(new Set(['system:serviceaccount:kube-system:deployment-controller']));

    // Still working: a valid change through the API server converges, and a new deployment reaches Running.
    await kubectl('scale', 'deploy', 'seed', '--replicas=3');
    await eventually('seed to scale to 3', async () => (await runningPods('seed')) === 3, { timeoutMs: 30_000, intervalMs: 200 });
    expect((await api.kubectl(['apply', '-f', '-'], { stdin: deploymentYaml('after', 1) })).code).toBe(0);
    await eventually('a new deployment to run', async () => (await runningPods('after')) === 1, { timeoutMs: 30_000, intervalMs: 200 });
    expect(controllers.exitCode).toBeNull();
  }, 180_000);
});

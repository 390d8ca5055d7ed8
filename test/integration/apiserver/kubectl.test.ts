// kubectl 1.32 against a real control plane (3 Pilothouse etcd members with
// mutual TLS + `pilothouse apiserver`), with validation on (no
// --validate=false anywhere): the seed's create/get/etcdctl flow, apply
// (client- and server-side), scale, get (wide, -A, -w), edit, replace,
// delete, explain, api-resources, version; a `kind: List` replaced through
// kubectl's client-side validation against /openapi/v2 (protobuf).

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUBECTL, PORTS_APISERVER, reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';
import { eventually } from '../../support/waitFor';

let api: TestApiServer;

beforeAll(async () => {
  api = await startTestApiServer(PORTS_APISERVER.kubectl);
}, 120_000);

afterAll(async () => {
  await reapApiServers();
});

async function ok(args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<string> {
  const r = await api.kubectl(args, opts);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}\n${api.logTail(20)}`);
  return r.stdout;
}

const deployment = (name: string, replicas: number, image = 'nginx:1.25') => `apiVersion: apps/v1
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
      - name: ${name}
        image: ${image}
`;

describe('kubectl against pilothouse apiserver', () => {
  it('version parses the server version', async () => {
    const out = await ok(['version']);
    expect(out).toMatch(/Server Version: v1\.32\.0-pilothouse\./);
  }, 60_000);

  it('create deployment, get -o yaml shows kube defaults, etcd holds k8s\\0 protobuf', async () => {
    expect(await ok(['create', 'deployment', 'nginx', '--image=nginx'])).toBe('deployment.apps/nginx created\n');
    const yaml = await ok(['get', 'deploy', 'nginx', '-o', 'yaml']);
    for (const line of [
      'progressDeadlineSeconds: 600',
      'revisionHistoryLimit: 10',
      'maxSurge: 25%',
      'maxUnavailable: 25%',
      'type: RollingUpdate',
      'creationTimestamp: null',
      'imagePullPolicy: Always',
      'terminationMessagePath: /dev/termination-log',
      'terminationMessagePolicy: File',
      'dnsPolicy: ClusterFirst',
      'restartPolicy: Always',
      'schedulerName: default-scheduler',
      'securityContext: {}',
      'terminationGracePeriodSeconds: 30',
      'generation: 1',
    ]) {
      expect(yaml).toContain(line);
    }
    expect(yaml).not.toContain('managedFields');
    const r = (await api.etcdctl(['get', '/registry/deployments/default/nginx'])) as { raw?: Buffer; stdout: string };
    const raw = r.raw!;
    const keyLine = '/registry/deployments/default/nginx\n';
    expect(raw.subarray(0, keyLine.length).toString()).toBe(keyLine);
    const value = raw.subarray(keyLine.length);
    expect([...value.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    expect(value.includes(Buffer.from('apps/v1'))).toBe(true);
    expect(value.includes(Buffer.from('Deployment'))).toBe(true);
    expect(value.includes(Buffer.from('nginx'))).toBe(true);
  }, 60_000);

  it('apply: created, configured, unchanged; then server-side apply', async () => {
    const file = join(api.home, 'web.yaml');
    writeFileSync(file, deployment('web', 2));
    expect(await ok(['apply', '-f', file])).toBe('deployment.apps/web created\n');
    writeFileSync(file, deployment('web', 3));
    expect(await ok(['apply', '-f', file])).toBe('deployment.apps/web configured\n');
    expect(await ok(['apply', '-f', file])).toBe('deployment.apps/web unchanged\n');
    expect(await ok(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas}'])).toBe('3');

    const ssa = join(api.home, 'ssa.yaml');
    writeFileSync(ssa, deployment('ssa', 1));
    expect(await ok(['apply', '--server-side', '-f', ssa])).toBe('deployment.apps/ssa serverside-applied\n');
    const mf = await ok(['get', 'deploy', 'ssa', '-o', 'yaml', '--show-managed-fields']);
    expect(mf).toContain('manager: kubectl');
    expect(mf).toContain('operation: Apply');
    expect(mf).toContain('k:{"name":"ssa"}');
  }, 90_000);

  it('scale, and get with the real columns (-o wide, -A)', async () => {
    expect(await ok(['scale', 'deploy', 'web', '--replicas=5'])).toBe('deployment.apps/web scaled\n');
    expect(await ok(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas}'])).toBe('5');
    const wide = (await ok(['get', 'deploy', '-o', 'wide'])).split('\n');
    expect(wide[0]).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/);
    expect(wide.find((l) => l.startsWith('web '))).toMatch(/^web\s+0\/5\s+0\s+0\s+\S+\s+web\s+nginx:1\.25\s+app=web$/);
    const all = (await ok(['get', 'deploy', '-A'])).split('\n');
    expect(all[0]).toMatch(/^NAMESPACE\s+NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/);
    expect(all.some((l) => /^default\s+nginx\s+0\/1\s/.test(l))).toBe(true);
  }, 60_000);

  it('get -w prints a line for a change made while it watches', async () => {
    const env = { ...process.env, KUBECONFIG: api.layout.kubeconfig, HOME: api.home };
    const child = spawn(KUBECTL, ['get', 'deploy', 'web', '-w', '--no-headers'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    try {
      await eventually('the condition', () => out.split('\n').filter((l) => l.startsWith('web')).length >= 1, { timeoutMs: 30_000, intervalMs: 100, detail: () => `initial line, got ${JSON.stringify(out)}` });
      await ok(['scale', 'deploy', 'web', '--replicas=2']);
      await eventually('the condition', () => out.split('\n').some((l) => /^web\s+0\/2\s/.test(l)), { timeoutMs: 30_000, intervalMs: 100, detail: () => `0/2 line, got ${JSON.stringify(out)}` });
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);

  it('edit with a scripted EDITOR, then replace', async () => {
    const script = join(api.home, 'editor.sh');
    writeFileSync(script, '#!/bin/sh\nsed -i "s/replicas: 2/replicas: 4/" "$1"\n', { mode: 0o755 });
    expect(await ok(['edit', 'deploy', 'web'], { env: { EDITOR: script } })).toBe('deployment.apps/web edited\n');
    expect(await ok(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas}'])).toBe('4');
    const current = await ok(['get', 'deploy', 'web', '-o', 'yaml']);
    const file = join(api.home, 'replace.yaml');
    writeFileSync(file, current.replace('image: nginx:1.25', 'image: nginx:1.26'));
    expect(await ok(['replace', '-f', file])).toBe('deployment.apps/web replaced\n');
    expect(await ok(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'])).toBe('nginx:1.26');
    expect(await ok(['get', 'deploy', 'web', '-o', 'jsonpath={.metadata.generation}'])).toBe('6'); // created 1, apply 2, scale 3, scale 4, edit 5, replace 6
  }, 90_000);

  it('delete waits and succeeds', async () => {
    expect(await ok(['delete', 'deploy', 'web'])).toBe('deployment.apps "web" deleted\n');
    const r = await api.kubectl(['get', 'deploy', 'web']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error from server (NotFound): deployments.apps "web" not found');
  }, 60_000);

  it('a List from get -o json replaces with client-side validation against /openapi/v2; bad fields are caught by kubectl', async () => {
    await ok(['create', 'configmap', 'listed', '--from-literal=k=v']);
    await ok(['create', 'secret', 'generic', 'listed', '--from-literal=k=v']);
    await ok(['apply', '-f', '-'], { stdin: deployment('listed', 1) });
    const list = await ok(['get', 'deploy,cm,secret,sa', '-o', 'json']);
    expect(JSON.parse(list).kind).toBe('List');
    const replaced = await api.kubectl(['replace', '-f', '-', '-v=6'], { stdin: list });
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stderr).toMatch(/GET https:\/\/127\.0\.0\.1:\d+\/openapi\/v2\S* 200 OK/);
    const out = replaced.stdout;
    expect(out).toContain('deployment.apps/listed replaced');
    expect(out).toContain('configmap/listed replaced');
    expect(out).toContain('secret/listed replaced');

    const bad = JSON.parse(list) as { items: { kind: string; spec?: Record<string, unknown> }[] };
    const d = bad.items.find((i) => i.kind === 'Deployment')!;
    d.spec!.bogus = 1;
    d.spec!.replicas = 'three';
    const r = await api.kubectl(['replace', '-f', '-'], { stdin: JSON.stringify(bad) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error validating data: [ValidationError(Deployment.spec): unknown field "bogus" in io.k8s.api.apps.v1.DeploymentSpec');
    expect(r.stderr).toContain('invalid type for io.k8s.api.apps.v1.DeploymentSpec.replicas: got "string", expected "integer"');
    expect(r.stderr).toContain('turn validation off with --validate=false');
  }, 90_000);

  it('explain and api-resources', async () => {
    const explain = await ok(['explain', 'deployment.spec.replicas']);
    expect(explain).toContain('KIND:       Deployment');
    expect(explain).toContain('FIELD: replicas <integer>');
    const res = (await ok(['api-resources'])).split('\n');
    expect(res[0]).toMatch(/^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND$/);
    expect(res.some((l) => /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/.test(l))).toBe(true);
    expect(res.some((l) => /^pods\s+po\s+v1\s+true\s+Pod$/.test(l))).toBe(true);
  }, 60_000);
});


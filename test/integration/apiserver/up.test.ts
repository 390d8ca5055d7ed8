// `pilothouse up` with the API server: after the members it starts
// `pilothouse apiserver` on port-base + 6, writes DIR/kubeconfig (admin
// client certificate, CN=admin O=system:masters), and `KUBECONFIG=DIR/kubeconfig
// kubectl get ns` just works; SIGTERM stops the API server and the members
// and up exits 0.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_JS } from '../../support/cluster';
import { KUBECTL, PORTS_APISERVER, run } from '../../support/apiserver';

const dir = mkdtempSync(join(tmpdir(), 'pilothouse-up-api-'));
const pids = new Set<number>();
let child: ChildProcess | undefined;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

afterAll(() => {
  child?.kill('SIGKILL');
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('pilothouse up with the API server', () => {
  it('serves kubectl through DIR/kubeconfig and stops everything on SIGTERM', async () => {
    child = spawn(process.execPath, [CLI_JS, 'up', '--data-dir', dir, '--port-base', String(PORTS_APISERVER.up)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
    const deadline = Date.now() + 90_000;
    while (!out.includes('API server ready') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 200));
    for (const m of out.matchAll(/pid (\d+)/g)) pids.add(Number(m[1]));
    expect(out).toContain(`pilothouse: API server ready at https://127.0.0.1:${PORTS_APISERVER.up + 6}`);
    expect(out).toContain(`run: KUBECONFIG=${join(dir, 'kubeconfig')} kubectl get ns`);
    const apiPid = Number(/API server ready at \S+ \(pid (\d+)\)/.exec(out)![1]);

    const kubeconfig = readFileSync(join(dir, 'kubeconfig'), 'utf8');
    expect(kubeconfig).toContain(`server: https://127.0.0.1:${PORTS_APISERVER.up + 6}`);
    expect(kubeconfig).toContain('client-certificate-data:');
    for (const f of ['ca.crt', 'apiserver.crt', 'apiserver-etcd-client.crt', 'admin.crt', 'admin.key']) expect(existsSync(join(dir, 'pki', 'kube', f))).toBe(true);
    expect(existsSync(join(dir, 'logs', 'apiserver.log'))).toBe(true);

    const home = join(dir, 'home');
    mkdirSync(home, { recursive: true });
    const ns = await run(KUBECTL, ['get', 'ns', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name'], { KUBECONFIG: join(dir, 'kubeconfig'), HOME: home });
    expect(ns.stderr).toBe('');
    expect(ns.stdout.trim().split('\n').sort()).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    // The kubeconfig's identity is the admin certificate: CN=admin, O=system:masters.
    const raw = await run(KUBECTL, ['get', '--raw', '/debug/pilothouse/traces'], { KUBECONFIG: join(dir, 'kubeconfig'), HOME: home });
    const traces = JSON.parse(raw.stdout) as { items: { path: string; user?: { username: string; groups: string[] } }[] };
    // The controllers list namespaces too, possibly first: kubectl's list is the one made as admin.
    const nsTrace = traces.items.find((t) => t.path === '/api/v1/namespaces' && t.user?.username === 'admin');
    expect(nsTrace, JSON.stringify(traces.items.filter((t) => t.path === '/api/v1/namespaces').map((t) => t.user))).toBeDefined();
    expect(nsTrace!.user).toEqual({ username: 'admin', groups: ['system:masters', 'system:authenticated'] });

    const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000))]);
    expect(code).toBe(0);
    expect(alive(apiPid)).toBe(false);
  }, 150_000);
});

// `pilothouse up`: prints the ready line once all members serve linearizable
// reads over TLS with client certificates, writes an etcdctl.env (https
// endpoints, CA, client certificate) that plain etcdctl works with, stops every member on
// SIGTERM and exits 0, and a second `up` on the same directory resumes the
// same cluster with its data.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CLI_JS, PORTS } from '../../support/cluster';
import { etcdctl } from '../../support/etcdctl';
import { eventually } from '../../support/waitFor';

interface UpRun {
  child: ChildProcess;
  output: () => string;
  memberPids: number[];
}

const running = new Set<ChildProcess>();
const memberPids = new Set<number>();
const dir = mkdtempSync(join(tmpdir(), 'pilothouse-up-'));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function startUp(): Promise<UpRun> {
  const child = spawn(process.execPath, [CLI_JS, 'up', '--data-dir', dir, '--port-base', String(PORTS.up)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const deadline = Date.now() + 60_000;
  while (!out.includes('pilothouse: cluster ready (3 members)') && Date.now() < deadline && child.exitCode === null) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const pids = [...out.matchAll(/m\d pid (\d+)/g)].map((m) => Number(m[1]));
  for (const p of pids) memberPids.add(p);
  // up also starts the API server once the members are ready; reap it too if up is SIGKILLed.
  void eventually('the condition', () => /apiserver pid (\d+)/.test(out), { timeoutMs: 60_000, intervalMs: 100 })
    .then(() => memberPids.add(Number(/apiserver pid (\d+)/.exec(out)![1])))
    .catch(() => {});
  void eventually('the condition', () => /controllers pid (\d+)/.test(out), { timeoutMs: 90_000, intervalMs: 100 })
    .then(() => memberPids.add(Number(/controllers pid (\d+)/.exec(out)![1])))
    .catch(() => {});
  expect(out, `up output: ${out}`).toContain('pilothouse: cluster ready (3 members)');
  return { child, output: () => out, memberPids: pids };
}

async function stopUp(run: UpRun): Promise<number | null> {
  const exited = new Promise<number | null>((r) => run.child.once('exit', (code) => r(code)));
  run.child.kill('SIGTERM');
  const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 25_000))]);
  running.delete(run.child);
  if (code === 'timeout') throw new Error('pilothouse up did not exit within 25 s of SIGTERM');
  return code;
}

function ctlWithEnvFile(args: string): { stdout: string; stderr: string; status: number | null } {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ETCDCTL_')));
  const r = spawnSync('bash', ['-c', `source ${join(dir, 'etcdctl.env')} && etcdctl ${args}`], { env, encoding: 'utf8', timeout: 15_000 });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

function kubectl(args: string[]): { stdout: string; stderr: string; status: number | null } {
  const r = spawnSync('/usr/bin/kubectl', args, { env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') }, encoding: 'utf8', timeout: 15_000 });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

/** Polls kubectl until check accepts its stdout; returns the last answer either way. */
async function kubectlUntil(args: string[], check: (stdout: string) => boolean, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = kubectl(args);
  while (!check(last.stdout) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    last = kubectl(args);
  }
  return last.stdout + last.stderr;
}

afterEach(() => {
  for (const c of running) c.kill('SIGKILL');
  running.clear();
});
afterAll(() => {
  for (const pid of memberPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('pilothouse up', () => {
  it('runs a ready cluster, stops it on SIGTERM, and resumes it', async () => {
    const first = await startUp();
    expect(first.memberPids).toHaveLength(3);
    const env = readFileSync(join(dir, 'etcdctl.env'), 'utf8');
    const pki = join(dir, 'pki');
    expect(env).toBe(
      'export ETCDCTL_API=3\n' +
        `export ETCDCTL_ENDPOINTS=https://127.0.0.1:${PORTS.up},https://127.0.0.1:${PORTS.up + 2},https://127.0.0.1:${PORTS.up + 4}\n` +
        `export ETCDCTL_CACERT=${pki}/ca.crt\nexport ETCDCTL_CERT=${pki}/client.crt\nexport ETCDCTL_KEY=${pki}/client.key\n`,
    );
    const caBefore = readFileSync(join(pki, 'ca.crt'), 'utf8');
    const put = ctlWithEnvFile('put survives restart');
    expect(put.stdout + put.stderr).toBe('OK\n');
    const list = ctlWithEnvFile('member list');
    expect(list.stdout.trim().split('\n')).toHaveLength(3);
    expect(list.stdout).toContain(`https://127.0.0.1:${PORTS.up + 1}`);
    // The seed form, by hand against one member; without a client certificate it is refused.
    const tlsFlags = [`--cacert=${pki}/ca.crt`, `--cert=${pki}/client.crt`, `--key=${pki}/client.key`];
    const seed = await etcdctl([...tlsFlags, 'get', 'survives', '--print-value-only'], { endpoints: [`https://127.0.0.1:${PORTS.up + 2}`] });
    expect(seed.stdout).toBe('restart\n');
    const anonymous = await etcdctl([`--cacert=${pki}/ca.crt`, '--command-timeout=2s', 'get', 'survives'], {
      endpoints: [`https://127.0.0.1:${PORTS.up + 2}`],
    });
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stdout).toBe('');

    // The controllers follow the API server: 3 simulated nodes turn Ready, a deployment gets a Running pod.
    await eventually('the condition', () => first.output().includes('pilothouse: controllers running'), { timeoutMs: 60_000, intervalMs: 100 });
    expect(first.output()).toMatch(/pilothouse: controllers running \(controllers pid \d+\): scheduler, controller manager and 3 simulated nodes/);
    const readyNodes = (s: string) => s.split('\n').filter((l) => /^\S+\s+Ready\s/.test(l)).length;
    const nodes = await kubectlUntil(['get', 'nodes', '--no-headers'], (s) => readyNodes(s) === 3, 60_000);
    expect(readyNodes(nodes), nodes).toBe(3);
    const created = kubectl(['create', 'deployment', 'web', '--image=nginx']);
    expect(created.stdout + created.stderr).toBe('deployment.apps/web created\n');
    const pods = await kubectlUntil(['get', 'pods', '-l', 'app=web', '--no-headers'], (s) => / 1\/1\s+Running\s/.test(s), 60_000);
    expect(pods).toMatch(/^web-\S+\s+1\/1\s+Running\s/m);
    expect(readFileSync(join(dir, 'logs', 'controllers.log'), 'utf8')).toContain('running kube-scheduler');

    expect(await stopUp(first)).toBe(0);
    for (const pid of first.memberPids) expect(alive(pid), `member pid ${pid} still running`).toBe(false);
    expect(readFileSync(join(dir, 'logs', 'm1.log'), 'utf8')).toContain('ready to serve client requests');

    const second = await startUp();
    expect(readFileSync(join(dir, 'pki', 'ca.crt'), 'utf8'), 'the PKI is reused').toBe(caBefore);
    const get = ctlWithEnvFile('get survives --print-value-only');
    expect(get.stdout).toBe('restart\n');
    expect(await stopUp(second)).toBe(0);
  }, 300_000); // two full up/stop cycles, each now with the API server and the controllers too
});

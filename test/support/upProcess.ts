// `pilothouse up` as a user runs it, for the tests of its supervision and
// readiness: its output collected, every pid it names remembered (members,
// API server, controllers, and each restarted one) so that a failed test
// reaps them all, and the real clients (kubectl with DIR/kubeconfig, etcdctl
// with DIR/etcdctl.env's certificates) pointed at it.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_JS } from './cluster';
import { KUBECTL, run } from './apiserver';
import { etcdctl } from './etcdctl';
import type { CtlResult } from './etcdctl';
import { eventually } from './waitFor';

export interface UpRun {
  dir: string;
  portBase: number;
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match in the output from `from` on (default: all of it); rejects after timeoutMs or when up exits. */
  waitFor(re: RegExp, timeoutMs: number, from?: number): Promise<RegExpExecArray>;
  /** SIGTERM; resolves with up's exit code. */
  stop(timeoutMs?: number): Promise<number | null>;
  kubectl(args: string[]): Promise<CtlResult>;
  /** etcdctl with the cluster's CA and client certificate against the given members (default all). */
  etcdctl(args: string[], endpoints?: string[]): Promise<CtlResult>;
  /** The client URLs of the members, m1 first. */
  endpoints: string[];
}

const runs: UpRun[] = [];
const pids = new Set<number>();

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function startUp(portBase: number, extra: string[] = [], dir = mkdtempSync(join(tmpdir(), 'pilothouse-up-'))): UpRun {
  const child = spawn(process.execPath, [CLI_JS, 'up', '--data-dir', dir, '--port-base', String(portBase), ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const onData = (d: string) => {
    out += d;
    for (const m of d.matchAll(/pid (\d+)/g)) if (Number(m[1]) !== child.pid) pids.add(Number(m[1]));
  };
  child.stdout!.setEncoding('utf8').on('data', onData);
  child.stderr!.setEncoding('utf8').on('data', onData);
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  const pki = join(dir, 'pki');
  const endpoints = [0, 1, 2].map((i) => `https://127.0.0.1:${portBase + 2 * i}`);
  const r: UpRun = {
    dir,
    portBase,
    child,
    endpoints,
    output: () => out,
    async waitFor(re, timeoutMs, from = 0) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = new RegExp(re.source, re.flags.replace('g', '')).exec(out.slice(from));
        if (m) return m;
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`up exited (${child.exitCode ?? child.signalCode}) before ${re}; output:\n${out}`);
        if (Date.now() > deadline) throw new Error(`no ${re} within ${timeoutMs} ms; output:\n${out}`);
        await new Promise((res) => setTimeout(res, 50));
      }
    },
    async stop(timeoutMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
      child.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<'timeout'>((res) => setTimeout(() => res('timeout'), timeoutMs))]);
      if (code === 'timeout') throw new Error(`up did not exit within ${timeoutMs} ms of SIGTERM; output:\n${out}`);
      return code;
    },
    kubectl: (args) => run(KUBECTL, args, { KUBECONFIG: join(dir, 'kubeconfig'), HOME: home }, { timeoutMs: 20_000 }),
    etcdctl: (args, eps = endpoints) =>
      etcdctl([`--cacert=${pki}/ca.crt`, `--cert=${pki}/client.crt`, `--key=${pki}/client.key`, '--command-timeout=3s', ...args], { endpoints: eps }),
  };
  runs.push(r);
  return r;
}

/** SIGKILLs every up this file started and every process they named, and removes their dirs. */
export function reapUps(): void {
  for (const r of runs) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  for (const r of runs.splice(0)) rmSync(r.dir, { recursive: true, force: true });
  pids.clear();
}

/** Waits until fn returns true and resolves with the ms since t0; fn's string answers say why not yet, and the last one is in the timeout error. */
export async function msUntil(what: string, fn: () => Promise<boolean | string>, timeoutMs: number, t0 = Date.now()): Promise<number> {
  let last: boolean | string = false;
  await eventually(what, async () => (last = await fn()) === true, {
    timeoutMs: Math.max(1, t0 + timeoutMs - Date.now()),
    intervalMs: 100,
    detail: () => `last: ${String(last)}`,
  });
  return Date.now() - t0;
}

/** Lines of `kubectl get nodes --no-headers` whose STATUS is Ready. */
export function readyNodeCount(stdout: string): number {
  return stdout.split('\n').filter((l) => /^\S+\s+Ready\s/.test(l)).length;
}

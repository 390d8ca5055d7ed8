// A real control plane for API server tests: three Pilothouse etcd members
// with mutual TLS (startTestCluster), the kube PKI, and `pilothouse
// apiserver` (out/main/cli.js) on portBase + 6, laid out exactly as
// `pilothouse up` lays it out; plus kubectl 1.32 and etcdctl runners with a
// private HOME (kubectl's discovery cache) and KUBECONFIG. One per test file
// (start it in beforeAll); reapApiServers() in afterAll SIGKILLs what is left.
// Ports: API server tests use 28100–28399 (see PORTS_APISERVER).

import { spawn } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiServerFlags, apiServerLayout, waitApiServerReady, writeKubeconfig, type ApiServerLayout } from '../../main/controlplane/apiserverLayout';
import type { Program } from '../../main/controlplane/program';
import { SupervisedProcess } from '../../main/controlplane/supervisedProcess';
import { CLI_JS, reapClusters, startTestCluster, type Impl, type TestCluster } from './cluster';
import { ETCDCTL, type CtlResult } from './etcdctl';

export const KUBECTL = '/usr/bin/kubectl';

/** Port bases of the API server test files (each uses base..base+6). */
export const PORTS_APISERVER = {
  kubectl: 28100,
  errors: 28120,
  watch: 28140,
  up: 28160,
  rest: 28180,
} as const;

export interface TestApiServer {
  tc: TestCluster;
  layout: ApiServerLayout;
  proc: SupervisedProcess;
  home: string;
  kubectl(args: string[], opts?: RunOptions): Promise<CtlResult>;
  etcdctl(args: string[], opts?: RunOptions): Promise<CtlResult>;
  /** Stops (SIGTERM) and starts the API server again on the same port; resolves when ready. */
  restart(): Promise<void>;
  logTail(lines?: number): string;
}

export interface RunOptions {
  stdin?: string | Buffer;
  env?: Record<string, string>;
  timeoutMs?: number;
}

const live: SupervisedProcess[] = [];

export function apiServerTestProgram(): Program {
  if (!existsSync(CLI_JS)) throw new Error(`${CLI_JS} missing: run npm run build first`);
  return { command: process.execPath, args: [CLI_JS, 'apiserver'], env: { ELECTRON_RUN_AS_NODE: '1' } };
}

/**
 * The API server runs as `pilothouse up` runs it, except that — with no
 * controller manager making each namespace's `default` ServiceAccount — the
 * ServiceAccount admission plugin is off, as in kube's own API server
 * integration tests; unless the test chooses admission plugins itself.
 */
function withTestAdmission(extraFlags: string[]): string[] {
  if (extraFlags.some((f) => /^--(enable-admission-plugins|disable-admission-plugins|admission-control)\b/.test(f))) return extraFlags;
  return ['--disable-admission-plugins=ServiceAccount', ...extraFlags];
}

/** members: Pilothouse's (default) or Debian's etcd 3.4, with the same mutual TLS. */
export async function startTestApiServer(portBase: number, extraFlags: string[] = [], members: Impl = 'pilothouse'): Promise<TestApiServer> {
  const tc = await startTestCluster(members, portBase, 90_000, { tls: true });
  const layout = await apiServerLayout(tc.dir, portBase, tc.cluster.layout.length, tc.cluster.pki!);
  const proc = new SupervisedProcess({ id: 'apiserver', kind: 'apiserver', program: apiServerTestProgram(), args: apiServerFlags(layout, tc.cluster.layout, withTestAdmission(extraFlags)), logFile: layout.logFile, restart: 'never' });
  live.push(proc);
  const home = join(tc.dir, 'home');
  mkdirSync(home, { recursive: true });
  const logTail = (lines = 40): string => (existsSync(layout.logFile) ? readFileSync(layout.logFile, 'utf8').split('\n').slice(-lines).join('\n') : '(no log)');
  const startAndWait = async (): Promise<void> => {
    proc.start();
    const ready = await waitApiServerReady(layout, 90_000, () => proc.running);
    if (!ready.ok) throw new Error(`API server on ${layout.port} not ready: ${ready.why}\n${logTail()}`);
  };
  await startAndWait();
  writeKubeconfig(layout);
  const pki = tc.cluster.pki!;
  return {
    tc,
    layout,
    proc,
    home,
    logTail,
    kubectl: (args, opts = {}) => run(KUBECTL, args, { KUBECONFIG: layout.kubeconfig, HOME: home, ...opts.env }, opts),
    etcdctl: (args, opts = {}) =>
      run(ETCDCTL, [`--endpoints=${tc.cluster.layout.map((m) => m.clientUrl).join(',')}`, `--cacert=${pki.ca.cert}`, `--cert=${pki.client.cert}`, `--key=${pki.client.key}`, ...args], { ETCDCTL_API: '3', ...opts.env }, opts),
    async restart() {
      await proc.stop();
      await startAndWait();
    },
  };
}

/** Runs a client binary with a bounded time; stdout/stderr as text (or latin1 bytes when binary). */
export function run(cmd: string, args: string[], env: Record<string, string>, opts: RunOptions = {}): Promise<CtlResult> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ETCDCTL_') && k !== 'KUBECONFIG'));
  const child = spawn(cmd, args, { env: { ...base, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('latin1').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.on('error', () => {});
  child.stdin.end(opts.stdin ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.from(stdout, 'latin1').toString('utf8'), stderr, code, raw: Buffer.from(stdout, 'latin1') } as CtlResult & { raw: Buffer });
    });
  });
}

/** SIGKILLs every API server and cluster this file started and removes their dirs. */
export async function reapApiServers(): Promise<void> {
  for (const p of live) p.kill('SIGKILL');
  await Promise.all(live.splice(0).map((p) => p.waitExit()));
  await reapClusters();
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): Record<string, unknown>;
}

/** One HTTPS request to the API server with the admin client certificate (or none: `anonymous`). */
export function apiRequest(
  layout: ApiServerLayout,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
  anonymous = false,
): Promise<ApiResponse> {
  const pki = layout.pki;
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      `${layout.url}${path}`,
      {
        method,
        ca: readFileSync(pki.ca.cert),
        ...(anonymous ? {} : { cert: readFileSync(pki.admin.cert), key: readFileSync(pki.admin.key) }),
        headers: { ...(body !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } : {}), ...headers },
        timeout: 15_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json: () => JSON.parse(text) as Record<string, unknown> }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

// What runs now under a data dir that `pilothouse up` hosts: its components
// (the host's child processes, found in /proc), each one's program and
// flags (its command line), and the build each says it runs — a member in
// its /metrics (pilothouse_build_info), the API server in /version, the
// controllers in their log's start line. Read-only: nothing is signalled.

import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { readEtcdctlEnv } from '../backup/clusterAccess';
import { livePlaneHost } from '../controlplane/pidFile';
import { kubeconfigClient } from '../controlplane/readiness';
import type { ComponentKind } from './build';

export interface RunningComponent {
  /** m1…, apiserver, controllers. */
  id: string;
  kind: ComponentKind;
  pid: number;
  /** The command up to and including the subcommand (node [v8 flags] cli.js etcd). */
  program: string[];
  /** Everything after the subcommand. */
  flags: string[];
  /** The build it reports; undefined when it could not be asked. */
  version?: string;
  commit?: string;
  /** Why the version is unknown. */
  versionError?: string;
}

export interface PlaneSurvey {
  hostPid: number;
  components: RunningComponent[];
}

function childPids(parent: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after its last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out.sort((a, b) => a - b);
}

/** The component a command line runs, or undefined for any other child. */
export function componentOf(argv: string[]): { id: string; kind: ComponentKind; program: string[]; flags: string[] } | undefined {
  const at = argv.findIndex((a, i) => i > 0 && /(^|\/)cli\.js$/.test(argv[i - 1]!) && (a === 'etcd' || a === 'apiserver' || a === 'controllers'));
  if (at < 0) return undefined;
  const kind = argv[at] as ComponentKind;
  const flags = argv.slice(at + 1);
  const id = kind === 'etcd' ? (flagValue(flags, 'name') ?? 'default') : kind;
  return { id, kind, program: argv.slice(0, at + 1), flags };
}

/** The value of --name / --name=value / -name value in a flag list. */
export function flagValue(flags: string[], name: string): string | undefined {
  for (let i = 0; i < flags.length; i++) {
    const f = flags[i]!;
    const m = /^--?([^=]+)(?:=(.*))?$/.exec(f);
    if (!m || m[1] !== name) continue;
    return m[2] ?? flags[i + 1];
  }
  return undefined;
}

function httpsGet(url: string, tls: { ca?: Buffer; cert?: Buffer; key?: Buffer }, timeoutMs = 3000): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ...tls, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`${url}: HTTP ${res.statusCode}`))));
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: timed out`)));
    req.on('error', reject);
    req.end();
  });
}

async function memberBuild(c: RunningComponent, dataDir: string): Promise<void> {
  const url = (flagValue(c.flags, 'advertise-client-urls') ?? flagValue(c.flags, 'listen-client-urls') ?? '').split(',')[0]!;
  const env = readEtcdctlEnv(dataDir);
  const read = (f: string | undefined) => (f ? readFileSync(f) : undefined);
  const tls = { ca: read(env.ETCDCTL_CACERT), cert: read(env.ETCDCTL_CERT), key: read(env.ETCDCTL_KEY) };
  const metrics = url.startsWith('https:') ? await httpsGet(`${url}/metrics`, tls) : await (await fetch(`${url}/metrics`)).text();
  const m = /^pilothouse_build_info\{version="([^"]*)",commit="([^"]*)",tree_state="([^"]*)"/m.exec(metrics);
  if (!m) throw new Error('its /metrics has no pilothouse_build_info (a build from before builds were reported)');
  c.version = m[1];
  c.commit = `${m[2]!.slice(0, 7)}${m[3] === 'dirty' ? '-dirty' : ''}`;
}

async function apiServerBuild(c: RunningComponent, dataDir: string): Promise<void> {
  const rest = kubeconfigClient(join(dataDir, 'kubeconfig'), 'pilothouse-upgrade');
  try {
    const v = await rest.request<{ gitVersion: string; gitCommit: string; gitTreeState: string }>('GET', '/version', { signal: AbortSignal.timeout(3000) });
    const m = /-pilothouse\.(.+)$/.exec(v.gitVersion);
    c.version = m ? m[1] : v.gitVersion;
    c.commit = `${v.gitCommit.slice(0, 7)}${v.gitTreeState === 'dirty' ? '-dirty' : ''}`;
  } finally {
    rest.close();
  }
}

function controllersBuild(c: RunningComponent, dataDir: string): void {
  const log = readFileSync(join(dataDir, 'logs', 'controllers.log'), 'utf8');
  // The last start's line: "controllers: running …; nodes … (pilothouse 0.1.0 (commit 1a2b3c4, built …))".
  const lines = [...log.matchAll(/controllers: running .*\(pilothouse (\S+) \(commit (\S+), built [^)]*\)\)$/gm)];
  const last = lines[lines.length - 1];
  if (!last) throw new Error('its log names no build (a build from before builds were reported)');
  c.version = last[1];
  c.commit = last[2];
}

/** The running plane under dataDir; throws when no live `up` hosts it. */
export async function surveyPlane(dataDir: string): Promise<PlaneSurvey> {
  const hostPid = livePlaneHost(dataDir);
  if (hostPid === undefined) throw new Error(`no control plane runs under ${dataDir} (no live process in ${join(dataDir, 'controlplane.pid')}): start it with pilothouse up --data-dir ${dataDir}`);
  const components: RunningComponent[] = [];
  for (const pid of childPids(hostPid)) {
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
    } catch {
      continue;
    }
    const c = componentOf(argv);
    if (c) components.push({ ...c, pid });
  }
  const order = (c: RunningComponent) => (c.kind === 'etcd' ? 0 : c.kind === 'apiserver' ? 1 : 2);
  components.sort((a, b) => order(a) - order(b) || a.id.localeCompare(b.id, undefined, { numeric: true }));
  await Promise.all(
    components.map(async (c) => {
      try {
        if (c.kind === 'etcd') await memberBuild(c, dataDir);
        else if (c.kind === 'apiserver') await apiServerBuild(c, dataDir);
        else controllersBuild(c, dataDir);
      } catch (err) {
        c.versionError = (err as Error).message;
      }
    }),
  );
  return { hostPid, components };
}

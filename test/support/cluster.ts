// Test clusters: three members of EITHER Debian's etcd 3.4 or Pilothouse
// (`node out/main/cli.js etcd`), started with the same etcd flags by the same
// LocalCluster code `pilothouse up` uses. Each test file picks its own port
// base (see PORTS below), so files never collide; every process is tracked
// and SIGKILLed by reapClusters() in afterAll, also when a test failed.

import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LocalCluster, type LocalClusterOptions } from '../../main/controlplane/localCluster';
import type { Program } from '../../main/controlplane/program';
import { endpointStatus, type EndpointStatus } from './etcdctl';
import { eventually } from './waitFor';

export type Impl = 'etcd' | 'pilothouse';

export const ETCD_BINARY = '/usr/bin/etcd';
const BUILT_OUT = resolve(import.meta.dirname, '../../out');

/**
 * The built program the tests run: a private snapshot of out/ for this
 * test file, so a rebuild of the shared out/ while tests run (electron-vite
 * empties it first) cannot pull files from under running processes. It lives
 * under test-results/ (inside the repo, so resources/ and node_modules are
 * found as from out/) and is removed when the test process exits.
 */
function snapshotOut(): string {
  const built = join(BUILT_OUT, 'main', 'cli.js');
  if (!existsSync(built)) return built; // the callers say "run npm run build first"
  const base = resolve(import.meta.dirname, '../../test-results/out-snapshots');
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, `${process.pid}-`));
  cpSync(BUILT_OUT, join(dir, 'out'), { recursive: true });
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'out', 'main', 'cli.js');
}

export const CLI_JS = snapshotOut();

/**
 * Which implementation the suite tests: PILOTHOUSE_TEST_IMPL=etcd runs every
 * test against Debian's etcd (that is how the expectations were validated).
 */
export const TARGET: Impl = process.env.PILOTHOUSE_TEST_IMPL === 'etcd' ? 'etcd' : 'pilothouse';

/**
 * Port bases per test file; a cluster uses base..base+5, a file at most
 * base..base+99. Below Linux's ephemeral range (32768+), so an outgoing
 * connection can never hold a port a member is about to listen on.
 */
export const PORTS = {
  cluster: 24000,
  kvConformance: 24100,
  errors: 24200,
  failover: 24300,
  crash: 24400,
  quorumLoss: 24500,
  up: 24600,
  tls: 25000,
} as const;
// Other files keep their base beside their tests: membership 25100,
// autoCompaction 25300, lease 24800, watch 24700, maintenance 24900,
// watchChaos 26100. The benchmarks (bench/etcd/*.mjs) use 27000–27599, so a
// bench run never collides with a test run.

export function programFor(impl: Impl): Program {
  if (impl === 'etcd') return { command: ETCD_BINARY, args: [] };
  if (!existsSync(CLI_JS)) throw new Error(`${CLI_JS} missing: run npm run build first`);
  return { command: process.execPath, args: [CLI_JS, 'etcd'], env: { ELECTRON_RUN_AS_NODE: '1' } };
}

const live: { cluster: LocalCluster; dir: string }[] = [];

export interface TestCluster {
  impl: Impl;
  cluster: LocalCluster;
  dir: string;
  endpoints: string[];
}

/** readyTimeoutMs 0: return as soon as the processes are spawned. `more`: further LocalCluster options (tls, extraFlags). */
export async function startTestCluster(
  impl: Impl,
  portBase: number,
  readyTimeoutMs = 20_000,
  more: Pick<LocalClusterOptions, 'tls' | 'extraFlags'> = {},
): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), `pilothouse-it-${impl}-`));
  const cluster = new LocalCluster({ dataDir: dir, portBase, program: programFor(impl), clusterToken: `it-${portBase}`, ...more });
  live.push({ cluster, dir });
  await cluster.start();
  if (readyTimeoutMs === 0) return { impl, cluster, dir, endpoints: cluster.endpoints };
  const ready = await cluster.waitReady(readyTimeoutMs);
  if (!ready.ok) {
    const probes = [...ready.lastErrors].map(([e, m]) => `${e} ${m}`).join('; ');
    throw new Error(`${impl} cluster on ${portBase} not ready: ${probes}\n${memberLogTails(cluster)}`);
  }
  return { impl, cluster, dir, endpoints: cluster.endpoints };
}

/** The last lines of each member's log and its exit state, for failure messages. */
export function memberLogTails(cluster: LocalCluster, lines = 15): string {
  return cluster.layout
    .map((m) => {
      const proc = cluster.member(m.name);
      const log = existsSync(m.logFile) ? readFileSync(m.logFile, 'utf8').split('\n').slice(-lines).join('\n') : '(no log)';
      return `--- ${m.name} (${proc.running ? `running, pid ${proc.pid}` : 'exited'}) ${m.logFile}\n${log}`;
    })
    .join('\n');
}

/** SIGKILL every member started by this file and delete the data dirs. */
export async function reapClusters(): Promise<void> {
  for (const { cluster } of live) cluster.killAll();
  await Promise.all(live.flatMap(({ cluster }) => [...cluster.members.values()].map((m) => m.waitExit())));
  for (const { dir } of live.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** The leader once exactly one leader is known by all reachable endpoints (`endpoint status`). */
export async function waitForLeader(endpoints: string[], timeoutMs: number): Promise<EndpointStatus> {
  let last: EndpointStatus[] = [];
  return eventually(
    'a single leader',
    async () => {
      last = await endpointStatus(endpoints);
      const leaders = new Set(last.map((s) => s.leader));
      const leaderRow = last.find((s) => s.memberId === s.leader);
      return last.length > 0 && leaders.size === 1 && leaderRow;
    },
    { timeoutMs, intervalMs: 100, detail: () => JSON.stringify(last) },
  );
}

export function memberNameForEndpoint(tc: TestCluster, endpoint: string): string {
  const m = tc.cluster.layout.find((l) => l.endpoint === endpoint);
  if (!m) throw new Error(`unknown endpoint ${endpoint}`);
  return m.name;
}

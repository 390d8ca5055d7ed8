// `pilothouse controllers`: flags named as kube-scheduler's,
// kube-controller-manager's and the kubelet's (Go durations: 15s, 500ms,
// 1m30s), then the component groups of main/controllers/index.ts until
// SIGINT/SIGTERM. With --data-dir DIR (a `pilothouse up` cluster directory)
// each component gets its own client certificate and kubeconfig
// (DIR/scheduler.conf, DIR/controller-manager.conf, DIR/kubelet-<node>.conf);
// otherwise every component uses --kubeconfig.

import { setMaxListeners } from 'node:events';
import { join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { KubeConfig } from '@kubernetes/client-node';
import { DEFAULT_CONTROLLER_OPTIONS, type ControllerOptions } from '../client/kube/context';
import { LEADER_ELECTION_DEFAULTS } from '../client/kube/leaderElection';
import { clientsFromFile, type KubeClients } from '../client/kube/rest';
import { waitForApiServer } from '../client/kube/waitForApiServer';
import { COMPONENT_GROUPS, runGroup, type ComponentGroup, type ProgramDeps } from '../controllers/index';
import { parseGoDurationStrict } from '../common/goDuration';
import { clusterPkiPaths } from '../common/pki/clusterPki';
import { versionLine } from '../common/version';
import { ensureComponentPki } from '../common/pki/componentPki';
import { kubePkiPaths } from '../common/pki/kubePki';

/** Go's time.ParseDuration, to milliseconds; commander's error on a malformed value. */
export function parseGoDuration(text: string): number {
  const ms = parseGoDurationStrict(text);
  if (typeof ms === 'string') throw new InvalidArgumentError(ms);
  return ms;
}

function parseBool(v: string | undefined): boolean {
  if (v === undefined || v === 'true') return true;
  if (v === 'false') return false;
  throw new InvalidArgumentError(`strconv.ParseBool: parsing "${v}": invalid syntax`);
}

function parseCount(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) > 1000) throw new InvalidArgumentError('must be an integer in 0..1000');
  return Number(v);
}

export interface ControllersFlags {
  kubeconfig?: string;
  dataDir?: string;
  nodes: number;
  nodeNamePrefix: string;
  leaderElect: boolean;
  leaderElectLeaseDuration: number;
  leaderElectRenewDeadline: number;
  leaderElectRetryPeriod: number;
  leaderElectResourceNamespace: string;
  nodeMonitorPeriod: number;
  nodeMonitorGracePeriod: number;
  podEvictionTimeout: number;
  podStartDelay: number;
  podStartJitter: number;
  nodeStatusUpdateFrequency: number;
  nodeLeaseRenewInterval: number;
  concurrentSyncs: number;
  components: string;
  useServiceAccountCredentials?: boolean;
}

export function registerControllersCommand(program: Command, setExitCode: (code: number) => void): void {
  const ms = (def: number) => [parseGoDuration, def] as const;
  program
    .command('controllers')
    .description('scheduler, controller manager and simulated kubelets against an API server (leader-elected through kube-system Leases)')
    .option('--kubeconfig <file>', 'kubeconfig of the API server (default: DIR/kubeconfig with --data-dir)')
    .option('--data-dir <dir>', 'a `pilothouse up` cluster directory: issue and use per-component identities (DIR/scheduler.conf, DIR/controller-manager.conf, DIR/kubelet-<node>.conf)')
    .option('--nodes <n>', 'simulated nodes', parseCount, DEFAULT_CONTROLLER_OPTIONS.nodes)
    .option('--node-name-prefix <prefix>', 'simulated node names are <prefix>1..<prefix>N', DEFAULT_CONTROLLER_OPTIONS.nodeNamePrefix)
    .option('--leader-elect [bool]', 'run elected components only while holding their Lease', parseBool, true)
    .option('--leader-elect-lease-duration <d>', 'how long a standby waits after the last observed renewal', ...ms(LEADER_ELECTION_DEFAULTS.leaseDurationMs))
    .option('--leader-elect-renew-deadline <d>', 'how long the leader retries renewing before giving up', ...ms(LEADER_ELECTION_DEFAULTS.renewDeadlineMs))
    .option('--leader-elect-retry-period <d>', 'wait between attempts to acquire or renew', ...ms(LEADER_ELECTION_DEFAULTS.retryPeriodMs))
    .option('--leader-elect-resource-namespace <ns>', 'namespace of the leader election Leases', 'kube-system')
    .option('--node-monitor-period <d>', 'node lifecycle check interval', ...ms(DEFAULT_CONTROLLER_OPTIONS.nodeMonitorPeriodMs))
    .option('--node-monitor-grace-period <d>', 'no heartbeat for this long → Ready=Unknown', ...ms(DEFAULT_CONTROLLER_OPTIONS.nodeMonitorGracePeriodMs))
    .option('--pod-eviction-timeout <d>', 'wait after the unreachable taint before evicting pods that do not tolerate it', ...ms(DEFAULT_CONTROLLER_OPTIONS.podEvictionTimeoutMs))
    .option('--pod-start-delay <d>', 'simulated kubelet: delay of each pod start step', ...ms(DEFAULT_CONTROLLER_OPTIONS.podStartDelayMs))
    .option('--pod-start-jitter <d>', 'simulated kubelet: uniform jitter added to each delay', ...ms(DEFAULT_CONTROLLER_OPTIONS.podStartJitterMs))
    .option('--node-status-update-frequency <d>', 'simulated kubelet: NodeStatus refresh', ...ms(DEFAULT_CONTROLLER_OPTIONS.nodeStatusUpdateFrequencyMs))
    .option('--node-lease-renew-interval <d>', 'simulated kubelet: node Lease renewal', ...ms(DEFAULT_CONTROLLER_OPTIONS.nodeLeaseRenewIntervalMs))
    .option('--concurrent-syncs <n>', 'workers per controller', parseCount, DEFAULT_CONTROLLER_OPTIONS.concurrentSyncs)
    .option('--use-service-account-credentials [bool]', 'each controller of the controller manager as its own kube-system service account (default: on with --data-dir, like kubeadm)', parseBool)
    .option('--components <list>', 'which groups to run: kube-scheduler,kube-controller-manager,kubelet', COMPONENT_GROUPS.map((g) => g.name).join(','))
    .action(async (flags: ControllersFlags) => setExitCode(await runControllersCommand(flags)));
}

export function controllerOptions(f: ControllersFlags): ControllerOptions {
  return {
    ...DEFAULT_CONTROLLER_OPTIONS,
    nodes: f.nodes,
    nodeNamePrefix: f.nodeNamePrefix,
    nodeMonitorPeriodMs: f.nodeMonitorPeriod,
    nodeMonitorGracePeriodMs: f.nodeMonitorGracePeriod,
    podEvictionTimeoutMs: f.podEvictionTimeout,
    podStartDelayMs: f.podStartDelay,
    podStartJitterMs: f.podStartJitter,
    nodeStatusUpdateFrequencyMs: f.nodeStatusUpdateFrequency,
    nodeLeaseRenewIntervalMs: f.nodeLeaseRenewInterval,
    concurrentSyncs: f.concurrentSyncs,
    useServiceAccountCredentials: f.useServiceAccountCredentials ?? f.dataDir !== undefined,
  };
}

/** Where each identity's kubeconfig is: per component with --data-dir, else --kubeconfig for all. */
export async function kubeconfigPaths(f: ControllersFlags, nodeNames: string[]): Promise<{ admin: string; scheduler: string; controllerManager: string; kubelet(node: string): string }> {
  const admin = f.kubeconfig ?? (f.dataDir ? join(f.dataDir, 'kubeconfig') : undefined);
  if (!admin) throw new InvalidArgumentError('--kubeconfig or --data-dir is required');
  if (!f.dataDir) return { admin, scheduler: admin, controllerManager: admin, kubelet: () => admin };
  const kc = new KubeConfig();
  kc.loadFromFile(admin);
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new InvalidArgumentError(`${admin}: no current cluster`);
  const kube = kubePkiPaths(clusterPkiPaths(join(f.dataDir, 'pki'), []));
  const ids = await ensureComponentPki(kube, f.dataDir, server, nodeNames);
  return {
    admin,
    scheduler: ids.scheduler.kubeconfig,
    controllerManager: ids.controllerManager.kubeconfig,
    kubelet: (node) => ids.kubelets[node]?.kubeconfig ?? admin,
  };
}

/** kube-controller-manager waits up to 10 s for its API server's health, then goes on. */
const API_SERVER_WAIT_MS = 10_000;

async function waitUntilApiServerReady(kubeconfig: string, signal: AbortSignal, log: (component: string, message: string) => void): Promise<void> {
  const { rest } = await clientsFromFile(kubeconfig, 'pilothouse-controllers');
  try {
    if (!(await waitForApiServer(rest, { timeoutMs: API_SERVER_WAIT_MS, signal })) && !signal.aborted) {
      log('controllers', `the API server is not ready after ${API_SERVER_WAIT_MS} ms; starting anyway`);
    }
  } finally {
    rest.close();
  }
}

export async function runControllersCommand(f: ControllersFlags): Promise<number> {
  const log = (component: string, message: string): void => {
    process.stderr.write(`${new Date().toISOString()} ${component}: ${message}\n`);
  };
  const wanted = new Set(f.components.split(',').map((s) => s.trim()).filter(Boolean));
  const unknown = [...wanted].filter((w) => !COMPONENT_GROUPS.some((g) => g.name === w));
  if (unknown.length) {
    log('controllers', `unknown components: ${unknown.join(', ')}`);
    return 2;
  }
  if (f.leaderElectLeaseDuration <= f.leaderElectRenewDeadline || f.leaderElectRenewDeadline <= f.leaderElectRetryPeriod * 1.2) {
    log('controllers', 'leader election: need lease-duration > renew-deadline > 1.2 × retry-period');
    return 2;
  }
  const options = controllerOptions(f);
  const nodeNames = Array.from({ length: options.nodes }, (_, i) => `${options.nodeNamePrefix}${i + 1}`);
  const paths = await kubeconfigPaths(f, nodeNames);
  const nodeClientCache = new Map<string, Promise<KubeClients>>();
  const deps: ProgramDeps = {
    clients: (identity) =>
      clientsFromFile(identity === 'scheduler' ? paths.scheduler : identity === 'controller-manager' ? paths.controllerManager : paths.admin, `pilothouse-${identity}`),
    nodeClients: (node) => {
      let c = nodeClientCache.get(node);
      if (!c) nodeClientCache.set(node, (c = clientsFromFile(paths.kubelet(node), `kubelet/${node}`)));
      return c;
    },
    options,
    leaderElection: {
      enabled: f.leaderElect,
      leaseDurationMs: f.leaderElectLeaseDuration,
      renewDeadlineMs: f.leaderElectRenewDeadline,
      retryPeriodMs: f.leaderElectRetryPeriod,
      namespace: f.leaderElectResourceNamespace,
    },
    log,
  };
  const ctl = new AbortController();
  // The kubelets, the scheduler and both leader elections listen for the stop: past Node's default 10.
  setMaxListeners(1000, ctl.signal);
  const stop = (): void => ctl.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const groups: ComponentGroup[] = COMPONENT_GROUPS.filter((g) => wanted.has(g.name));
  await waitUntilApiServerReady(paths.admin, ctl.signal, log);
  if (ctl.signal.aborted) return 0;
  log('controllers', `running ${groups.map((g) => g.name).join(', ')}; nodes ${nodeNames.join(', ')} (pilothouse ${versionLine()})`);
  // The process lives until a signal, even while every component is only waiting on a socket.
  const keepAlive = setInterval(() => {}, 1 << 30);
  ctl.signal.addEventListener('abort', () => clearInterval(keepAlive), { once: true });
  const running = groups.map((g) => runGroup(g, deps, ctl.signal));
  // One group failing to start (say, an unreadable kubeconfig) stops the others: exit rather than run half.
  for (const r of running) r.done.catch(stop);
  const results = await Promise.allSettled(running.map((r) => r.done));
  clearInterval(keepAlive);
  for (const c of nodeClientCache.values()) void c.then((k) => k.rest.close(), () => {});
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    log('controllers', `failed: ${(failed.reason as Error)?.stack ?? String(failed.reason)}`);
    return 1;
  }
  return 0;
}

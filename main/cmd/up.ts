// `pilothouse up --data-dir DIR [--members 3] [--port-base 2379]`: the local
// control plane in the foreground, run through the control plane's orchestrator (one
// implementation of start-up, readiness and supervision for both):
//   - the members (mutual TLS, PKI made once under DIR/pki, DIR/etcdctl.env),
//     ready when every member answers a linearizable read;
//   - the API server (`pilothouse apiserver`, HTTPS on 127.0.0.1 at
//     port-base + 2·members, PKI under DIR/pki/kube, DIR/kubeconfig with an
//     admin identity), ready at /readyz — unless --no-apiserver;
//   - the controllers (`pilothouse controllers --data-dir DIR`: scheduler,
//     controller manager, simulated kubelets) — unless --no-controllers —
//     usable once they hold their Leases, the aggregated roles have their
//     rules and every node is Ready.
// `pilothouse: control plane ready` is printed once what was started is
// usable. A component that exits on its own is restarted with backoff and a
// limit (restartPolicy.ts), each exit and restart said on stderr. SIGHUP
// restarts the components in turn (rollingRestart.ts; DIR/controlplane.pid
// names the process to send it to); Ctrl-C / SIGTERM stops them all and
// exits 0. Each component's output goes to DIR/logs/<name>.log. DIR/control.sock
// lets `pilothouse upgrade apply` replace a component's program or flags
// (controlSocket.ts); DIR/components.json keeps what it was given.

import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { StartupStep } from '../../preload/contract';
import { LogStore } from '../controlplane/logStore';
import { claimPidFile } from '../controlplane/pidFile';
import type { CrashDecision } from '../controlplane/restartPolicy';
import { DEFAULT_RESTART } from '../controlplane/restartPolicy';
import type { LifecycleEvent } from '../controlplane/supervisedProcess';
import { Supervisor } from '../controlplane/supervisor';
import { serveControlSocket } from '../controlplane/controlSocket';
import { CONTROLLER_NODES } from '../controlplane/programs';
import { intOption } from '../common/intOption';
import { RENEW_WITHIN_DAYS } from '../common/pki/renewal';

export interface UpOptions {
  dataDir: string;
  members: number;
  portBase: number;
  readyTimeoutMs?: number;
  /** Simulated nodes of the controllers process (its --nodes); its default when absent. */
  nodes?: number;
  /** Run the API server (default true). */
  apiserver?: boolean;
  /** Run the controllers once the API server is ready (default true; needs the API server). */
  controllers?: boolean;
}

const say = (line: string) => process.stdout.write(`pilothouse: ${line}\n`);
const warn = (line: string) => process.stderr.write(`pilothouse: ${line}\n`);

function exitText(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `code ${code}`;
}

/** The stderr line for a component's exit that nobody asked for; undefined for an asked-for stop. */
export function exitLine(id: string, code: number | null, signal: NodeJS.Signals | null, next: CrashDecision | undefined, logFile: string): string | undefined {
  if (next === undefined) return undefined;
  if (next.action === 'restart') return `${id} exited (${exitText(code, signal)}); restarting in ${next.delayMs} ms (attempt ${next.attempt})`;
  return `${id} exited (${exitText(code, signal)}); it exited ${next.crashes} times within ${DEFAULT_RESTART.windowMs / 1000} s, giving up on it; see ${logFile}`;
}

/** Runs the plane until SIGTERM/SIGINT; cliPath is the `pilothouse` entry script the children run. Resolves with the exit code. */
export async function runUpCommand(opts: UpOptions, cliPath: string): Promise<number> {
  const dataDir = resolve(opts.dataDir);
  const withApi = opts.apiserver !== false;
  const withControllers = withApi && opts.controllers !== false;
  const nodes = opts.nodes ?? CONTROLLER_NODES;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let release: () => void;
  try {
    release = claimPidFile(dataDir);
  } catch (err) {
    warn((err as Error).message);
    return 1;
  }
  const logs = new LogStore(undefined);
  const spawned = new Set<string>();
  const logFileOf = (id: string) => (id === 'apiserver' ? sup.apiLayout!.logFile : id === 'controllers' ? sup.controllersLayout.logFile : sup.memberLayout(id).logFile);
  const onLifecycle = (e: LifecycleEvent): void => {
    if (e.type === 'spawned') {
      if (spawned.has(e.id)) warn(`${e.id} restarted (pid ${e.pid})`);
      spawned.add(e.id);
      return;
    }
    const line = exitLine(e.id, e.code, e.signal, e.next, logFileOf(e.id));
    if (line) warn(line);
  };
  const onStep = (s: StartupStep): void => {
    const api = sup.apiLayout;
    if (s.state === 'failed') {
      warn(`${s.label}: failed (${s.detail}); stopping`);
    } else if (s.id === 'pki' && s.state === 'done' && sup.renewedAtStart.length > 0) {
      say(`renewed certificates expiring within ${RENEW_WITHIN_DAYS} days: ${sup.renewedAtStart.join(', ')}`);
    } else if (s.id === 'members' && s.state === 'done') {
      const names = sup.layout.map((m) => `${m.name} pid ${sup.process(m.name).pid}`).join(', ');
      say(`starting ${sup.layout.length} members (${names}); logs in ${join(dataDir, 'logs')}`);
    } else if (s.id === 'quorum' && s.state === 'done') {
      say(`cluster ready (${sup.layout.length} members) endpoints ${sup.layout.map((m) => m.clientUrl).join(',')}; run: source ${sup.envFile} && etcdctl member list -w table`);
    } else if (s.id === 'apiserver' && s.state === 'running') {
      say(`starting the API server (apiserver pid ${sup.apiserver!.pid}) on ${api!.url}; log ${api!.logFile}`);
    } else if (s.id === 'apiserver' && s.state === 'done') {
      say(`API server ready at ${api!.url} (pid ${sup.apiserver!.pid}); run: KUBECONFIG=${api!.kubeconfig} kubectl get ns`);
    } else if (s.id === 'controllers' && s.state === 'running') {
      say(
        `controllers running (controllers pid ${sup.controllers!.pid}): scheduler, controller manager and ${nodes} simulated nodes; ` +
          `log ${sup.controllersLayout.logFile}; run: KUBECONFIG=${api!.kubeconfig} kubectl get nodes`,
      );
    }
  };
  const sup = new Supervisor({
    dataDir,
    portBase: opts.portBase,
    members: opts.members,
    cliPath,
    logs,
    apiserver: withApi,
    controllers: withControllers,
    nodes: opts.nodes,
    onLifecycle,
    onStep,
  });

  let stopSignal: NodeJS.Signals | undefined;
  const signalled = new Promise<NodeJS.Signals>((res) => {
    const on = (s: NodeJS.Signals) => {
      stopSignal ??= s;
      res(s);
    };
    process.once('SIGTERM', on);
    process.once('SIGINT', on);
  });
  let ready = false;
  const onHup = () => {
    if (stopSignal) return;
    if (!ready) return warn('SIGHUP before the control plane is ready: ignored');
    say('SIGHUP: restarting the components in turn');
    void sup.restartInTurn((line) => (line === 'components restarted' ? say(line) : warn(line)));
  };
  let control: { close(): Promise<void> } | undefined;
  const stop = async (): Promise<void> => {
    process.off('SIGHUP', onHup);
    await control?.close();
    await sup.dispose();
    await logs.dispose();
    release();
  };

  // From the start: SIGHUP's default action would end up and orphan the components.
  process.on('SIGHUP', onHup);
  // Tools that replace components (an upgrade) ask through DIR/control.sock.
  try {
    control = await serveControlSocket(sup, dataDir);
  } catch (err) {
    warn(`no control socket (${(err as Error).message}): \`pilothouse upgrade apply\` cannot reach this plane`);
  }
  const t0 = Date.now();
  const started = sup.start(opts.readyTimeoutMs ?? 60_000);
  const first = await Promise.race([started, signalled.then(() => 'signal' as const)]);
  if (first === 'signal' || stopSignal) {
    await stop();
    return 0;
  }
  if (!first) {
    await stop();
    return 1;
  }
  const what = [`${sup.layout.length} members`, ...(withApi ? ['API server'] : []), ...(withControllers ? [`controllers, ${nodes} Ready nodes`] : [])].join(', ');
  say(`control plane ready (${what}) in ${Date.now() - t0} ms`);
  ready = true;

  const signal = await signalled;
  say(`${signal}: stopping members`);
  await stop();
  say('stopped');
  return 0;
}

/** Adds `pilothouse up` to the program; cliPath is the `pilothouse` entry script the children run. */
export function registerUpCommand(program: Command, setExitCode: (code: number) => void, cliPath: string): void {
  program
    .command('up')
    .description(
      'run a local control plane until Ctrl-C: members (clients on port-base+0,+2,+4, peers on +1,+3,+5), the API server (https on port-base+2n; DIR/kubeconfig) ' +
        'and the controllers (scheduler, controller manager, 3 simulated nodes); components that exit are restarted, SIGHUP restarts them in turn',
    )
    .requiredOption('--data-dir <dir>', 'cluster directory: m1/, m2/, m3/, logs/, etcdctl.env, kubeconfig, controlplane.pid')
    .option('--members <n>', 'number of members', intOption('--members', 1, 49), 3)
    .option('--port-base <port>', 'first port; members use [port-base, port-base+2n-1], the API server port-base+2n', intOption('--port-base', 1024, 65000), 2379)
    .option('--nodes <n>', 'simulated nodes the controllers run', intOption('--nodes', 0, 5000), 3)
    .option('--no-apiserver', 'start the members only (no API server, no controllers)')
    .option('--no-controllers', 'start the members and the API server only (no scheduler, controller manager or nodes)')
    .action(async (opts: { dataDir: string; members: number; portBase: number; nodes: number; apiserver: boolean; controllers: boolean }) => {
      setExitCode(await runUpCommand(opts, cliPath));
    });
}

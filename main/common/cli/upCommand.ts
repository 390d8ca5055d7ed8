// `pilothouse up --data-dir DIR [--members 3] [--port-base 2379]`: a local
// cluster of members running this same program, ready when every member
// answers a linearizable read; Ctrl-C / SIGTERM stops them all and exits 0.
// Clients and peers speak https with client certificates: the PKI is made
// once under DIR/pki, and DIR/etcdctl.env points etcdctl at it.
// Once the members are ready the API server starts too (`pilothouse
// apiserver`, HTTPS on 127.0.0.1 at port-base + 2·members, PKI under
// DIR/pki/kube, log DIR/logs/apiserver.log) and DIR/kubeconfig names it with
// an admin identity, so `KUBECONFIG=DIR/kubeconfig kubectl get ns` works.
// Once the API server is ready the controllers follow (`pilothouse controllers
// --data-dir DIR`: scheduler, controller manager and simulated kubelets, each
// with its own identity issued under DIR; log DIR/logs/controllers.log).

import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { LocalCluster } from '../../console/localCluster';
import { MemberProcess, type Program } from '../../console/memberProcess';
import { DEFAULT_CONTROLLER_OPTIONS } from '../../controllers/client/context';
import { apiServerFlags, apiServerLayout, apiServerProgram, waitApiServerReady, writeKubeconfig } from './apiserverLayout';
import { intOption } from './intOption';

export interface UpOptions {
  dataDir: string;
  members: number;
  portBase: number;
  readyTimeoutMs?: number;
  /** Simulated nodes of the controllers process (its --nodes); its default when absent. */
  nodes?: number;
}

/**
 * The command that runs a member of this program. Under Electron,
 * process.execPath is the Electron binary, which behaves as Node with
 * ELECTRON_RUN_AS_NODE=1; under Node the variable is ignored.
 */
export function selfProgram(cliPath: string): Program {
  return { command: process.execPath, args: [cliPath, 'etcd'], env: { ELECTRON_RUN_AS_NODE: '1' } };
}

/** `pilothouse controllers` run by this same program. */
export function controllersProgram(cliPath: string): Program {
  return { command: process.execPath, args: [cliPath, 'controllers'], env: { ELECTRON_RUN_AS_NODE: '1' } };
}

/** Simulated nodes the controllers process runs by default (its --nodes default). */
export const CONTROLLER_NODES = DEFAULT_CONTROLLER_OPTIONS.nodes;

/** Flags and log file of the controllers process of the cluster under dataDir. */
export function controllersLayout(dataDir: string, nodes?: number): { args: string[]; logFile: string } {
  return { args: ['--data-dir', dataDir, ...(nodes !== undefined ? ['--nodes', String(nodes)] : [])], logFile: join(dataDir, 'logs', 'controllers.log') };
}

/**
 * program runs a member; apiServer (when given) runs `pilothouse apiserver`
 * once the members are ready, and controllers (when given, with apiServer)
 * `pilothouse controllers` once the API server is ready.
 */
export async function runUpCommand(opts: UpOptions, program: Program, apiServer?: Program, controllers?: Program): Promise<number> {
  const cluster = new LocalCluster({
    dataDir: resolve(opts.dataDir),
    members: opts.members,
    portBase: opts.portBase,
    program,
    tls: true,
  });
  let stopping: Promise<void> | undefined;
  let apiProcess: MemberProcess | undefined;
  let ctlProcess: MemberProcess | undefined;
  // The API server's clients first, then the API server, then the members.
  const stop = (): Promise<void> => (stopping ??= (async () => {
    await ctlProcess?.stop();
    await apiProcess?.stop();
    await cluster.stop();
  })());
  const signalled = new Promise<NodeJS.Signals>((res) => {
    process.once('SIGTERM', () => res('SIGTERM'));
    process.once('SIGINT', () => res('SIGINT'));
  });

  const renewed = await cluster.start();
  if (renewed.length > 0) process.stdout.write(`pilothouse: renewed certificates expiring within 30 days: ${renewed.join(', ')}\n`);
  const names = cluster.layout.map((m) => `${m.name} pid ${cluster.member(m.name).pid}`).join(', ');
  process.stdout.write(`pilothouse: starting ${cluster.layout.length} members (${names}); logs in ${resolve(opts.dataDir, 'logs')}\n`);

  const ready = cluster.waitReady(opts.readyTimeoutMs ?? 60_000);
  const first = await Promise.race([ready.then((r) => ({ kind: 'ready' as const, r })), signalled.then((s) => ({ kind: 'signal' as const, s }))]);
  if (first.kind === 'signal') {
    await stop();
    return 0;
  }
  if (!first.r.ok) {
    const why = [...first.r.lastErrors].map(([ep, e]) => `${ep}: ${e}`).join('; ');
    process.stderr.write(`pilothouse: cluster not ready in time (${why}); stopping\n`);
    await stop();
    return 1;
  }
  process.stdout.write(
    `pilothouse: cluster ready (${cluster.layout.length} members) endpoints ${cluster.layout.map((m) => m.clientUrl).join(',')}; ` +
      `run: source ${cluster.envFile} && etcdctl member list -w table\n`,
  );

  if (apiServer) {
    const layout = await apiServerLayout(resolve(opts.dataDir), opts.portBase, opts.members, cluster.pki!);
    apiProcess = new MemberProcess('apiserver', apiServer, apiServerFlags(layout, cluster.layout), layout.logFile);
    apiProcess.start();
    const proc = apiProcess;
    process.stdout.write(`pilothouse: starting the API server (apiserver pid ${proc.pid}) on ${layout.url}; log ${layout.logFile}\n`);
    const apiReady = await Promise.race([
      waitApiServerReady(layout, opts.readyTimeoutMs ?? 60_000, () => proc.running),
      signalled.then(() => ({ ok: false as const, why: 'signalled' })),
    ]);
    if (!apiReady.ok) {
      if (apiReady.why !== 'signalled') process.stderr.write(`pilothouse: API server not ready (${apiReady.why}); see ${layout.logFile}; stopping\n`);
      await stop();
      return apiReady.why === 'signalled' ? 0 : 1;
    }
    writeKubeconfig(layout);
    process.stdout.write(`pilothouse: API server ready at ${layout.url} (pid ${proc.pid}); run: KUBECONFIG=${layout.kubeconfig} kubectl get ns\n`);
    void proc.waitExit().then((code) => {
      if (!stopping) process.stderr.write(`pilothouse: API server exited (code ${code}); see ${layout.logFile}\n`);
    });
    if (controllers) {
      const ctl = controllersLayout(resolve(opts.dataDir), opts.nodes);
      const ctlProc = (ctlProcess = new MemberProcess('controllers', controllers, ctl.args, ctl.logFile));
      ctlProc.start();
      process.stdout.write(
        `pilothouse: controllers running (controllers pid ${ctlProc.pid}): scheduler, controller manager and ${opts.nodes ?? CONTROLLER_NODES} simulated nodes; ` +
          `log ${ctl.logFile}; run: KUBECONFIG=${layout.kubeconfig} kubectl get nodes\n`,
      );
      void ctlProc.waitExit().then((code) => {
        if (!stopping) process.stderr.write(`pilothouse: controllers exited (code ${code}); see ${ctl.logFile}\n`);
      });
    }
  }

  // Report members that die on their own; the cluster keeps running with the rest.
  for (const m of cluster.members.values()) {
    void m.waitExit().then((code) => {
      if (!stopping) process.stderr.write(`pilothouse: member ${m.name} exited (code ${code}); see its log\n`);
    });
  }
  const signal = await signalled;
  process.stdout.write(`pilothouse: ${signal}: stopping members\n`);
  await stop();
  process.stdout.write('pilothouse: stopped\n');
  return 0;
}

/** Adds `pilothouse up` to the program; cliPath is the `pilothouse` entry script the children run. */
export function registerUpCommand(program: Command, setExitCode: (code: number) => void, cliPath: string): void {
  program
    .command('up')
    .description('run a local cluster of members, the API server and the controllers (scheduler, controller manager, 3 simulated nodes) until Ctrl-C (clients on port-base+0,+2,+4, peers on +1,+3,+5, API server https on port-base+2n; DIR/kubeconfig)')
    .requiredOption('--data-dir <dir>', 'cluster directory: m1/, m2/, m3/, logs/, etcdctl.env')
    .option('--members <n>', 'number of members', intOption('--members', 1, 49), 3)
    .option('--port-base <port>', 'first port; members use [port-base, port-base+2n-1], the API server port-base+2n', intOption('--port-base', 1024, 65000), 2379)
    .option('--nodes <n>', 'simulated nodes the controllers run', intOption('--nodes', 0, 5000), 3)
    .option('--no-controllers', 'start the members and the API server only (no scheduler, controller manager or nodes)')
    .action(async (opts: { dataDir: string; members: number; portBase: number; nodes: number; controllers: boolean }) => {
      const { controllers, ...up } = opts;
      setExitCode(await runUpCommand(up, selfProgram(cliPath), apiServerProgram(cliPath), controllers ? controllersProgram(cliPath) : undefined));
    });
}

// `pilothouse web`: the console in a browser. Starts the console services
// (the embedded control plane under --data-dir), serves the built renderer and
// the bridge on 127.0.0.1, prints the tokened URL and writes it to
// DIR/console.url (0600: the token is the only key), opens it in a browser
// through the launcher page (launcherPage.ts: never the URL on a command
// line), and shuts down cleanly on Ctrl-C or SIGTERM.

import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { intOption } from '../common/intOption';
import type { EventSink } from '../../preload/contract';
import { createAttachedConsoleServices, createConsoleServices } from '../console/consoleServices';
import { ConsoleSessions, type SessionServices } from '../console/consoleSessions';
import type { AttachOptions } from '../console/attachedCluster';
import { writeContextFile } from '../console/kubeContexts';
import { hostPlaneSignals } from '../controlplane/pidFile';
import { BridgeSockets } from '../web/bridgeSockets';
import { launcherPageFile, writeLauncherPage, writePrivateFile } from '../web/launcherPage';
import { openBrowser } from '../web/openBrowser';
import { rendererDir } from '../common/rendererHost/staticFiles';
import { newToken } from '../web/token';
import { startWebHost } from '../web/webHost';

/** Default console port: near etcd's 2379/2380 in spirit, clear of common dev servers. */
export const DEFAULT_WEB_PORT = 7380;

export interface WebCommandOptions {
  dataDir: string;
  port: number;
  portBase: number;
  open: boolean;
  /** Attach to these etcd members instead of running the embedded plane. */
  etcdEndpoints?: string;
  etcdCacert?: string;
  etcdCert?: string;
  etcdKey?: string;
  /** Attach to the Kubernetes API server of this kubeconfig (its --context, or current-context). */
  kubeconfig?: string;
  context?: string;
  /** The attached API server's audit log, for the Admission log view. */
  auditLog?: string;
  writable?: boolean;
}

/** The attachment the flags ask for; undefined for the embedded plane. Throws on flags that do not go together. */
export function attachFromFlags(opts: WebCommandOptions, dataDir: string): AttachOptions | undefined {
  const etcdFlags = [opts.etcdCacert && '--etcd-cacert', opts.etcdCert && '--etcd-cert', opts.etcdKey && '--etcd-key'].filter(Boolean);
  if (!opts.etcdEndpoints && etcdFlags.length > 0) throw new Error(`${etcdFlags.join(', ')} without --etcd-endpoints`);
  if (!opts.kubeconfig && opts.context) throw new Error('--context without --kubeconfig');
  if (!opts.kubeconfig && opts.auditLog) throw new Error('--audit-log without --kubeconfig');
  if (!opts.etcdEndpoints && !opts.kubeconfig) {
    if (opts.writable) throw new Error('--writable applies to an attached cluster: give --etcd-endpoints and/or --kubeconfig');
    return undefined;
  }
  if (Boolean(opts.etcdCert) !== Boolean(opts.etcdKey)) throw new Error('--etcd-cert and --etcd-key go together');
  for (const [flag, file] of [['--etcd-cacert', opts.etcdCacert], ['--etcd-cert', opts.etcdCert], ['--etcd-key', opts.etcdKey], ['--kubeconfig', opts.kubeconfig]] as const) {
    if (file && !existsSync(file)) throw new Error(`${flag} ${file}: no such file`);
  }
  const endpoints = (opts.etcdEndpoints ?? '').split(',').map((e) => e.trim()).filter((e) => e !== '');
  const etcd = endpoints.length > 0 ? { endpoints, ...(opts.etcdCacert && { cacert: resolve(opts.etcdCacert) }), ...(opts.etcdCert && { cert: resolve(opts.etcdCert) }), ...(opts.etcdKey && { key: resolve(opts.etcdKey) }) } : undefined;
  const kube = opts.kubeconfig ? { kubeconfig: resolve(opts.kubeconfig), ...(opts.context && { context: opts.context }) } : undefined;
  const contextFile = opts.context ? writeContextFile(dataDir, opts.context) : undefined;
  const name = opts.context ?? (endpoints[0] ? `etcd ${endpoints[0]}` : 'kubeconfig');
  return { name, ...(etcd && { etcd }), ...(kube && { kube }), ...(opts.auditLog && { auditLog: resolve(opts.auditLog) }), writable: opts.writable === true, ...(contextFile && { contextFile }) };
}

export interface WebCommandDeps {
  cliPath: string;
  /** One cluster's services: the lab's (no attach) or an attachment's; the session creates them on each switch. */
  createServices: (opts: { dataDir: string; portBase: number; cliPath: string; runtime: 'web'; events: EventSink; attach?: AttachOptions; connection: { id: string; name: string } }) => SessionServices;
  rendererDir?: string;
  out?: (line: string) => void;
  /** Resolves when the command should stop (default: the first SIGINT or SIGTERM). */
  stopSignal?: Promise<string>;
}

export function consoleUrlFile(dataDir: string): string {
  return join(dataDir, 'console.url');
}

function firstSignal(): Promise<string> {
  return new Promise((resolve) => {
    const on = (sig: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      // A second Ctrl-C while shutting down means "now" — but not one that
      // arrives with the first: under `npm start` the terminal signals both
      // the launcher and us, and the launcher forwards its copy as well.
      const first = Date.now();
      process.on('SIGINT', () => {
        if (Date.now() - first > 2000) process.exit(130);
      });
      resolve(sig);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

export async function runWebCommand(opts: WebCommandOptions, deps: WebCommandDeps): Promise<number> {
  const out = deps.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const dataDir = resolve(opts.dataDir);
  let renderer: string;
  try {
    renderer = deps.rendererDir ?? rendererDir();
  } catch (err) {
    out(`pilothouse web: ${(err as Error).message}`);
    return 1;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let attach: AttachOptions | undefined;
  try {
    attach = attachFromFlags(opts, dataDir);
  } catch (err) {
    out(`pilothouse web: ${(err as Error).message}`);
    return 1;
  }
  const sockets = new BridgeSockets();
  // The lab claims DIR/controlplane.pid while it is shown; attached, the console hosts no plane under DIR (an embedded one may run there meanwhile).
  const services = new ConsoleSessions({
    dataDir,
    events: sockets,
    create: (t) => deps.createServices({ dataDir: t.dataDir, portBase: opts.portBase, cliPath: deps.cliPath, runtime: 'web', events: t.events, connection: t.connection, ...(t.attach && { attach: t.attach }) }),
    hostPlane: (plane) => hostPlaneSignals(dataDir, plane, (line) => out(`pilothouse web: ${line}`)),
    log: (line) => out(`pilothouse web: ${line}`),
    labPortBase: opts.portBase,
  });
  try {
    services.open(attach);
  } catch (err) {
    out(`pilothouse web: ${(err as Error).message}`);
    return 1;
  }
  const stop = deps.stopSignal ?? firstSignal();
  sockets.serve(services.handlers);

  const token = newToken();
  let host;
  try {
    host = await startWebHost({ sockets, token, port: opts.port, rendererDir: renderer });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    out(e.code === 'EADDRINUSE' ? `pilothouse web: port ${opts.port} on 127.0.0.1 is in use; pass --port 0 for any free port` : `pilothouse web: ${e.message}`);
    await services.dispose();
    return 1;
  }

  const urlFile = consoleUrlFile(dataDir);
  writePrivateFile(urlFile, `${host.url}\n`);
  out(`pilothouse web: console at ${host.url}`);
  out(`pilothouse web: (the URL is also in ${urlFile}; the token in it is the only key)`);
  if (opts.open && openBrowser(writeLauncherPage(dataDir, host.url))) out('pilothouse web: opening it in your browser');

  let stopping = false;
  const started = services.start().then(
    () => stopping || out(attach ? `pilothouse web: attached to ${attach.name}${attach.writable ? ' (writable)' : ' (read-only)'}` : `pilothouse web: control plane running under ${dataDir}`),
    (err: unknown) => out(`pilothouse web: the control plane did not start: ${(err as Error).message}`),
  );

  const sig = await stop;
  stopping = true;
  out(`pilothouse web: ${sig}: shutting down`);
  await host.close();
  await services.dispose();
  await started;
  // The token dies with the host; so do the files that hold it.
  rmSync(urlFile, { force: true });
  rmSync(launcherPageFile(dataDir), { force: true });
  out('pilothouse web: stopped');
  return 0;
}

/**
 * Adds `pilothouse web` to the program. `cliPath` is the `pilothouse` entry
 * script itself (cli.ts computes it: in the build this module sits in a shared
 * chunk, so its own import.meta.url is not the entry the members must run).
 */
export function registerWebCommand(program: Command, setExitCode: (code: number) => void, cliPath: string): void {
  program
    .command('web')
    .description('the console in a browser: serves it on 127.0.0.1 with an access token and runs the embedded control plane, or attaches to a real etcd cluster and/or Kubernetes API server (read-only unless --writable)')
    .option('--data-dir <dir>', 'cluster and console directory', join(homedir(), '.pilothouse'))
    .option('--port <port>', 'console port on 127.0.0.1 (0: any free port)', intOption('--port', 0, 65535), DEFAULT_WEB_PORT)
    .option('--port-base <port>', "the control plane's first port, as for `pilothouse up`", intOption('--port-base', 1024, 65535), 2379)
    .option('--no-open', 'do not open a browser')
    .option('--etcd-endpoints <urls>', 'attach to these etcd members (comma-separated client URLs, as etcdctl --endpoints) instead of running the embedded plane')
    .option('--etcd-cacert <file>', "the CA that signed the members' certificates (etcdctl --cacert)")
    .option('--etcd-cert <file>', 'client certificate for the members (etcdctl --cert)')
    .option('--etcd-key <file>', 'its key (etcdctl --key)')
    .option('--kubeconfig <file>', "attach to the Kubernetes API server of this kubeconfig's context")
    .option('--context <name>', 'the kubeconfig context to use (default: its current-context)')
    .option('--audit-log <file>', "the attached API server's audit log (JSON lines), shown in the Admission log: only Pilothouse's own API server serves request traces")
    .option('--writable', 'allow actions that change the attached cluster (defrag, move-leader, ...); read-only by default')
    .action(async (opts: WebCommandOptions) => {
      setExitCode(await runWebCommand(opts, { cliPath, createServices: (o) => (o.attach ? createAttachedConsoleServices({ ...o, attach: o.attach }) : createConsoleServices(o)) }));
    });
}

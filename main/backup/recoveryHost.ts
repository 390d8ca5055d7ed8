// The plane `pilothouse backup restore` drives from outside: the
// `pilothouse up --data-dir DIR` process that hosts it. Another process owns
// the components, so the CLI does not reach into them one by one; it uses
// what `up` already offers:
//   - stop: SIGTERM to the pid in DIR/controlplane.pid. `up` stops the
//     controllers, then the API server, then the members (SIGKILL after
//     10 s) and exits; the CLI waits for that.
//   - start: the same `up` command line again (read from /proc/<pid>/cmdline
//     and cwd before the stop), detached, its output appended to
//     DIR/logs/up.log; the restored plane is serving once that log says
//     "control plane ready" (or "cluster ready" for `up --no-apiserver`).
// With no live host the plane is started the same way, with the layout
// DIR/etcdctl.env names (port base, members). A plane hosted by the console
// (`pilothouse web`, the Electron app) is refused: restore it from the
// console, which runs the same recovery in-process.

import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MemberClient } from '../client/etcd/memberClient';
import type { ClientPem } from '../common/tlsChannel';
import { clusterLayout, pkiFor, type MemberLayout } from '../controlplane/localCluster';
import { livePlaneHost } from '../controlplane/pidFile';
import type { RecoveryPlane } from './recovery';
import { planeEndpoints } from './recoveryTarget';

export interface UpCommand {
  argv: string[];
  cwd: string;
}

const STOP_WAIT_MS = 30_000;

/** The command line of a live `pilothouse up` host of DIR; throws for a host of another kind. */
export function hostCommand(pid: number): UpCommand {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
  const cwd = readlinkSync(`/proc/${pid}/cwd`);
  if (!argv.includes('up')) {
    throw new Error(`the plane is hosted by pid ${pid} (${argv.slice(0, 3).join(' ')}), not by \`pilothouse up\`: restore it from the console (Walkthroughs → restore), or stop that host first`);
  }
  return { argv, cwd };
}

/** `up` for DIR with the layout DIR/etcdctl.env says (its port base and member count). */
export function defaultUpCommand(dataDir: string, cliPath: string): UpCommand {
  const ep = planeEndpoints(dataDir);
  if (ep === undefined) throw new Error(`${dataDir} holds no control plane (no etcdctl.env): nothing to restore into`);
  const portBase = Number(new URL(ep.urls[0]!).port);
  return { argv: [process.execPath, cliPath, 'up', '--data-dir', dataDir, '--port-base', String(portBase), '--members', String(ep.urls.length)], cwd: process.cwd() };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A RecoveryPlane over the `up` process hosting DIR (or one this CLI starts). */
export class UpHostPlane implements RecoveryPlane {
  readonly layout: MemberLayout[];
  private readonly clients = new Map<string, MemberClient>();
  private pem: ClientPem | undefined;
  private hostPid: number | undefined;
  private logOffset = 0;
  readonly upLog: string;

  constructor(
    private readonly dataDir: string,
    readonly command: UpCommand,
    hostPid: number | undefined,
  ) {
    this.hostPid = hostPid;
    const ep = planeEndpoints(dataDir);
    if (ep === undefined) throw new Error(`${dataDir} holds no control plane (no etcdctl.env)`);
    const portBase = Number(new URL(ep.urls[0]!).port);
    this.layout = clusterLayout({ dataDir, members: ep.urls.length, portBase, program: { command: '', args: [] }, tls: ep.urls[0]!.startsWith('https:') });
    this.upLog = join(dataDir, 'logs', 'up.log');
  }

  /** For DIR: the live `up` host (its command line), or none (then `up` with DIR's layout). */
  static forDataDir(dataDir: string, cliPath: string): UpHostPlane {
    const pid = livePlaneHost(dataDir);
    return new UpHostPlane(dataDir, pid !== undefined ? hostCommand(pid) : defaultUpCommand(dataDir, cliPath), pid);
  }

  get pid(): number | undefined {
    return this.hostPid;
  }

  client(name: string): MemberClient {
    let c = this.clients.get(name);
    if (c) return c;
    const m = this.layout.find((x) => x.name === name);
    if (!m) throw new Error(`no member ${name}`);
    if (m.clientUrl.startsWith('https:') && !this.pem) {
      const pki = pkiFor({ dataDir: this.dataDir, program: { command: '', args: [] }, tls: true }, this.layout);
      this.pem = { ca: readFileSync(pki.ca.cert), cert: readFileSync(pki.client.cert), key: readFileSync(pki.client.key) };
    }
    c = new MemberClient(m.clientUrl, this.pem);
    this.clients.set(name, c);
    return c;
  }

  /** SIGTERM to the host; resolves once it has exited (it stops controllers, API server, members in that order). */
  async stopAll(): Promise<void> {
    this.closeClients();
    const pid = this.hostPid;
    if (pid === undefined || !alive(pid)) return;
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + STOP_WAIT_MS;
    while (alive(pid)) {
      if (Date.now() > deadline) throw new Error(`the plane's host (pid ${pid}) did not exit within ${STOP_WAIT_MS} ms of SIGTERM`);
      await new Promise((r) => setTimeout(r, 100));
    }
    this.hostPid = undefined;
  }

  /** The same `up` command again, detached (it outlives this CLI), output appended to DIR/logs/up.log. */
  startAll(): void {
    mkdirSync(join(this.dataDir, 'logs'), { recursive: true, mode: 0o700 });
    this.logOffset = existsSync(this.upLog) ? statSync(this.upLog).size : 0;
    const fd = openSync(this.upLog, 'a', 0o600);
    try {
      const [cmd, ...args] = this.command.argv;
      const child = spawn(cmd!, args, { cwd: this.command.cwd, detached: true, stdio: ['ignore', fd, fd] });
      child.unref();
      this.hostPid = child.pid;
    } finally {
      closeSync(fd);
    }
  }

  /** Until up.log (since this start) says the plane is usable; fails when the host exits first. */
  async waitServing(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const ready = this.command.argv.includes('--no-apiserver') ? /pilothouse: cluster ready/ : /pilothouse: control plane ready/;
    for (;;) {
      const text = existsSync(this.upLog) ? readFileSync(this.upLog, 'utf8').slice(this.logOffset) : '';
      if (ready.test(text)) return;
      if (this.hostPid === undefined || !alive(this.hostPid)) throw new Error(`pilothouse up exited before the plane was ready; see ${this.upLog}: ${text.trim().split('\n').slice(-3).join(' | ')}`);
      if (Date.now() > deadline) throw new Error(`the plane was not ready within ${timeoutMs} ms; see ${this.upLog}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  closeClients(): void {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }
}

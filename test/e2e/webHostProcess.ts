// Starts `pilothouse web` on a temp data dir and loopback ports, waits for
// DIR/console.url, and stops it by PID (SIGTERM, then SIGKILL after a grace
// period).
//
// It runs a private copy of the build: out/ is shared with everyone working
// in this checkout, and a rebuild during a run renames the chunks that the
// host and its members load lazily (members died with ERR_MODULE_NOT_FOUND).
// The copy lives under test-results/ (git-ignored) so node_modules still
// resolves from the repository root.

import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface WebHostProcess {
  url: string;
  origin: string;
  dataDir: string;
  pid: number;
  /** Everything the host printed (stdout + stderr), for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  port: number;
  portBase: number;
  /** Default: a fresh temp dir, removed on stop. */
  dataDir?: string;
  readyTimeoutMs?: number;
}

const BUILD = resolve('out');

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (exited(child)) return true;
  return new Promise((res) => {
    const t = setTimeout(() => res(false), ms);
    child.once('exit', () => {
      clearTimeout(t);
      res(true);
    });
  });
}

export async function startWebHost(opts: StartOptions): Promise<WebHostProcess> {
  if (!existsSync(join(BUILD, 'main', 'cli.js')) || !existsSync(join(BUILD, 'renderer', 'index.html'))) {
    throw new Error(`${BUILD} has no build: run \`npm run build\` first`);
  }
  const appDir = resolve(`test-results/web-host-${opts.port}`);
  rmSync(appDir, { recursive: true, force: true });
  cpSync(BUILD, join(appDir, 'out'), { recursive: true });
  const cli = join(appDir, 'out', 'main', 'cli.js');
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'pilothouse-e2e-'));
  const child = spawn(process.execPath, [cli, 'web', '--data-dir', dataDir, '--port', String(opts.port), '--port-base', String(opts.portBase), '--no-open'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // The console's terminals get a shell without the user's rc files: a login bash runs the machine's profile, which may be slow (pyenv) and, when a test ends the shell mid-way, can leave a lock that stalls every later shell.
    env: { ...process.env, NO_COLOR: '1', SHELL: '/bin/sh' },
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const urlFile = join(dataDir, 'console.url');

  const stop = async (): Promise<void> => {
    if (!exited(child) && child.pid !== undefined) {
      process.kill(child.pid, 'SIGTERM');
      // The host stops three members (an etcd leader can take several seconds) before it exits.
      if (!(await waitExit(child, 30_000))) {
        process.kill(child.pid, 'SIGKILL');
        await waitExit(child, 5000);
      }
    }
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    rmSync(appDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  while (!existsSync(urlFile)) {
    if (exited(child) || Date.now() > deadline) {
      await stop();
      throw new Error(`pilothouse web did not write ${urlFile} (${exited(child) ? `exited ${child.exitCode ?? child.signalCode}` : 'timed out'}):\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const url = readFileSync(urlFile, 'utf8').trim();
  return { url, origin: new URL(url).origin, dataDir, pid: child.pid!, output: () => out, stop };
}

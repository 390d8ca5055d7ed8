// `pilothouse web` as a real process from the build (out/main/cli.js; ports
// 28460 for the console, 28470-28475 for its embedded 3-member cluster):
// the page and a built asset served without the token, the /bridge WebSocket
// 401 without it; a `version` call over the socket with it; listening on
// 127.0.0.1 only; SIGTERM stops it and its members.

import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CLI_JS } from '../../support/cluster';
import { bridgeProtocols } from '../../../renderer/src/bridge';
import { eventually } from '../../support/waitFor';

const waitOpts = { intervalMs: 50, detail: () => `output:\n${output}` };

const PORT = 28460;
const PORT_BASE = 28470;
const dataDir = mkdtempSync(join(tmpdir(), 'pilothouse-webproc-'));
let proc: ChildProcess | undefined;
let output = '';
let url: URL;
let asset: string;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: PORT, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

function upgrade(path: string, protocols: string[]): Promise<WebSocket | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${PORT}${path}`, protocols);
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.once('error', reject);
  });
}

// A private copy of the build: out/ is shared, and a rebuild during the run
// would rename the chunks the host loads lazily. Under test-results/ (ignored
// by git) so node_modules still resolves from the repository root.
const appDir = resolve(CLI_JS, '../../../test-results/web-process-28460');
const cli = join(appDir, 'out', 'main', 'cli.js');

beforeAll(async () => {
  if (!existsSync(CLI_JS)) throw new Error(`${CLI_JS} is missing: run \`npm run build\` first`);
  rmSync(appDir, { recursive: true, force: true });
  cpSync(resolve(CLI_JS, '../..'), join(appDir, 'out'), { recursive: true });
  proc = spawn(process.execPath, [cli, 'web', '--data-dir', dataDir, '--port', String(PORT), '--port-base', String(PORT_BASE), '--no-open'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DISPLAY: '', WAYLAND_DISPLAY: '' },
  });
  proc.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const printed = await eventually('the console URL', () => /console at (\S+)/.exec(output)?.[1], { ...waitOpts, timeoutMs: 20_000 });
  url = new URL(printed);
  // The entry script index.html loads (other chunks are loaded lazily by route).
  const index = readFileSync(join(appDir, 'out', 'renderer', 'index.html'), 'utf8');
  asset = /<script[^>]+src="\.\/assets\/([^"]+\.js)"/.exec(index)![1]!;
});

/** The host's direct children: the members it started. */
function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

afterAll(async () => {
  // Only when a test failed before the SIGTERM test: stop the host gracefully, then by force, members by their pids.
  if (proc && proc.exitCode === null && proc.pid) {
    const members = childPids(proc.pid);
    const exited = new Promise((r) => proc!.once('exit', r));
    proc.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    if (proc.exitCode === null) proc.kill('SIGKILL');
    for (const pid of members) if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(appDir, { recursive: true, force: true });
}, 30_000);

describe('pilothouse web', () => {
  it('prints the tokened URL on 127.0.0.1 and writes it to DIR/console.url', () => {
    expect(url.origin).toBe(`http://127.0.0.1:${PORT}`);
    expect(url.pathname + url.search).toBe('/');
    expect(url.hash).toMatch(/^#token=[A-Za-z0-9_-]{43}$/);
    expect(readFileSync(join(dataDir, 'console.url'), 'utf8').trim()).toBe(url.href);
  });

  it('serves the page and the asset without the token, and no cookie', async () => {
    const page = await get('/', { host: url.host });
    expect(page.status).toBe(200);
    expect(page.body).toContain(`/assets/${asset}`);
    const js = await get(`/assets/${asset}`, { host: url.host });
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    for (const r of [page, js]) expect(r.headers['set-cookie']).toBeUndefined();
  });

  it('refuses the WebSocket without the token', async () => {
    expect(await upgrade('/bridge', [])).toBe(401);
    expect(await upgrade('/bridge', bridgeProtocols('not-the-token'))).toBe(401);
  });

  it('answers version over the WebSocket', async () => {
    const ws = await upgrade('/bridge', bridgeProtocols(url.hash.slice('#token='.length)));
    if (typeof ws === 'number') throw new Error(`upgrade refused: ${ws}`);
    const answer = new Promise<unknown>((r) => ws.on('message', (d) => {
      const m = JSON.parse(d.toString()) as { t: string };
      if (m.t === 'result') r(m);
    }));
    ws.send(JSON.stringify({ t: 'call', id: 1, name: 'version', args: [] }));
    expect(await answer).toMatchObject({ t: 'result', id: 1, ok: true, value: { pilothouse: '0.1.0', runtime: 'web' } });
    ws.close();
  });

  it('is not reachable on another address', async () => {
    const refused = await new Promise<boolean>((resolve) => {
      const s = connect({ host: '127.0.0.2', port: PORT });
      s.once('connect', () => {
        s.destroy();
        resolve(false);
      });
      s.once('error', () => resolve(true));
    });
    expect(refused).toBe(true);
  });

  it('stops on SIGTERM with its members and removes console.url', async () => {
    // The plane starts after the URL is printed (certificates first): wait for its members.
    const children = await eventually('three member processes', () => {
      const pids = childPids(proc!.pid!);
      return pids.length >= 3 ? pids : undefined;
    }, { ...waitOpts, timeoutMs: 20_000 });
    const exited = new Promise<number | null>((r) => proc!.once('exit', (code) => r(code)));
    proc!.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const pid of children) expect(alive(pid), `member pid ${pid}`).toBe(false);
    expect(output).toContain('pilothouse web: stopped');
    expect(existsSync(join(dataDir, 'console.url'))).toBe(false);
  }, 40_000);
});

// `pilothouse web` opening a browser, as a real process from the build
// (ports 23000 for the console, 23010-23015 for its embedded cluster), with a
// fake `xdg-open` first on PATH that records its arguments and the whole
// process list (`ps -eo args`) at the moment it runs: the token is in
// neither — the opener gets the 0600 launcher page's path, and that page
// redirects to the tokened URL. console.url is 0600 even when it existed
// with a looser mode; both files go when the host stops.

import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_JS } from '../../support/cluster';
import { eventually } from '../../support/waitFor';

const waitOpts = { intervalMs: 50, detail: () => `output:\n${output}` };

const PORT = 23000;
const PORT_BASE = 23010;
const dir = mkdtempSync(join(tmpdir(), 'pilothouse-webopen-'));
const dataDir = join(dir, 'data');
const binDir = join(dir, 'bin');
const recordDir = join(dir, 'record');
// A private copy of the build (a rebuild during the run would rename the chunks the host loads lazily).
const appDir = resolve(CLI_JS, '../../../test-results/web-opener-23000');
let proc: ChildProcess | undefined;
let output = '';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

beforeAll(() => {
  if (!existsSync(CLI_JS)) throw new Error(`${CLI_JS} is missing: run \`npm run build\` first`);
  rmSync(appDir, { recursive: true, force: true });
  cpSync(resolve(CLI_JS, '../..'), join(appDir, 'out'), { recursive: true });
  for (const d of [dataDir, binDir, recordDir]) mkdirSync(d, { recursive: true });
  // The opener: argv one per line, then the process list while it is running (it is in that list itself).
  writeFileSync(
    join(binDir, 'xdg-open'),
    ['#!/bin/sh', 'printf "%s\\n" "$@" > "$OPENER_RECORD/argv.tmp"', 'ps -eo args > "$OPENER_RECORD/ps.tmp"', 'mv "$OPENER_RECORD/ps.tmp" "$OPENER_RECORD/ps"', 'mv "$OPENER_RECORD/argv.tmp" "$OPENER_RECORD/argv"', ''].join('\n'),
    { mode: 0o755 },
  );
  // Left by an earlier run with a looser mode: the host must tighten it, not only create new files 0600.
  writeFileSync(join(dataDir, 'console.url'), 'stale\n', { mode: 0o644 });
  chmodSync(join(dataDir, 'console.url'), 0o644);
  proc = spawn(process.execPath, [join(appDir, 'out', 'main', 'cli.js'), 'web', '--data-dir', dataDir, '--port', String(PORT), '--port-base', String(PORT_BASE)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PATH: `${binDir}:${process.env.PATH}`, DISPLAY: ':99', WAYLAND_DISPLAY: '', OPENER_RECORD: recordDir },
  });
  proc.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (output += d.toString()));
});

afterAll(async () => {
  if (proc && proc.exitCode === null && proc.pid) {
    const members = childPids(proc.pid);
    const exited = new Promise((r) => proc!.once('exit', r));
    proc.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
    if (proc.exitCode === null) proc.kill('SIGKILL');
    for (const pid of members) if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
  rmSync(dir, { recursive: true, force: true });
  rmSync(appDir, { recursive: true, force: true });
}, 40_000);

describe('pilothouse web opening a browser', () => {
  let url: URL;
  let token: string;

  it('prints the URL with the token in the fragment and says it opens a browser', async () => {
    url = new URL(await eventually('the console URL', () => /console at (\S+)/.exec(output)?.[1], { ...waitOpts, timeoutMs: 30_000 }));
    expect(url.origin).toBe(`http://127.0.0.1:${PORT}`);
    token = url.hash.slice('#token='.length);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await eventually('the opening line', () => (output.includes('pilothouse web: opening it in your browser') ? true : undefined), { ...waitOpts, timeoutMs: 30_000 });
  });

  it("keeps the token off the opener's command line and out of the process list", async () => {
    const argv = await eventually('the opener to run', () => (existsSync(join(recordDir, 'argv')) ? readFileSync(join(recordDir, 'argv'), 'utf8') : undefined), { ...waitOpts, timeoutMs: 30_000 });
    const ps = readFileSync(join(recordDir, 'ps'), 'utf8');
    const launcher = join(dataDir, 'console-open.html');
    expect(argv).toBe(`${launcher}\n`);
    // The list is the one taken while the opener ran: it shows the opener with its argument.
    expect(ps).toMatch(new RegExp(`xdg-open ${launcher.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    expect(argv).not.toContain(token);
    expect(ps).not.toContain(token);
  });

  it('the launcher page and console.url are 0600 and lead to the tokened URL', () => {
    const launcher = join(dataDir, 'console-open.html');
    expect(statSync(launcher).mode & 0o777).toBe(0o600);
    expect(readFileSync(launcher, 'utf8')).toContain(`<meta http-equiv="refresh" content="0;url=${url.href}">`);
    const urlFile = join(dataDir, 'console.url');
    expect(statSync(urlFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(urlFile, 'utf8')).toBe(`${url.href}\n`);
  });

  it('removes both files when it stops', async () => {
    const exited = new Promise<number | null>((r) => proc!.once('exit', (code) => r(code)));
    proc!.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(join(dataDir, 'console-open.html'))).toBe(false);
    expect(existsSync(join(dataDir, 'console.url'))).toBe(false);
  }, 40_000);
});

// `kubectl scale --current-replicas=3 --replicas=1 deployment/x` against
// `pilothouse up`: with a precondition kubectl GETs the Scale and PUTs it
// back without a Content-Type, which kube reads as JSON. A precondition that
// no longer holds is kubectl's own error. Ports 20200–20206.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_JS } from '../../support/cluster';
import { KUBECTL, run } from '../../support/apiserver';

const PORT_BASE = 20200;
const dir = mkdtempSync(join(tmpdir(), 'pilothouse-scale-'));
const pids = new Set<number>();
let up: ChildProcess | undefined;
const kubectl = (args: string[]) => run(KUBECTL, args, { KUBECONFIG: join(dir, 'data', 'kubeconfig'), HOME: join(dir, 'home') });

beforeAll(async () => {
  mkdirSync(join(dir, 'home'), { recursive: true });
  up = spawn(process.execPath, [CLI_JS, 'up', '--data-dir', join(dir, 'data'), '--port-base', String(PORT_BASE), '--no-controllers'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  up.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  up.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const deadline = Date.now() + 120_000;
  while (!out.includes('API server ready') && Date.now() < deadline && up.exitCode === null) await new Promise((r) => setTimeout(r, 200));
  if (!out.includes('API server ready')) throw new Error(`pilothouse up did not get ready:\n${out}`);
  for (const m of out.matchAll(/pid (\d+)/g)) pids.add(Number(m[1]));
}, 150_000);

afterAll(() => {
  up?.kill('SIGKILL');
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('kubectl scale --current-replicas', () => {
  it('scales when the precondition holds and reports kubectl\'s error when it does not', async () => {
    expect((await kubectl(['create', 'deployment', 'x', '--image=nginx', '--replicas=3'])).stdout).toBe('deployment.apps/x created\n');
    const scaled = await kubectl(['scale', '--current-replicas=3', '--replicas=1', 'deployment/x']);
    expect(scaled.stderr).toBe('');
    expect(scaled.stdout).toBe('deployment.apps/x scaled\n');
    expect((await kubectl(['get', 'deployment', 'x', '-o', 'jsonpath={.spec.replicas}'])).stdout).toBe('1');
    const stale = await kubectl(['scale', '--current-replicas=3', '--replicas=2', 'deployment/x']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toBe('error: Expected replicas to be 3, was 1\n');
    expect((await kubectl(['get', 'deployment', 'x', '-o', 'jsonpath={.spec.replicas}'])).stdout).toBe('1');
  }, 60_000);
});

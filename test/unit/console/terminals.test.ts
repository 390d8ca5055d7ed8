import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BridgeEventName, BridgeEvents, EventSink } from '../../../preload/contract';
import { TerminalService, terminalEnv } from '../../../main/console/terminals';
import { missingToolHints } from '../../../main/console/terminalTools';
import { eventually } from '../../support/waitFor';

/** Records every event; output() joins a terminal's data. */
class RecordingSink implements EventSink {
  events: { name: BridgeEventName; payload: unknown }[] = [];
  emit<E extends BridgeEventName>(name: E, payload: BridgeEvents[E]): void {
    this.events.push({ name, payload });
  }
  output(id: string): string {
    return this.events
      .filter((e) => e.name === 'terminalData' && (e.payload as { id: string }).id === id)
      .map((e) => (e.payload as { data: string }).data)
      .join('');
  }
  exits(id: string): number[] {
    return this.events.filter((e) => e.name === 'terminalExit' && (e.payload as { id: string }).id === id).map((e) => (e.payload as { code: number }).code);
  }
}

const services: TerminalService[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.dispose();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function service(extra: Partial<ConstructorParameters<typeof TerminalService>[0]> = {}) {
  const sink = new RecordingSink();
  const cwd = mkdtempSync(join(tmpdir(), 'pilothouse-term-'));
  dirs.push(cwd);
  // HOME is the test's own dir, so the login shell reads no profile of this
  // machine's user (one that runs `pyenv init` can stall a shell for 60 s on a
  // lock an interrupted shell left behind).
  const svc = new TerminalService({ env: { HOME: cwd, KUBECONFIG: join(cwd, 'kubeconfig'), ETCDCTL_API: '3' }, cwd, events: sink, shell: '/bin/bash', ...extra });
  services.push(svc);
  return { svc, sink, cwd };
}

describe('TerminalService', () => {
  it('runs a login shell with the cluster environment and batches its output', async () => {
    const { svc, sink, cwd } = service();
    const t = svc.open({ cols: 80, rows: 24 });
    expect(t.id).toMatch(/^t\d+$/);
    expect(t.title).toBe('bash 1');
    svc.input({ id: t.id, data: 'echo "kc=$KUBECONFIG api=$ETCDCTL_API term=$TERM pwd=$(pwd)"\r' });
    await eventually('echo output', () => sink.output(t.id).includes(`kc=${join(cwd, 'kubeconfig')} api=3 term=xterm-256color pwd=${cwd}`), { timeoutMs: 10_000, intervalMs: 20 });
    // Batching: far fewer events than characters echoed back.
    const dataEvents = sink.events.filter((e) => e.name === 'terminalData').length;
    expect(dataEvents).toBeLessThan(sink.output(t.id).length / 4);
  });

  it('runs etcdctl version', async () => {
    const { svc, sink } = service();
    const t = svc.open({ cols: 80, rows: 24 });
    svc.input({ id: t.id, data: 'etcdctl version\r' });
    await eventually('etcdctl version', () => /etcdctl version: 3\.4\.\d+/.test(sink.output(t.id)), { timeoutMs: 10_000, intervalMs: 20 });
    expect(sink.output(t.id)).toMatch(/API version: 3\.4/);
  });

  it('resizes the pty (stty size sees it)', async () => {
    const { svc, sink } = service();
    const t = svc.open({ cols: 80, rows: 24 });
    svc.resize({ id: t.id, cols: 132, rows: 43 });
    svc.input({ id: t.id, data: 'echo "size=$(stty size)"\r' });
    await eventually('stty size', () => sink.output(t.id).includes('size=43 132'), { timeoutMs: 10_000, intervalMs: 20 });
  });

  it('reports the exit code when the shell exits and forgets the terminal', async () => {
    const { svc, sink } = service();
    const t = svc.open({ cols: 80, rows: 24 });
    svc.input({ id: t.id, data: 'exit 3\r' });
    await eventually('terminalExit', () => sink.exits(t.id).length > 0, { timeoutMs: 10_000, intervalMs: 20 });
    expect(sink.exits(t.id)).toEqual([3]);
    expect(svc.size).toBe(0);
    expect(() => svc.input({ id: t.id, data: 'x' })).toThrow(`terminal ${t.id} not found`);
  });

  it('close hangs up the shell and its jobs', async () => {
    const { svc, sink } = service();
    const t = svc.open({ cols: 80, rows: 24 });
    svc.input({ id: t.id, data: 'sleep 300 & echo "job=$!"\r' });
    await eventually('job pid', () => /job=\d+/.test(sink.output(t.id)), { timeoutMs: 10_000, intervalMs: 20 });
    const jobPid = Number(/job=(\d+)/.exec(sink.output(t.id))![1]);
    // A job that died after its shell exited is an orphan until PID 1 reaps
    // it, and kill(pid, 0) still succeeds on that zombie: it counts as ended.
    const alive = () => {
      try {
        process.kill(jobPid, 0);
      } catch {
        return false;
      }
      try {
        const stat = readFileSync(`/proc/${jobPid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
      } catch {
        return false;
      }
    };
    expect(alive()).toBe(true);
    svc.close({ id: t.id });
    await eventually('terminalExit after close', () => sink.exits(t.id).length === 1, { timeoutMs: 10_000, intervalMs: 20 });
    expect(sink.exits(t.id)[0]).toBeGreaterThan(0);
    await eventually('the background job to end', () => !alive(), { timeoutMs: 5000, intervalMs: 20 });
    svc.close({ id: t.id }); // idempotent
    expect(svc.size).toBe(0);
  });

  it('bounds the number of open terminals', () => {
    const { svc } = service({ maxTerminals: 2 });
    svc.open({ cols: 10, rows: 10 });
    svc.open({ cols: 10, rows: 10 });
    expect(() => svc.open({ cols: 10, rows: 10 })).toThrow('too many terminals (2 open); close one first');
  });

  const badSizes = [
    { name: 'zero cols', cols: 0, rows: 24 },
    { name: 'fractional rows', cols: 80, rows: 2.5 },
    { name: 'huge', cols: 5000, rows: 24 },
    { name: 'string', cols: '80' as unknown as number, rows: 24 },
  ];
  it.each(badSizes)('rejects a bad size: $name', ({ cols, rows }) => {
    const { svc } = service();
    expect(() => svc.open({ cols, rows })).toThrow(/invalid terminal size/);
    expect(svc.size).toBe(0);
  });

  it('dispose ends every terminal and refuses new ones', async () => {
    const { svc, sink } = service();
    const a = svc.open({ cols: 80, rows: 24 });
    const b = svc.open({ cols: 80, rows: 24 });
    await svc.dispose();
    expect(svc.size).toBe(0);
    expect(sink.exits(a.id)).toHaveLength(1);
    expect(sink.exits(b.id)).toHaveLength(1);
    expect(() => svc.open({ cols: 80, rows: 24 })).toThrow('the terminal service is shut down');
  });
});

describe('terminalEnv', () => {
  it('drops ELECTRON_RUN_AS_NODE, sets TERM, and lets the cluster variables win', () => {
    const env = terminalEnv({ PATH: '/bin', ELECTRON_RUN_AS_NODE: '1', KUBECONFIG: '/old', UNSET: undefined }, { KUBECONFIG: '/new' });
    expect(env).toEqual({ PATH: '/bin', TERM: 'xterm-256color', COLORTERM: 'truecolor', KUBECONFIG: '/new' });
  });
});

describe('missingToolHints', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pilothouse-tools-'));
  const tool = (name: string, mode: number) => {
    writeFileSync(join(dir, name), '#!/bin/sh\n');
    chmodSync(join(dir, name), mode);
  };
  tool('etcdctl', 0o755);
  tool('kubectl', 0o644); // present but not executable: counts as missing
  const cases = [
    { name: 'empty PATH', path: '', want: ['etcdctl: apt-get install etcd-client', 'kubectl: install it from https://kubernetes.io/docs/tasks/tools/#kubectl'] },
    { name: 'etcdctl only', path: dir, want: ['kubectl: install it from https://kubernetes.io/docs/tasks/tools/#kubectl'] },
    { name: 'system dirs', path: '/nonexistent:/usr/bin', want: [] },
  ];
  it.each(cases)('$name', ({ path, want }) => {
    expect(missingToolHints(path)).toEqual(want);
  });
});

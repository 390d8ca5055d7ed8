import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ComponentStatus } from '../../../preload/contract';
import { LogStore } from '../../../main/controlplane/logStore';
import { RestartPolicy } from '../../../main/controlplane/restartPolicy';
import { SupervisedProcess, type LifecycleEvent } from '../../../main/controlplane/supervisedProcess';
import { FakeChild, FakeClock } from './fakeProcess';

function setup(opts: { ignoreTerm?: boolean } = {}) {
  const clock = new FakeClock();
  const children: FakeChild[] = [];
  const changes: ComponentStatus[] = [];
  const events: LifecycleEvent[] = [];
  const logs = new LogStore(undefined);
  const proc = new SupervisedProcess({
    id: 'm1',
    kind: 'etcd',
    program: { command: '/bin/member', args: ['etcd'] },
    args: ['--name', 'm1'],
    logs,
    clock,
    spawner: () => {
      const c = new FakeChild(opts.ignoreTerm);
      children.push(c);
      return c;
    },
    onChange: (s) => changes.push(s),
    onLifecycle: (e) => events.push(e),
    stopGraceMs: 5_000,
  });
  return { clock, children, changes, events, logs, proc, last: () => children[children.length - 1]! };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('restart policy', () => {
  const cases = [
    { name: 'backoff doubles from 250 ms', crashes: [0, 1, 2, 3, 4], want: [250, 500, 1000, 2000, 4000] },
    { name: 'the sixth crash within 60 s gives up', crashes: [0, 1, 2, 3, 4, 5], want: [250, 500, 1000, 2000, 4000, 'give-up'] },
    { name: 'crashes older than the window are forgotten', crashes: [0, 1, 2, 3, 4, 70_000], want: [250, 500, 1000, 2000, 4000, 250] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = new RestartPolicy();
      expect(c.crashes.map((t) => {
        const d = p.onCrash(t);
        return d.action === 'restart' ? d.delayMs : 'give-up';
      })).toEqual(c.want);
    });
  }
  it('caps the delay', () => {
    const p = new RestartPolicy({ baseMs: 1000, maxMs: 3000, limit: 10 });
    expect([0, 1, 2, 3].map((t) => (p.onCrash(t) as { delayMs: number }).delayMs)).toEqual([1000, 2000, 3000, 3000]);
  });
});

describe('supervised process', () => {
  it('waitExit resolves with the exit code, or null when a signal ended the child', async () => {
    const crashed = setup();
    crashed.proc.start();
    const byCode = crashed.proc.waitExit();
    crashed.last().crash(3);
    expect(await byCode).toBe(3);
    await crashed.proc.close();
    const killed = setup();
    killed.proc.start();
    const bySignal = killed.proc.waitExit();
    killed.proc.kill('SIGKILL');
    expect(await bySignal).toBeNull();
    await killed.proc.close();
  });

  it('start → starting → running (ready) → crash → restarting → starting again, counting restarts', async () => {
    const { proc, clock, children, last } = setup();
    proc.start();
    expect(proc.state).toBe('starting');
    expect(proc.status()).toMatchObject({ id: 'm1', kind: 'etcd', pid: last().pid, restarts: 0 });
    proc.markReady();
    expect(proc.state).toBe('running');
    last().crash(2);
    expect(proc.state).toBe('restarting');
    expect(proc.status().lastExit).toMatchObject({ code: 2, signal: null });
    clock.advance(249);
    expect(children).toHaveLength(1);
    clock.advance(1);
    expect(children).toHaveLength(2);
    expect(proc.state).toBe('starting');
    expect(proc.status().restarts).toBe(1);
  });

  it('stays crashed after the sixth crash in a minute, until the user starts it', () => {
    const { proc, clock, children, last } = setup();
    proc.start();
    for (let i = 0; i < 5; i++) {
      last().crash();
      clock.advance(10_000);
    }
    expect(children).toHaveLength(6);
    last().crash();
    expect(proc.state).toBe('crashed');
    clock.advance(120_000);
    expect(children).toHaveLength(6);
    expect(clock.pending).toBe(0);
    proc.start();
    expect(children).toHaveLength(7);
    expect(proc.state).toBe('starting');
  });

  it('never restarts what the user stopped or killed', async () => {
    const { proc, clock, children, last } = setup();
    proc.start();
    await proc.stop();
    expect(last().signals).toEqual(['SIGTERM']);
    expect(proc.state).toBe('stopped');
    clock.advance(60_000);
    expect(children).toHaveLength(1);
    proc.start();
    await proc.kill();
    expect(last().signals).toEqual(['SIGKILL']);
    expect(proc.state).toBe('stopped');
    expect(proc.status().lastExit).toMatchObject({ signal: 'SIGKILL' });
    clock.advance(60_000);
    expect(children).toHaveLength(2);
  });

  it('a stop during the restart backoff cancels the restart', () => {
    const { proc, clock, children, last } = setup();
    proc.start();
    last().crash();
    expect(proc.state).toBe('restarting');
    void proc.stop();
    expect(proc.state).toBe('stopped');
    clock.advance(10_000);
    expect(children).toHaveLength(1);
  });

  it('SIGKILL after the grace period when SIGTERM is ignored', async () => {
    const { proc, clock, last } = setup({ ignoreTerm: true });
    proc.start();
    const stopped = proc.stop();
    await tick();
    expect(last().signals).toEqual(['SIGTERM']);
    clock.advance(4_999);
    expect(last().signals).toEqual(['SIGTERM']);
    clock.advance(1);
    expect(last().signals).toEqual(['SIGTERM', 'SIGKILL']);
    await stopped;
    expect(proc.state).toBe('stopped');
  });

  it('pause and resume send SIGSTOP/SIGCONT; stopping a paused process continues it so it can exit', async () => {
    const { proc, last } = setup();
    proc.start();
    proc.markReady();
    expect(proc.resume()).toBe(false);
    expect(proc.pause()).toBe(true);
    expect(proc.state).toBe('paused');
    expect(proc.resume()).toBe(true);
    expect(proc.state).toBe('running');
    proc.pause();
    await proc.stop();
    expect(last().signals).toEqual(['SIGSTOP', 'SIGCONT', 'SIGSTOP', 'SIGTERM', 'SIGCONT']);
    expect(proc.state).toBe('stopped');
    expect(proc.pause()).toBe(false);
  });

  it('restart waits for the exit, then starts a new child (one child at a time)', async () => {
    const { proc, children } = setup();
    proc.start();
    proc.start(); // no-op while a child lives
    expect(children).toHaveLength(1);
    await proc.restart();
    expect(children).toHaveLength(2);
    expect(children[0]!.signals).toEqual(['SIGTERM']);
    expect(proc.state).toBe('starting');
  });

  it('captures output lines and notes into the log store', async () => {
    const { proc, logs, last } = setup();
    proc.start();
    last().stdout.write('line one\nline ');
    last().stderr.write('oops\n');
    last().stdout.write('two\n');
    await tick();
    last().crash(3);
    const lines = logs.lines('m1').map((l) => `${l.stream}:${l.text}`);
    expect(lines).toEqual([
      `supervisor:started pid ${last().pid}: /bin/member etcd --name m1`,
      'stdout:line one',
      'stderr:oops',
      'stdout:line two',
      'supervisor:exited (code 3, signal null)',
      'supervisor:crashed; restart 1 in 250 ms',
    ]);
  });

  it('reports every state change', () => {
    const { proc, changes, last } = setup();
    proc.start();
    proc.markReady();
    proc.pause();
    proc.resume();
    last().crash();
    expect(changes.map((c) => c.state)).toEqual(['starting', 'running', 'paused', 'running', 'restarting']);
  });
});

describe('supervised process lifecycle events', () => {
  it('tells each spawn and each unasked exit with the decision: backoff, attempt, then give-up', () => {
    const { proc, clock, events, last } = setup();
    proc.start();
    const pids = [last().pid];
    last().emit('exit', null, 'SIGKILL');
    clock.advance(250);
    pids.push(last().pid);
    for (let i = 0; i < 5; i++) {
      last().crash(1);
      clock.advance(10_000);
      pids.push(last().pid);
    }
    const shown = events.map((e) => (e.type === 'spawned' ? `spawned ${e.pid} #${e.restart}` : `exited ${e.code ?? e.signal} ${e.next?.action === 'restart' ? `restart in ${e.next.delayMs} (attempt ${e.next.attempt})` : e.next?.action}`));
    expect(shown).toEqual([
      `spawned ${pids[0]} #0`,
      'exited SIGKILL restart in 250 (attempt 1)',
      `spawned ${pids[1]} #1`,
      'exited 1 restart in 500 (attempt 2)',
      `spawned ${pids[2]} #2`,
      'exited 1 restart in 1000 (attempt 3)',
      `spawned ${pids[3]} #3`,
      'exited 1 restart in 2000 (attempt 4)',
      `spawned ${pids[4]} #4`,
      'exited 1 restart in 4000 (attempt 5)',
      `spawned ${pids[5]} #5`,
      'exited 1 give-up',
    ]);
    expect(proc.state).toBe('crashed');
  });

  it('an asked-for stop or restart is an exit without a decision', async () => {
    const { proc, events } = setup();
    proc.start();
    await proc.restart();
    await proc.stop();
    expect(events.map((e) => (e.type === 'exited' ? `exited ${e.signal} ${e.next === undefined ? 'asked' : e.next.action}` : e.type))).toEqual([
      'spawned',
      'exited SIGTERM asked',
      'spawned',
      'exited SIGTERM asked',
    ]);
  });
});

describe('supervised process after close', () => {
  it('refuses to start again (a late experiment or restart cannot leave an orphan)', async () => {
    const { proc, children, clock } = setup();
    proc.start();
    await proc.close();
    proc.start();
    clock.advance(60_000);
    expect(children).toHaveLength(1);
    expect(proc.state).toBe('stopped');
  });
});

describe('supervised process without restarts (restart policy never)', () => {
  it('an unasked exit leaves it crashed with no timer; start runs it again', () => {
    const clock = new FakeClock();
    const children: FakeChild[] = [];
    const proc = new SupervisedProcess({
      id: 'm1', kind: 'etcd', program: { command: '/bin/member', args: [] }, args: [], logs: new LogStore(undefined), clock, restart: 'never',
      spawner: () => (children.push(new FakeChild()), children[children.length - 1]!),
    });
    proc.start();
    children[0]!.crash(1);
    expect(proc.state).toBe('crashed');
    expect(proc.running).toBe(false);
    expect(clock.pending).toBe(0);
    clock.advance(60_000);
    expect(children).toHaveLength(1);
    proc.start();
    expect(children).toHaveLength(2);
    expect(proc.running).toBe(true);
  });

  it('without a LogStore the child writes to the log file: the spawner gets its descriptor', () => {
    const dir = mkdtempSync(join(tmpdir(), 'supervised-'));
    const outputs: unknown[] = [];
    const logFile = join(dir, 'logs', 'm1.log');
    const proc = new SupervisedProcess({
      id: 'm1', kind: 'etcd', program: { command: '/bin/member', args: [] }, args: [], logFile, restart: 'never', clock: new FakeClock(),
      spawner: (_c, _a, _e, output) => (outputs.push(output), new FakeChild()),
    });
    proc.start();
    expect(typeof outputs[0]).toBe('number');
    expect(existsSync(logFile)).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('supervised process kill and replace', () => {
  it('kill sends the signal asked for (SIGKILL by default) and is not restarted', async () => {
    const { proc, clock, children, last } = setup();
    proc.start();
    await proc.kill('SIGTERM');
    expect(last().signals).toEqual(['SIGTERM']);
    expect(proc.state).toBe('stopped');
    clock.advance(60_000);
    expect(children).toHaveLength(1);
  });

  const cases = [
    { name: 'another program, same flags', change: { program: { command: '/usr/bin/etcd', args: [] } }, want: ['/usr/bin/etcd', '--name', 'm1'] },
    { name: 'other flags, same program', change: { args: ['--name', 'm1', '--snapshot-count', '10'] }, want: ['/bin/member', 'etcd', '--name', 'm1', '--snapshot-count', '10'] },
  ];
  for (const c of cases) {
    it(`replace while running: ${c.name}, restarted with it, keeping logs and restart policy`, async () => {
      const spawned: string[][] = [];
      const clock = new FakeClock();
      const children: FakeChild[] = [];
      const logs = new LogStore(undefined);
      const proc = new SupervisedProcess({
        id: 'm1', kind: 'etcd', program: { command: '/bin/member', args: ['etcd'] }, args: ['--name', 'm1'], logs, clock,
        spawner: (command, args) => (spawned.push([command, ...args]), children.push(new FakeChild()), children[children.length - 1]!),
      });
      proc.start();
      await proc.replace(c.change);
      expect(children[0]!.signals).toEqual(['SIGTERM']);
      expect(spawned[1]).toEqual(c.want);
      expect(proc.state).toBe('starting');
      expect([proc.commandLine().program.command, ...proc.commandLine().program.args, ...proc.commandLine().args]).toEqual(c.want);
      children[1]!.crash(1);
      expect(proc.state).toBe('restarting');
      clock.advance(250);
      expect(spawned[2]).toEqual(c.want);
      expect(logs.lines('m1').some((l) => l.text.startsWith('command line replaced: '))).toBe(true);
    });
  }

  it('replace while stopped only changes what the next start runs', async () => {
    const spawned: string[] = [];
    const proc = new SupervisedProcess({
      id: 'm1', kind: 'etcd', program: { command: '/bin/member', args: [] }, args: [], logs: new LogStore(undefined), clock: new FakeClock(),
      spawner: (command) => (spawned.push(command), new FakeChild()),
    });
    await proc.replace({ program: { command: '/usr/bin/etcd', args: [] } });
    expect(spawned).toEqual([]);
    expect(proc.state).toBe('stopped');
    proc.start();
    expect(spawned).toEqual(['/usr/bin/etcd']);
  });

  it('replace of a process given up on after crashing starts it with the new command line', async () => {
    const spawned: string[] = [];
    const children: FakeChild[] = [];
    const proc = new SupervisedProcess({
      id: 'm1', kind: 'etcd', program: { command: '/bin/bad', args: [] }, args: [], logs: new LogStore(undefined), clock: new FakeClock(), restart: 'never',
      spawner: (command) => (spawned.push(command), children.push(new FakeChild()), children[children.length - 1]!),
    });
    proc.start();
    children[0]!.crash(1);
    expect(proc.state).toBe('crashed');
    await proc.replace({ program: { command: '/bin/good', args: [] } });
    expect(spawned).toEqual(['/bin/bad', '/bin/good']);
    expect(proc.state).toBe('starting');
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LogStore } from '../../../main/controlplane/logStore';
import { Supervisor } from '../../../main/controlplane/supervisor';
import { FakeChild, FakeClock } from './fakeProcess';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A members-only plane with fake children: nothing runs, nothing listens. */
function setup() {
  const dataDir = mkdtempSync(join(tmpdir(), 'supervisor-'));
  dirs.push(dataDir);
  const clock = new FakeClock();
  const spawned: { id: string; argv: string[]; child: FakeChild }[] = [];
  const logs = new LogStore(undefined);
  const sup = new Supervisor({
    dataDir,
    portBase: 23500,
    cliPath: '/opt/pilothouse/cli.js',
    logs,
    apiserver: false,
    memberProgram: { command: '/bin/member', args: ['etcd'] },
    clock,
    spawner: (command, args) => {
      const child = new FakeChild();
      spawned.push({ id: args[args.indexOf('--name') + 1]!, argv: [command, ...args], child });
      return child;
    },
  });
  const lastOf = (id: string) => spawned.filter((s) => s.id === id).at(-1)!;
  return { sup, clock, spawned, logs, lastOf };
}

describe('supervisor: one component by id', () => {
  it('start, pause, resume, stop, restart one member; the others stay as they are', async () => {
    const { sup, spawned, lastOf } = setup();
    sup.startComponent('m2');
    expect(spawned.map((s) => s.id)).toEqual(['m2']);
    expect(sup.components().map((c) => [c.id, c.state])).toEqual([['m1', 'stopped'], ['m2', 'starting'], ['m3', 'stopped']]);
    expect(sup.pauseComponent('m2')).toBe(true);
    expect(sup.process('m2').state).toBe('paused');
    expect(sup.resumeComponent('m2')).toBe(true);
    expect(sup.resumeComponent('m2')).toBe(false);
    await sup.restartComponent('m2');
    expect(spawned.map((s) => s.id)).toEqual(['m2', 'm2']);
    expect(spawned[0]!.child.signals).toEqual(['SIGSTOP', 'SIGCONT', 'SIGTERM']);
    await sup.stopComponent('m2');
    expect(lastOf('m2').child.signals).toEqual(['SIGTERM']);
    expect(sup.process('m2').state).toBe('stopped');
    expect(sup.pauseComponent('m2')).toBe(false);
  });

  it('an unknown id is an error naming it', () => {
    const { sup } = setup();
    expect(() => sup.startComponent('m9')).toThrow('no component m9');
    expect(() => sup.startComponent('apiserver')).toThrow('no component apiserver');
  });

  it('replace swaps a running member to another binary with the same flags, keeping its id, logs and restart policy', async () => {
    const { sup, clock, spawned, logs, lastOf } = setup();
    sup.startAll();
    const flags = lastOf('m1').argv.slice(2);
    expect(lastOf('m1').argv.slice(0, 2)).toEqual(['/bin/member', 'etcd']);
    await sup.replaceComponent('m1', { program: { command: '/usr/bin/etcd', args: [] } });
    expect(lastOf('m1').argv).toEqual(['/usr/bin/etcd', ...flags]);
    expect(sup.commandLine('m1')).toEqual({ program: { command: '/usr/bin/etcd', args: [] }, args: flags });
    expect(sup.commandLine('m2').program.command).toBe('/bin/member');
    expect(spawned.filter((s) => s.id === 'm2')).toHaveLength(1);
    lastOf('m1').child.crash(1);
    expect(sup.process('m1').state).toBe('restarting');
    clock.advance(250);
    expect(lastOf('m1').argv[0]).toBe('/usr/bin/etcd');
    expect(sup.process('m1').status().restarts).toBe(1);
    expect(logs.lines('m1').map((l) => l.text).filter((t) => t.startsWith('started pid'))).toHaveLength(3);
  });

  it('replace with other flags on a stopped member runs them at its next start', async () => {
    const { sup, spawned, lastOf } = setup();
    const flags = sup.commandLine('m3').args;
    await sup.replaceComponent('m3', { args: [...flags, '--snapshot-count', '10'] });
    expect(spawned).toHaveLength(0);
    sup.startComponent('m3');
    expect(lastOf('m3').argv.slice(-2)).toEqual(['--snapshot-count', '10']);
  });
});

describe('supervisor: every component', () => {
  it('startAll starts every member, stopAll stops them all and nothing is restarted', async () => {
    const { sup, clock, spawned } = setup();
    sup.startAll();
    expect(spawned.map((s) => s.id)).toEqual(['m1', 'm2', 'm3']);
    await sup.stopAll();
    expect(sup.components().map((c) => c.state)).toEqual(['stopped', 'stopped', 'stopped']);
    clock.advance(60_000);
    expect(spawned).toHaveLength(3);
  });
});

// runWebCommand in-process with a stand-in for the console services (ports
// 28420-28429): the URL printed and written to DIR/console.url with mode
// 0600, the services started and served, clean shutdown on the stop signal
// (services disposed, console.url removed), and a taken port reported.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { BridgeHandlers, EventSink } from '../../../preload/contract';
import { consoleUrlFile, runWebCommand } from '../../../main/cmd/web';
import { bridgeProtocols } from '../../../renderer/src/bridge';
import { eventually } from '../../support/waitFor';

const dir = mkdtempSync(join(tmpdir(), 'pilothouse-webcmd-'));
const rendererDir = join(dir, 'renderer');
mkdirSync(rendererDir, { recursive: true });
writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Pilothouse</title>');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fakeServices() {
  const log: string[] = [];
  let events: EventSink | undefined;
  const create = (opts: { dataDir: string; portBase: number; runtime: 'web'; events: EventSink }) => {
    log.push(`create ${opts.runtime} portBase=${opts.portBase}`);
    events = opts.events;
    return {
      handlers: { version: () => ({ pilothouse: 'test', runtime: opts.runtime, versions: {} }) } as unknown as BridgeHandlers,
      start: async () => void log.push('start'),
      dispose: async () => void log.push('dispose'),
      supervisor: { restartInTurn: async () => (log.push('restartInTurn'), true) },
    };
  };
  return { log, create, emit: (...a: Parameters<EventSink['emit']>) => events?.emit(...a) };
}

describe('runWebCommand', () => {
  it('prints and writes the URL (0600), serves the services, and shuts down cleanly', async () => {
    const dataDir = join(dir, 'data1');
    const svc = fakeServices();
    const lines: string[] = [];
    let stop!: (sig: string) => void;
    const stopSignal = new Promise<string>((r) => (stop = r));
    const done = runWebCommand(
      { dataDir, port: 28420, portBase: 28430, open: false },
      { cliPath: '/x/cli.js', createServices: svc.create, rendererDir, out: (l) => lines.push(l), stopSignal },
    );
    const url = await eventually('the URL line', () => lines.map((l) => /console at (\S+)/.exec(l)?.[1]).find(Boolean), { timeoutMs: 10_000, intervalMs: 20 });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:28420\/#token=[A-Za-z0-9_-]{43}$/);
    const file = consoleUrlFile(dataDir);
    expect(readFileSync(file, 'utf8')).toBe(`${url}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await eventually('start', () => (svc.log.includes('start') ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });

    const token = new URL(url).hash.slice('#token='.length);
    const ws = new WebSocket('ws://127.0.0.1:28420/bridge', bridgeProtocols(token));
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    const answer = new Promise<unknown>((r) => ws.once('message', (d) => r(JSON.parse(d.toString()))));
    ws.send(JSON.stringify({ t: 'call', id: 1, name: 'version', args: [] }));
    expect(await answer).toEqual({ t: 'result', id: 1, ok: true, value: { pilothouse: 'test', runtime: 'web', versions: {} } });
    const event = new Promise<unknown>((r) => ws.once('message', (d) => r(JSON.parse(d.toString()))));
    svc.emit('terminalExit', { id: 't1', code: 0 });
    expect(await event).toEqual({ t: 'event', name: 'terminalExit', payload: { id: 't1', code: 0 } });

    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    stop('SIGTERM');
    expect(await done).toBe(0);
    expect(await closed).toBe(1001);
    expect(svc.log).toEqual(['create web portBase=28430', 'start', 'dispose']);
    expect(existsSync(join(dataDir, 'controlplane.pid'))).toBe(false);
    expect(existsSync(file)).toBe(false);
    expect(lines.at(-1)).toBe('pilothouse web: stopped');
  });

  it('names itself in DIR/controlplane.pid (0600), restarts the plane in turn on SIGHUP, and refuses a second host', async () => {
    const dataDir = join(dir, 'data-pid');
    const svc = fakeServices();
    const lines: string[] = [];
    let stop!: (sig: string) => void;
    const stopSignal = new Promise<string>((r) => (stop = r));
    const done = runWebCommand(
      { dataDir, port: 28422, portBase: 28430, open: false },
      { cliPath: '/x/cli.js', createServices: svc.create, rendererDir, out: (l) => lines.push(l), stopSignal },
    );
    await eventually('start', () => (svc.log.includes('start') ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
    const pidFile = join(dataDir, 'controlplane.pid');
    expect(readFileSync(pidFile, 'utf8')).toBe(`${process.pid}\n`);
    expect(statSync(pidFile).mode & 0o777).toBe(0o600);
    process.emit('SIGHUP', 'SIGHUP');
    await eventually('the restart in turn', () => (svc.log.includes('restartInTurn') ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
    expect(lines).toContain('pilothouse web: SIGHUP: restarting the components in turn');

    // Another live host under the same DIR is refused; the parent of this test process stands for it.
    writeFileSync(pidFile, `${process.ppid}\n`);
    const second: string[] = [];
    const code = await runWebCommand(
      { dataDir, port: 28423, portBase: 28430, open: false },
      { cliPath: '/x/cli.js', createServices: fakeServices().create, rendererDir, out: (l) => second.push(l), stopSignal: new Promise(() => {}) },
    );
    expect(code).toBe(1);
    expect(second.join('\n')).toMatch(new RegExp(`controlplane\\.pid names pid ${process.ppid}, which is running`));
    writeFileSync(pidFile, `${process.pid}\n`);
    stop('SIGTERM');
    expect(await done).toBe(0);
    expect(existsSync(pidFile)).toBe(false);
  });

  it('reports a taken port and disposes the services', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(28421, '127.0.0.1', r));
    try {
      const svc = fakeServices();
      const lines: string[] = [];
      const code = await runWebCommand(
        { dataDir: join(dir, 'data2'), port: 28421, portBase: 28430, open: false },
        { cliPath: '/x/cli.js', createServices: svc.create, rendererDir, out: (l) => lines.push(l), stopSignal: new Promise(() => {}) },
      );
      expect(code).toBe(1);
      expect(lines).toEqual(['pilothouse web: port 28421 on 127.0.0.1 is in use; pass --port 0 for any free port']);
      expect(svc.log).toEqual(['create web portBase=28430', 'dispose']);
    } finally {
      blocker.close();
    }
  });
});

// The session layer over real services, as the web host runs it: the console
// opens attached to three Debian etcd 3.4 members with mutual TLS (as
// `pilothouse web --etcd-endpoints ...` does), switches to the embedded lab
// (which then claims DIR/controlplane.pid and starts its plane), and back —
// each time through the same BridgeHandlers, with clusterSwitched announced,
// the overview naming the connection and whether it is writable, and the
// read-only refusals in place on the attached one.
// Ports 26720–26739: the Debian members and their API server 26720–26726, the lab 26730–26737.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeEventName, BridgeEvents, EventSink } from '../../../preload/contract';
import { createAttachedConsoleServices, createConsoleServices } from '../../../main/console/consoleServices';
import { ConsoleSessions } from '../../../main/console/consoleSessions';
import { claimPidFile } from '../../../main/controlplane/pidFile';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';
import { CLI_JS } from '../../support/cluster';
import { eventually } from '../../support/waitFor';

const ETCD_BASE = 26720;
const LAB_BASE = 26730;

class Sink implements EventSink {
  readonly seen: { name: BridgeEventName; payload: unknown }[] = [];
  emit<E extends BridgeEventName>(name: E, payload: BridgeEvents[E]): void {
    this.seen.push({ name, payload });
  }
}

let api: TestApiServer;
const dataDir = mkdtempSync(join(tmpdir(), 'pilothouse-sessions-'));
const sink = new Sink();
let sessions: ConsoleSessions;

beforeAll(async () => {
  api = await startTestApiServer(ETCD_BASE, [], 'etcd');
  const pki = api.tc.cluster.pki!;
  sessions = new ConsoleSessions({
    dataDir,
    events: sink,
    create: (t) =>
      t.attach
        ? createAttachedConsoleServices({ dataDir: t.dataDir, cliPath: CLI_JS, runtime: 'web', events: t.events, connection: t.connection, startTimeoutMs: 10_000, attach: t.attach })
        : createConsoleServices({ dataDir: t.dataDir, portBase: LAB_BASE, cliPath: CLI_JS, runtime: 'web', events: t.events, connection: t.connection, startTimeoutMs: 120_000 }),
    hostPlane: () => claimPidFile(dataDir),
  });
  sessions.open({ name: 'debian', etcd: { endpoints: api.tc.cluster.layout.map((m) => m.clientUrl), cacert: pki.ca.cert, cert: pki.client.cert, key: pki.client.key }, writable: false });
  await sessions.start();
}, 180_000);

afterAll(async () => {
  await sessions?.dispose();
  await reapApiServers();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('the session: attached Debian etcd 3.4 (mutual TLS) → the lab → back', () => {
  const h = () => sessions.handlers;

  it('opens on the attachment, saved as a connection; its members from the members themselves; read-only', async () => {
    const list = await h().listConnections();
    const debian = list.connections.find((c) => c.name === 'debian')!;
    expect(list.current).toBe(debian.id);
    expect(list.connections.map((c) => [c.name, c.kind, c.writable])).toEqual([['lab (embedded)', 'lab', true], ['debian', 'etcd', false]]);
    expect(existsSync(join(dataDir, 'controlplane.pid'))).toBe(false);
    const members = await h().members();
    expect(members.map((m) => m.name)).toEqual(['m1', 'm2', 'm3']);
    for (const m of members) expect(m.version).toMatch(/^3\.4\./);
    expect((await h().overview()).connection).toEqual({ id: debian.id, name: 'debian', writable: false });
    expect((await h().memberAction({ member: 'm1', action: 'defrag' })).message).toMatch(/defrag m1 is refused: .* read-only/);
  });

  it('switches to the lab: the attachment disposed, the plane started under DIR (claiming controlplane.pid), every call now the lab’s', async () => {
    const cur = await h().switchCluster({ id: 'lab' });
    expect(cur).toEqual({ id: 'lab', name: 'lab (embedded)', mode: 'embedded', writable: true });
    expect(sink.seen.filter((e) => e.name === 'clusterSwitched').map((e) => e.payload)).toEqual([cur]);
    expect(existsSync(join(dataDir, 'controlplane.pid'))).toBe(true);
    await eventually('the lab healthy', async () => ((await h().overview()).health === 'healthy' ? true : undefined), { timeoutMs: 120_000, intervalMs: 500 });
    const o = await h().overview();
    expect(o.mode).toBe('embedded');
    expect(o.connection).toEqual({ id: 'lab', name: 'lab (embedded)', writable: true });
    expect(o.members.map((m) => m.endpoint)).toEqual([`https://127.0.0.1:${LAB_BASE}`, `https://127.0.0.1:${LAB_BASE + 2}`, `https://127.0.0.1:${LAB_BASE + 4}`]);
    expect(o.components.map((c) => c.id)).toContain('apiserver');
  }, 180_000);

  it('and back: the lab stopped and its claim released, the Debian members shown again', async () => {
    const debian = (await h().listConnections()).connections.find((c) => c.name === 'debian')!;
    const cur = await h().switchCluster({ id: debian.id });
    expect(cur).toEqual({ id: debian.id, name: 'debian', mode: 'external', writable: false });
    expect(existsSync(join(dataDir, 'controlplane.pid'))).toBe(false);
    const members = await eventually('the members probed', async () => {
      const ms = await h().members();
      return ms.length === 3 && ms.every((m) => m.healthy) ? ms : undefined;
    }, { timeoutMs: 30_000, intervalMs: 300 });
    expect(members.map((m) => m.version.slice(0, 4))).toEqual(['3.4.', '3.4.', '3.4.']);
    expect(members.filter((m) => m.isLeader)).toHaveLength(1);
    // the lab's members are gone from their ports
    await expect(fetch(`https://127.0.0.1:${LAB_BASE}/health`).catch((err: Error) => { throw new Error(String((err.cause as Error | undefined)?.message ?? err.message)); })).rejects.toThrow(/ECONNREFUSED/);
  }, 120_000);
});

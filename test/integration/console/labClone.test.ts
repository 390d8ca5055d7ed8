// Clone into the lab, through the session the web host runs: the console
// attached to three Debian etcd 3.4 members (mutual TLS) holding Kubernetes
// objects written by Pilothouse's API server takes a snapshot of them
// (allowed read-only: it changes nothing), then `cloneIntoLab` restores the
// embedded lab's members from it and switches to the lab, which boots from
// the copy; kubectl against the lab shows the objects. Cloned again later,
// the lab's previous member dirs are set aside, not lost, and the attached
// cluster is untouched throughout.
// Ports 26780–26786 (the attached cluster and its API server), 26790–26797 (the lab).

import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeEventName, BridgeEvents, EventSink } from '../../../preload/contract';
import { createAttachedConsoleServices, createConsoleServices } from '../../../main/console/consoleServices';
import { ConsoleSessions } from '../../../main/console/consoleSessions';
import { claimPidFile } from '../../../main/controlplane/pidFile';
import { KUBECTL, reapApiServers, run, startTestApiServer, type TestApiServer } from '../../support/apiserver';
import { CLI_JS } from '../../support/cluster';
import { eventually } from '../../support/waitFor';

const LAB_BASE = 26790;

class Sink implements EventSink {
  emit<E extends BridgeEventName>(_name: E, _payload: BridgeEvents[E]): void {}
}

let api: TestApiServer;
let sessions: ConsoleSessions;
const dataDir = mkdtempSync(join(tmpdir(), 'pilothouse-clone-'));
const h = () => sessions.handlers;
const labKubectl = (args: string[]) => run(KUBECTL, args, { KUBECONFIG: join(dataDir, 'kubeconfig'), HOME: dataDir });

async function snapshotOfAttached(): Promise<string> {
  const before = new Set((await h().listSnapshots()).map((s) => s.name));
  await h().takeSnapshot();
  const snap = await eventually('a verified snapshot of the attached cluster', async () => (await h().listSnapshots()).find((s) => !before.has(s.name) && s.facts?.integrity === 'ok'), { timeoutMs: 60_000, intervalMs: 200 });
  return snap.name;
}

beforeAll(async () => {
  api = await startTestApiServer(26780, [], 'etcd');
  const pki = api.tc.cluster.pki!;
  sessions = new ConsoleSessions({
    dataDir,
    events: new Sink(),
    labPortBase: LAB_BASE,
    create: (t) =>
      t.attach
        ? createAttachedConsoleServices({ dataDir: t.dataDir, cliPath: CLI_JS, runtime: 'web', events: t.events, connection: t.connection, attach: t.attach })
        : createConsoleServices({ dataDir: t.dataDir, portBase: LAB_BASE, cliPath: CLI_JS, runtime: 'web', events: t.events, connection: t.connection, startTimeoutMs: 120_000 }),
    hostPlane: () => claimPidFile(dataDir),
  });
  sessions.open({ name: 'prod', etcd: { endpoints: api.tc.cluster.layout.map((m) => m.clientUrl), cacert: pki.ca.cert, cert: pki.client.cert, key: pki.client.key }, writable: false });
  await sessions.start();
}, 180_000);

afterAll(async () => {
  await sessions?.dispose();
  await reapApiServers();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('clone into the lab', () => {
  it('a snapshot of the attached Debian etcd cluster boots the lab, and kubectl in the lab shows its objects', async () => {
    expect((await api.kubectl(['create', 'namespace', 'shop'])).code).toBe(0);
    expect((await api.kubectl(['-n', 'shop', 'create', 'configmap', 'prices', '--from-literal=apple=3'])).code).toBe(0);
    expect((await api.kubectl(['-n', 'shop', 'create', 'secret', 'generic', 'till', '--from-literal=pin=1234'])).code).toBe(0);
    const snapshot = await snapshotOfAttached();

    const cur = await h().cloneIntoLab({ snapshot });
    expect(cur).toMatchObject({ id: 'lab', mode: 'embedded' });
    await eventually('the lab healthy on the copy', async () => ((await h().overview()).health === 'healthy' ? true : undefined), { timeoutMs: 180_000, intervalMs: 500 });
    const cm = await eventually('the copied ConfigMap served by the lab', async () => {
      const r = await labKubectl(['-n', 'shop', 'get', 'configmap', 'prices', '-o', 'jsonpath={.data.apple}']);
      return r.code === 0 ? r : undefined;
    }, { timeoutMs: 60_000, intervalMs: 500 });
    expect(cm.stdout).toBe('3');
    const secret = await labKubectl(['-n', 'shop', 'get', 'secret', 'till', '-o', 'jsonpath={.data.pin}']);
    expect(Buffer.from(secret.stdout, 'base64').toString()).toBe('1234');
    // shown the lab, a clone has nothing to copy from
    await expect(Promise.resolve().then(() => h().cloneIntoLab({ snapshot }))).rejects.toThrow('clone into the lab copies an attached cluster');
  }, 400_000);

  it('cloned again: the lab’s previous member dirs set aside, not lost; the attached cluster untouched; names checked', async () => {
    const prod = (await h().listConnections()).connections.find((c) => c.name === 'prod')!;
    await h().switchCluster({ id: prod.id });
    await eventually('attached again', async () => ((await h().members()).filter((m) => m.healthy).length === 3 ? true : undefined), { timeoutMs: 30_000, intervalMs: 300 });
    await expect(Promise.resolve().then(() => h().cloneIntoLab({ snapshot: '../../etc/passwd' }))).rejects.toThrow('invalid snapshot name');
    const snapshot = await snapshotOfAttached();
    await h().cloneIntoLab({ snapshot });
    const aside = readdirSync(dataDir).filter((n) => n.startsWith('pre-clone-'));
    expect(aside).toHaveLength(1);
    expect(readdirSync(join(dataDir, aside[0]!)).sort()).toEqual(['m1', 'm2', 'm3']);
    expect(existsSync(join(dataDir, aside[0]!, 'm1', 'member'))).toBe(true);
    await eventually('the lab healthy again', async () => ((await h().overview()).health === 'healthy' ? true : undefined), { timeoutMs: 180_000, intervalMs: 500 });
    expect((await api.kubectl(['-n', 'shop', 'get', 'configmap', 'prices'])).code).toBe(0);
  }, 400_000);
});

// Clone into the lab: the console attached to three Debian etcd 3.4 members
// (mutual TLS) that hold Kubernetes objects written by Pilothouse's API
// server takes a snapshot of them; the lab under another DIR is restored
// from it offline and started with `pilothouse up`, and kubectl in the lab
// shows the objects. The lab's previous member dirs are set aside, not lost;
// a lab another process runs is refused untouched.
// Ports 26780–26786 (the attached cluster and its API server), 26790–26796 (the lab).

import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeEventName, BridgeEvents, EventSink } from '../../../preload/contract';
import { createAttachedConsoleServices, type AttachedConsoleServices } from '../../../main/console/consoleServices';
import { cloneIntoLab } from '../../../main/console/labClone';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';
import { CLI_JS } from '../../support/cluster';
import { reapUps, startUp, type UpRun } from '../../support/upProcess';
import { eventually } from '../../support/waitFor';

const LAB_PORT_BASE = 26790;

class Sink implements EventSink {
  emit<E extends BridgeEventName>(_name: E, _payload: BridgeEvents[E]): void {}
}

let api: TestApiServer;
let svc: AttachedConsoleServices;
let lab: UpRun | undefined;
const scratch = mkdtempSync(join(tmpdir(), 'pilothouse-clone-'));
const labDir = join(scratch, 'lab');

beforeAll(async () => {
  api = await startTestApiServer(26780, [], 'etcd');
  const pki = api.tc.cluster.pki!;
  svc = createAttachedConsoleServices({
    dataDir: join(scratch, 'console'),
    cliPath: CLI_JS,
    runtime: 'web',
    events: new Sink(),
    attach: { name: 'prod', etcd: { endpoints: api.tc.cluster.layout.map((m) => m.clientUrl), cacert: pki.ca.cert, cert: pki.client.cert, key: pki.client.key }, writable: false },
  });
  await svc.start();
}, 180_000);

afterAll(async () => {
  await lab?.stop().catch(() => undefined);
  reapUps();
  await svc?.dispose();
  await reapApiServers();
  rmSync(scratch, { recursive: true, force: true });
});

describe('clone into the lab', () => {
  it('a snapshot of the attached Debian etcd cluster boots the lab, and kubectl in the lab shows its objects', async () => {
    expect((await api.kubectl(['create', 'namespace', 'shop'])).code).toBe(0);
    expect((await api.kubectl(['-n', 'shop', 'create', 'configmap', 'prices', '--from-literal=apple=3'])).code).toBe(0);
    expect((await api.kubectl(['-n', 'shop', 'create', 'secret', 'generic', 'till', '--from-literal=pin=1234'])).code).toBe(0);

    // read-only attached: a snapshot is allowed (it changes nothing)
    await svc.handlers.takeSnapshot();
    const snap = await eventually('the snapshot saved and verified', async () => (await svc.handlers.listSnapshots()).find((s) => s.facts?.integrity === 'ok'), { timeoutMs: 60_000, intervalMs: 200 });
    const file = snap.path;

    const lines: string[] = [];
    const clone = await cloneIntoLab({ dataDir: labDir, portBase: LAB_PORT_BASE, snapshotFile: file, log: (l) => lines.push(l) });
    expect(clone.setAside).toBeUndefined(); // a fresh lab: nothing to set aside
    expect(clone.facts.resources.configmaps).toBeGreaterThanOrEqual(1);
    expect(lines.filter((l) => /^m\d: restored into /.test(l))).toHaveLength(3);

    lab = startUp(LAB_PORT_BASE, [], labDir);
    await lab.waitFor(/pilothouse: control plane ready/, 180_000);
    const cm = await lab.kubectl(['-n', 'shop', 'get', 'configmap', 'prices', '-o', 'jsonpath={.data.apple}']);
    expect(cm.stdout, cm.stderr).toBe('3');
    const secret = await lab.kubectl(['-n', 'shop', 'get', 'secret', 'till', '-o', 'jsonpath={.data.pin}']);
    expect(Buffer.from(secret.stdout, 'base64').toString()).toBe('1234');
  }, 400_000);

  it('a running lab is refused untouched; a stopped one has its member dirs set aside, not lost', async () => {
    const file = (await svc.handlers.listSnapshots())[0]!.path;
    await expect(cloneIntoLab({ dataDir: labDir, portBase: LAB_PORT_BASE, snapshotFile: file })).rejects.toThrow(/the lab under .* is running \(pid \d+\)/);
    expect(await lab!.stop()).toBe(0);
    lab = undefined;
    const clone = await cloneIntoLab({ dataDir: labDir, portBase: LAB_PORT_BASE, snapshotFile: file });
    expect(clone.setAside).toMatch(/pre-clone-/);
    expect(readdirSync(clone.setAside!).sort()).toEqual(['m1', 'm2', 'm3']);
    expect(existsSync(join(clone.setAside!, 'm1', 'member'))).toBe(true);
  }, 120_000);
});

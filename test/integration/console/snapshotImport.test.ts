// Importing a snapshot of a real etcd 3.4 into the console: a Kubernetes
// keyspace made by the console's own plane, restored into Debian's etcd 3.4
// with `etcdctl snapshot restore`, given one more key there with etcdctl and
// saved back with `etcdctl snapshot save`. The console's importSnapshot
// verifies it and copies it into DIR/snapshots (0600, metadata marked
// imported); the guided restore boots the embedded cluster from it after its
// confirm gate, and then kubectl serves the snapshot's objects, not the ones
// made since, and etcdctl the key etcd 3.4 added. A damaged file is refused
// and leaves nothing behind. Ports 24110–24116 (the plane), 24130–24131 (etcd 3.4).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeEventName, BridgeEvents, EventSink, WalkthroughRun } from '../../../preload/contract';
import { createConsoleServices, type ConsoleServices } from '../../../main/console/consoleServices';
import { readMetadata } from '../../../main/backup/metadata';
import { CLI_JS, ETCD_BINARY } from '../../support/cluster';
import { ETCDCTL, etcdctl } from '../../support/etcdctl';
import { eventually } from '../../support/waitFor';

const PORT_BASE = 24110;
const ETCD_CLIENT = 24130;
const ETCD_PEER = 24131;

class Sink implements EventSink {
  readonly events: { name: BridgeEventName; payload: unknown }[] = [];
  emit<E extends BridgeEventName>(name: E, payload: BridgeEvents[E]): void {
    this.events.push({ name, payload });
  }
}

let dir: string;
let scratch: string;
let svc: ConsoleServices;
const children: ChildProcess[] = [];
const pids = new Set<number>();
const h = () => svc.handlers;

function kubectl(args: string[]): { stdout: string; stderr: string; status: number | null } {
  const r = spawnSync('/usr/bin/kubectl', args, { encoding: 'utf8', timeout: 30_000, env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') } });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}
const ctlEnv = () => ({ ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ETCDCTL_'))), ETCDCTL_API: '3' });
const mode = (f: string) => (statSync(f).mode & 0o777).toString(8);

process.env.SHELL = '/bin/sh';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pilothouse-import-'));
  scratch = mkdtempSync(join(tmpdir(), 'pilothouse-import-etcd-'));
  svc = createConsoleServices({ dataDir: dir, portBase: PORT_BASE, cliPath: CLI_JS, runtime: 'web', events: new Sink(), startTimeoutMs: 120_000 });
  await svc.start();
  svc.supervisor.components().forEach((c) => c.pid && pids.add(c.pid));
}, 150_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await svc?.dispose().catch(() => undefined);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
}, 60_000);

/** A snapshot as `etcdctl snapshot save` fetches it from Debian's etcd 3.4 serving `from` plus one key of its own. */
async function etcd34Snapshot(from: string): Promise<string> {
  const data = join(scratch, 'e1');
  const restore = spawnSync(ETCDCTL, ['snapshot', 'restore', from, '--name', 'e1', '--data-dir', data, '--initial-cluster', `e1=http://127.0.0.1:${ETCD_PEER}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${ETCD_PEER}`], { encoding: 'utf8', env: ctlEnv() });
  expect(restore.status, restore.stderr).toBe(0);
  const etcd = spawn(ETCD_BINARY, [
    '--name', 'e1', '--data-dir', data,
    '--listen-client-urls', `http://127.0.0.1:${ETCD_CLIENT}`, '--advertise-client-urls', `http://127.0.0.1:${ETCD_CLIENT}`,
    '--listen-peer-urls', `http://127.0.0.1:${ETCD_PEER}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${ETCD_PEER}`,
    '--initial-cluster', `e1=http://127.0.0.1:${ETCD_PEER}`,
  ], { stdio: 'ignore' });
  children.push(etcd);
  const endpoints = [`127.0.0.1:${ETCD_CLIENT}`];
  await eventually('etcd 3.4 accepting a put', async () => (await etcdctl(['put', 'added-by-etcd34', 'yes'], { endpoints, timeoutMs: 5000 })).code === 0, { timeoutMs: 30_000 });
  const out = join(scratch, 'from-etcd34.db');
  const save = spawnSync(ETCDCTL, [`--endpoints=${endpoints[0]}`, 'snapshot', 'save', out], { encoding: 'utf8', env: ctlEnv() });
  expect(save.status, save.stderr).toBe(0);
  await new Promise<void>((resolve) => {
    etcd.once('exit', () => resolve());
    etcd.kill('SIGTERM');
  });
  return out;
}

describe('importing a snapshot saved by etcd 3.4', () => {
  it('verifies and stores it, and the guided restore boots the cluster from it', async () => {
    expect(kubectl(['create', 'namespace', 'imported']).status).toBe(0);
    expect(kubectl(['-n', 'imported', 'create', 'configmap', 'before', '--from-literal=k=v']).status).toBe(0);
    const { jobId } = await h().takeSnapshot();
    const taken = await eventually('the snapshot saved', async () => {
      const list = await h().listSnapshots();
      return list.length === 1 && list[0]!.facts ? list[0]! : undefined;
    }, { timeoutMs: 60_000 });
    expect(jobId).toBeTruthy();
    const fromEtcd = await etcd34Snapshot(taken.path);
    expect(kubectl(['-n', 'imported', 'create', 'configmap', 'after', '--from-literal=k=v']).status).toBe(0);

    const info = await h().importSnapshot({ path: fromEtcd });
    expect(info.importedFrom).toBe(fromEtcd);
    expect(info.takenFrom).toMatchObject({ source: 'import' });
    expect(info.facts!.resources['/registry/configmaps']).toBeGreaterThanOrEqual(1);
    expect(info.facts!.nonRegistryKeys).toBeGreaterThanOrEqual(1);
    expect(mode(info.path)).toBe('600');
    expect(readFileSync(info.path).equals(readFileSync(fromEtcd))).toBe(true);
    expect(readMetadata(info.path)).toMatchObject({ source: 'import', importedFrom: fromEtcd });

    let run: WalkthroughRun = await h().startWalkthrough({ kind: 'restore', snapshot: info.name });
    run = await eventually('the restore waiting at its gate', async () => {
      const r = (await h().listWalkthroughs()).find((x) => x.id === run.id)!;
      return r.state === 'waiting' && r;
    }, { timeoutMs: 60_000 });
    // nothing has stopped before the confirmation
    expect(kubectl(['-n', 'imported', 'get', 'configmap', 'after']).status).toBe(0);
    await h().walkthroughAction({ id: run.id, action: 'confirm' });
    run = await eventually('the restore ended', async () => {
      const r = (await h().listWalkthroughs()).find((x) => x.id === run.id)!;
      return r.state !== 'running' && r.state !== 'waiting' && r;
    }, { timeoutMs: 180_000, intervalMs: 250 });
    expect(run.state, run.reason).toBe('succeeded');
    svc.supervisor.components().forEach((c) => c.pid && pids.add(c.pid));

    const names = await eventually('kubectl serving the imported objects', () => {
      const r = kubectl(['-n', 'imported', 'get', 'configmaps', '-o', 'jsonpath={.items[*].metadata.name}']);
      return r.status === 0 && r.stdout.split(' ').includes('before') && r.stdout;
    }, { timeoutMs: 60_000, intervalMs: 250 });
    expect(names.split(' ')).not.toContain('after');
    const env = svc.cluster.etcdctlEnv();
    const got = spawnSync(ETCDCTL, ['get', 'added-by-etcd34', '--print-value-only'], { encoding: 'utf8', env: { ...ctlEnv(), ...env } });
    expect(got.stdout.trim(), got.stderr).toBe('yes');
  }, 400_000);

  it('refuses a damaged file and writes nothing', async () => {
    const before = readdirSync(join(dir, 'snapshots')).sort();
    const cut = join(scratch, 'cut.db');
    copyFileSync(join(dir, 'snapshots', before.find((n) => n.endsWith('.db'))!), cut);
    truncateSync(cut, 5000);
    await expect(Promise.resolve().then(() => h().importSnapshot({ path: cut }))).rejects.toThrow(/damaged|truncated/);
    await expect(Promise.resolve().then(() => h().importSnapshot({ path: join(scratch, 'missing.db') }))).rejects.toThrow(/no such file/);
    await expect(Promise.resolve().then(() => h().importSnapshot({ path: 'relative.db' }))).rejects.toThrow(/absolute path/);
    expect(readdirSync(join(dir, 'snapshots')).sort()).toEqual(before);
  });
});

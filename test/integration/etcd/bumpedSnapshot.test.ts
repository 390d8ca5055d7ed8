// A cluster restored with --bump-revision N --mark-compacted that got no write
// since keeps its last rows below the bumped revision: only meta's
// finishedCompactRev/scheduledCompactRev carry it. A snapshot saved from it
// must come back at the bumped revision both on a Pilothouse member restored
// from it and on Debian's etcd 3.4 after `etcdctl snapshot restore` (whose
// kvstore.restore raises currentRev to compactMainRev), while `snapshot
// status` prints, as etcdctl does, the last key row's revision.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_JS, ETCD_BINARY } from '../../support/cluster';
import { ETCDCTL, etcdctl } from '../../support/etcdctl';
import { eventually } from '../../support/waitFor';

const FIXTURE = join(__dirname, '../../fixtures/etcd/etcd34-snapshot.db'); // at revision 7
const CLIENT = 24100;
const PEER = 24101;
const dir = mkdtempSync(join(tmpdir(), 'pilothouse-bumped-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const memberFlags = (name: string, dataDir: string) => [
  '--name', name, '--data-dir', dataDir,
  '--listen-client-urls', `http://127.0.0.1:${CLIENT}`, '--advertise-client-urls', `http://127.0.0.1:${CLIENT}`,
  '--listen-peer-urls', `http://127.0.0.1:${PEER}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${PEER}`,
  '--initial-cluster', `${name}=http://127.0.0.1:${PEER}`,
];
const restoreFlags = (name: string, dataDir: string) => [
  '--name', name, '--data-dir', dataDir, '--initial-cluster', `${name}=http://127.0.0.1:${PEER}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${PEER}`,
];

function cli(args: string[]): string {
  const r = spawnSync(process.execPath, [CLI_JS, ...args], { encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

/** Starts a one-member cluster, waits for a read, returns its header revision and a stop function. */
async function serve(cmd: string, args: string[]): Promise<{ revision: number; stop: () => Promise<void> }> {
  const child = spawn(cmd, args, { stdio: 'ignore' });
  children.push(child);
  const endpoints = [`127.0.0.1:${CLIENT}`];
  const revision = await eventually(`${cmd} serving a read`, async () => {
    const r = await etcdctl(['get', 'a', '-w', 'json'], { endpoints, timeoutMs: 5000 });
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { header: { revision: number } }).header.revision;
  }, { timeoutMs: 30_000 });
  const stop = () => new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
  return { revision, stop };
}

describe('a snapshot of a bumped cluster with no write since', () => {
  it('is served at the bumped revision by Pilothouse and by etcd 3.4', async () => {
    cli(['snapshot', 'restore', FIXTURE, ...restoreFlags('m1', join(dir, 'bumped')), '--bump-revision', '100', '--mark-compacted']);
    const bumped = await serve(process.execPath, [CLI_JS, 'etcd', ...memberFlags('m1', join(dir, 'bumped'))]);
    expect(bumped.revision).toBe(107);
    const saved = join(dir, 'saved.db');
    const save = spawnSync(ETCDCTL, [`--endpoints=127.0.0.1:${CLIENT}`, 'snapshot', 'save', saved], { encoding: 'utf8', env: { ...process.env, ETCDCTL_API: '3' } });
    expect(save.status, save.stderr).toBe(0);
    await bumped.stop();

    // etcdctl's REVISION is the last key row's; the bump is in meta only
    const status = spawnSync(ETCDCTL, ['snapshot', 'status', saved, '-w', 'json'], { encoding: 'utf8', env: { ...process.env, ETCDCTL_API: '3' } });
    expect(JSON.parse(status.stdout)).toMatchObject({ revision: 7 });
    expect(JSON.parse(cli(['snapshot', 'status', saved, '-w', 'json']))).toMatchObject({ revision: 7 });
    expect(cli(['backup', 'verify', saved])).toMatch(/^revision: 107$/m);

    cli(['snapshot', 'restore', saved, ...restoreFlags('m1', join(dir, 'again'))]);
    const again = await serve(process.execPath, [CLI_JS, 'etcd', ...memberFlags('m1', join(dir, 'again'))]);
    expect(again.revision).toBe(107);
    await again.stop();

    const r = spawnSync(ETCDCTL, ['snapshot', 'restore', saved, ...restoreFlags('e1', join(dir, 'etcd'))], { encoding: 'utf8', env: { ...process.env, ETCDCTL_API: '3' } });
    expect(r.status, r.stderr).toBe(0);
    const etcd = await serve(ETCD_BINARY, memberFlags('e1', join(dir, 'etcd')));
    expect(etcd.revision).toBe(107);
    await etcd.stop();
  }, 120_000);
});

// Snapshots between Pilothouse and Debian's etcd 3.4, both ways, through the
// real tools: a Pilothouse member's `etcdctl snapshot save` file is read by
// etcdctl's own `snapshot status`, restored by `etcdctl snapshot restore` and
// served by /usr/bin/etcd; a file saved from /usr/bin/etcd is read by
// `pilothouse snapshot status` (same output as etcdctl's), restored by
// `pilothouse snapshot restore` and served by three Pilothouse members. Each
// side's `etcdctl get "" --prefix -w json` must agree on keys, values,
// create/mod revisions, versions and leases.
// Ports 23500–23599: Pilothouse source on 23500, etcd restored on 23520,
// etcd source on 23540, Pilothouse restored on 23560.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalCluster } from '../../../main/controlplane/localCluster';
import { CLI_JS, memberLogTails, programFor } from '../../support/cluster';
import { ETCDCTL, etcdctl, parseJsonWithBigIds, type CtlResult } from '../../support/etcdctl';

const clusters: LocalCluster[] = [];
const dir = mkdtempSync(join(tmpdir(), 'pilothouse-interop-'));
afterAll(async () => {
  for (const c of clusters) c.killAll();
  await Promise.all(clusters.flatMap((c) => [...c.members.values()].map((m) => m.waitExit())));
  rmSync(dir, { recursive: true, force: true });
});

function run(command: string, args: string[]): Promise<CtlResult> {
  return new Promise((resolve) => {
    execFile(command, args, { env: { ...process.env, ETCDCTL_API: '3' }, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ stdout, stderr, code: err === null ? 0 : typeof err.code === 'number' ? err.code : null });
    });
  });
}
const pilothouse = (args: string[]) => run(process.execPath, [CLI_JS, ...args]);
const etcdctlOffline = (args: string[]) => run(ETCDCTL, args);

async function startCluster(name: string, impl: 'etcd' | 'pilothouse', portBase: number, members: number, started = true): Promise<LocalCluster> {
  const c = new LocalCluster({ dataDir: join(dir, name), members, portBase, program: programFor(impl), clusterToken: `interop-${name}` });
  clusters.push(c);
  if (!started) return c;
  await c.start();
  const ready = await c.waitReady(20_000);
  expect(ready.ok, memberLogTails(c)).toBe(true);
  return c;
}

async function ctl(c: LocalCluster, args: string[]): Promise<string> {
  const r = await etcdctl(args, { endpoints: c.endpoints, timeoutMs: 30_000 });
  expect(r.code, `etcdctl ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

/** A history with overwrites, deletes, a lease, a compaction and values that need overflow pages. */
async function writeHistory(c: LocalCluster): Promise<void> {
  for (let i = 0; i < 40; i++) await ctl(c, ['put', `/registry/pods/default/p${i}`, `pod-${i}`]);
  for (let i = 0; i < 10; i++) await ctl(c, ['put', `/registry/pods/default/p${i}`, `pod-${i}-v2`]);
  await ctl(c, ['del', '/registry/pods/default/p3']);
  await ctl(c, ['del', '/registry/pods/default/p2', '--prefix']); // p2, p20–p29
  const lease = /lease ([0-9a-f]+) granted/.exec(await ctl(c, ['lease', 'grant', '900']))![1]!;
  await ctl(c, ['put', '--lease', lease, '/registry/leases/kube-system/holder', 'me']);
  await ctl(c, ['put', 'big/one', 'B'.repeat(20_000)]);
  await ctl(c, ['put', 'big/two', 'C'.repeat(70_000)]);
  const head = JSON.parse(await ctl(c, ['get', 'big/two', '-w', 'json'])) as { header: { revision: number } };
  await ctl(c, ['compact', String(head.header.revision - 3)]);
  await ctl(c, ['put', '/registry/pods/default/p0', 'pod-0-v3']);
}

interface Kv {
  key: string;
  value: string;
  create_revision: number;
  mod_revision: number;
  version: number;
  lease?: string;
}

async function everything(c: LocalCluster): Promise<{ revision: number; kvs: Kv[] }> {
  const out = parseJsonWithBigIds(await ctl(c, ['get', '', '--prefix', '-w', 'json'])) as { header: { revision: number }; kvs: Kv[] };
  return { revision: out.header.revision, kvs: out.kvs.map((kv) => ({ ...kv, lease: kv.lease === undefined ? undefined : String(kv.lease) })) };
}

async function save(c: LocalCluster, file: string): Promise<void> {
  const r = await etcdctl(['snapshot', 'save', file], { endpoints: [c.endpoints[0]!], timeoutMs: 60_000 });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toBe(`Snapshot saved at ${file}\n`);
}

describe('snapshot interop with etcd 3.4', () => {
  it('a Pilothouse snapshot: etcdctl status reads it, etcdctl restore + etcd serve it with the same revisions', async () => {
    const source = await startCluster('ph-source', 'pilothouse', 23500, 3);
    await writeHistory(source);
    const want = await everything(source);
    const file = join(dir, 'pilothouse.db');
    await save(source, file);

    const status = await etcdctlOffline(['snapshot', 'status', file, '-w', 'json']);
    expect(status.code, status.stderr).toBe(0);
    const st = JSON.parse(status.stdout) as { hash: number; revision: number; totalKey: number; totalSize: number };
    expect(st.revision).toBe(want.revision);
    expect(st.totalKey).toBeGreaterThan(want.kvs.length);
    const ours = await pilothouse(['snapshot', 'status', file, '-w', 'json']);
    expect(ours.stdout).toBe(status.stdout);

    const target = await startCluster('etcd-restored', 'etcd', 23520, 1, false);
    const m = target.layout[0]!;
    const restore = await etcdctlOffline([
      'snapshot', 'restore', file,
      '--name', m.name, '--data-dir', m.dataDir,
      '--initial-cluster', `${m.name}=${m.peerUrl}`, '--initial-advertise-peer-urls', m.peerUrl,
      '--initial-cluster-token', 'interop-etcd-restored',
    ]); // prettier-ignore
    expect(restore.code, restore.stderr).toBe(0);
    await target.start();
    expect((await target.waitReady(20_000)).ok, memberLogTails(target)).toBe(true);
    expect(await everything(target)).toEqual(want);
    // history below the compaction is gone there too, and new writes continue the revisions
    const old = await etcdctl(['get', 'big/one', '--rev', '2'], { endpoints: target.endpoints });
    expect(old.stderr).toContain('required revision has been compacted');
    const put = JSON.parse(await ctl(target, ['put', 'after', 'x', '-w', 'json'])) as { header: { revision: number } };
    expect(put.header.revision).toBe(want.revision + 1);
  }, 120_000);

  it('an etcd 3.4 snapshot: pilothouse status prints what etcdctl does; restore + Pilothouse members serve it', async () => {
    const source = await startCluster('etcd-source', 'etcd', 23540, 1);
    await writeHistory(source);
    const want = await everything(source);
    const file = join(dir, 'etcd.db');
    await save(source, file);

    for (const format of ['json', 'table', 'simple']) {
      const theirs = await etcdctlOffline(['snapshot', 'status', file, '-w', format]);
      expect(theirs.code, theirs.stderr).toBe(0);
      const ours = await pilothouse(['snapshot', 'status', file, '-w', format]);
      expect(ours.code, ours.stderr).toBe(0);
      expect(ours.stdout, format).toBe(theirs.stdout);
    }

    const target = await startCluster('ph-restored', 'pilothouse', 23560, 3, false);
    const initialCluster = target.layout.map((m) => `${m.name}=${m.peerUrl}`).join(',');
    for (const m of target.layout) {
      const r = await pilothouse([
        'snapshot', 'restore', file,
        '--name', m.name, '--data-dir', m.dataDir,
        '--initial-cluster', initialCluster, '--initial-advertise-peer-urls', m.peerUrl,
        '--initial-cluster-token', 'interop-ph-restored',
      ]); // prettier-ignore
      expect(r.code, r.stderr).toBe(0);
    }
    await target.start();
    expect((await target.waitReady(20_000)).ok, memberLogTails(target)).toBe(true);
    expect(await everything(target)).toEqual(want);
    const old = await etcdctl(['get', 'big/one', '--rev', '2'], { endpoints: target.endpoints });
    expect(old.stderr).toContain('required revision has been compacted');
    const leases = await ctl(target, ['lease', 'list']);
    expect(leases).toMatch(/found 1 leases/);
    const put = JSON.parse(await ctl(target, ['put', 'after', 'x', '-w', 'json'])) as { header: { revision: number } };
    expect(put.header.revision).toBe(want.revision + 1);
  }, 120_000);
});

// Maintenance: endpoint hashkv, snapshot save / status / restore into a
// new cluster, defrag and move-leader, driven by Debian's etcdctl 3.4 (and,
// for the offline snapshot commands, `pilothouse snapshot`; etcdctl's own
// when PILOTHOUSE_TEST_IMPL=etcd, since etcd's files are bbolt databases).
// Ports 24900–24999: the cluster on 24900, the restored one on 24910, the
// one with a tiny --quota-backend-bytes on 24920.

import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalCluster } from '../../../main/controlplane/localCluster';
import { CLI_JS, memberLogTails, programFor, reapClusters, startTestCluster, TARGET, waitForLeader, type TestCluster } from '../../support/cluster';
import { ETCDCTL, etcdctl, parseJsonWithBigIds, type CtlResult } from '../../support/etcdctl';

const PORT_BASE = 24900;
const RESTORED_PORT_BASE = 24910;
const QUOTA_PORT_BASE = 24920;

/** `pilothouse snapshot …`, or `etcdctl snapshot …` when testing Debian's etcd. */
function snapshotCli(args: string[]): Promise<CtlResult> {
  const [command, argv] = TARGET === 'etcd' ? [ETCDCTL, ['snapshot', ...args]] : [process.execPath, [CLI_JS, 'snapshot', ...args]];
  return new Promise((resolve) => {
    execFile(command, argv, { env: { ...process.env, ETCDCTL_API: '3' }, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
      resolve({ stdout, stderr, code });
    });
  });
}

interface HashKvRow {
  Endpoint: string;
  HashKV: { header: { revision: number }; hash: number; compact_revision: number };
}

/** `endpoint hashkv --cluster -w json`, retried until every member reports the same revision and hash. */
async function agreedHashKv(endpoints: string[]): Promise<HashKvRow[]> {
  let rows: HashKvRow[] = [];
  for (let i = 0; i < 50; i++) {
    const r = await etcdctl(['endpoint', 'hashkv', '--cluster', '-w', 'json'], { endpoints });
    if (r.code === 0) {
      rows = parseJsonWithBigIds(r.stdout) as HashKvRow[];
      const hashes = new Set(rows.map((x) => `${x.HashKV.header.revision}/${x.HashKV.hash}`));
      if (rows.length === 3 && hashes.size === 1) return rows;
    }
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`hashkv never agreed: ${JSON.stringify(rows)}`);
}

interface DbStatus {
  dbSize: number;
  dbSizeInUse: number;
}

async function dbStatus(endpoint: string): Promise<DbStatus> {
  const r = await etcdctl(['endpoint', 'status', '-w', 'json'], { endpoints: [endpoint] });
  expect(r.code, r.stderr).toBe(0);
  const [row] = parseJsonWithBigIds(r.stdout) as { Status: DbStatus }[];
  return { dbSize: row!.Status.dbSize, dbSizeInUse: row!.Status.dbSizeInUse };
}

describe(`maintenance (${TARGET})`, () => {
  let tc: TestCluster;
  let restored: LocalCluster | undefined;
  beforeAll(async () => {
    tc = await startTestCluster(TARGET, PORT_BASE);
  });
  afterAll(async () => {
    if (restored) {
      restored.killAll();
      await Promise.all([...restored.members.values()].map((m) => m.waitExit()));
    }
    await reapClusters();
  });

  it('endpoint hashkv --cluster: one hash on every member', async () => {
    for (let i = 0; i < 5; i++) expect((await etcdctl(['put', `hk${i}`, `v${i}`], { endpoints: tc.endpoints })).code).toBe(0);
    const rows = await agreedHashKv(tc.endpoints);
    expect(rows.map((r) => r.Endpoint).sort()).toEqual(tc.endpoints.map((e) => `http://${e}`).sort());
    expect(rows[0]!.HashKV.compact_revision).toBe(-1);
    expect(rows[0]!.HashKV.hash).not.toBe(0);
    const simple = await etcdctl(['endpoint', 'hashkv'], { endpoints: [tc.endpoints[0]!] });
    expect(simple.stdout).toBe(`${tc.endpoints[0]}, ${rows[0]!.HashKV.hash}\n`);

    // the JSON gateway: /hash answers Hash (not HashKV); Alarm and Defragment carry no header
    const post = async (path: string) => {
      const res = await fetch(`http://${tc.endpoints[0]}/v3/maintenance/${path}`, { method: 'POST', body: '{}' });
      return (await res.json()) as Record<string, unknown>;
    };
    const hash = await post('hash');
    expect(Object.keys(hash).sort()).toEqual(['hash', 'header']);
    expect(typeof hash.hash).toBe('number');
    expect(await post('alarm')).toEqual({});
    expect(await post('defragment')).toEqual({});
  });

  it('snapshot save, status, and restore into a new three-member cluster', async () => {
    for (let i = 0; i < 20; i++) expect((await etcdctl(['put', `snap/${i}`, `value-${i}`], { endpoints: tc.endpoints })).code).toBe(0);
    const file = join(tc.dir, 'backup.db');
    const save = await etcdctl(['snapshot', 'save', file], { endpoints: [tc.endpoints[1]!], timeoutMs: 30_000 });
    expect(save.code, save.stderr).toBe(0);
    expect(save.stdout).toBe(`Snapshot saved at ${file}\n`);
    expect(statSync(file).size % 512).toBe(32);

    const head = await etcdctl(['get', 'snap/0', '-w', 'json'], { endpoints: [tc.endpoints[1]!] });
    const revision = (JSON.parse(head.stdout) as { header: { revision: number } }).header.revision;
    const json = await snapshotCli(['status', file, '-w', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const st = JSON.parse(json.stdout) as { hash: number; revision: number; totalKey: number; totalSize: number };
    expect(st.revision).toBe(revision);
    expect(st.totalSize).toBe(statSync(file).size - 32);
    expect(st.totalKey).toBeGreaterThanOrEqual(25);
    const table = await snapshotCli(['status', file, '-w', 'table']);
    expect(table.stdout.split('\n')[1]).toBe('|   HASH   | REVISION | TOTAL KEYS | TOTAL SIZE |');
    expect(table.stdout.split('\n')[3]).toMatch(new RegExp(`^\\| [ 0-9a-f]{8} \\| +${revision} \\| +${st.totalKey} \\| +[0-9.]+ kB \\|$`));

    restored = new LocalCluster({
      dataDir: join(tc.dir, 'restored'),
      portBase: RESTORED_PORT_BASE,
      program: programFor(TARGET),
      clusterToken: 'it-restored',
    });
    const initialCluster = restored.layout.map((m) => `${m.name}=${m.peerUrl}`).join(',');
    for (const m of restored.layout) {
      const r = await snapshotCli([
        'restore', file,
        '--name', m.name,
        '--data-dir', m.dataDir,
        '--initial-cluster', initialCluster,
        '--initial-cluster-token', 'it-restored',
        '--initial-advertise-peer-urls', m.peerUrl,
      ]); // prettier-ignore
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(join(m.dataDir, 'member', 'wal'))).toBe(true);
    }
    const again = await snapshotCli(['restore', file, '--data-dir', restored.layout[0]!.dataDir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`Error: data-dir "${restored.layout[0]!.dataDir}" exists`);

    await restored.start();
    const ready = await restored.waitReady(20_000);
    expect(ready.ok, memberLogTails(restored)).toBe(true);
    const got = await etcdctl(['get', 'snap/', '--prefix', '--keys-only'], { endpoints: restored.endpoints });
    expect(got.stdout.split('\n').filter((l) => l !== '')).toHaveLength(20);
    const value = await etcdctl(['get', 'hk3', '--print-value-only'], { endpoints: restored.endpoints });
    expect(value.stdout).toBe('v3\n');
    // a new logical cluster: its own ids, not the old members'
    const oldIds = await etcdctl(['member', 'list', '-w', 'json'], { endpoints: tc.endpoints });
    const newIds = await etcdctl(['member', 'list', '-w', 'json'], { endpoints: restored.endpoints });
    const clusterOf = (s: string) => String((parseJsonWithBigIds(s) as { header: { cluster_id: string } }).header.cluster_id);
    expect(clusterOf(newIds.stdout)).not.toBe(clusterOf(oldIds.stdout));
    expect((await etcdctl(['put', 'after-restore', 'x'], { endpoints: restored.endpoints })).code).toBe(0);
    await agreedHashKv(restored.endpoints);
  }, 90_000);

  it('snapshot restore refuses a corrupt file with etcd’s checksum error', async () => {
    const file = join(tc.dir, 'backup.db');
    const { readFileSync, writeFileSync } = await import('node:fs');
    const bytes = readFileSync(file);
    bytes[1000] = bytes[1000]! ^ 0xff;
    const bad = join(tc.dir, 'bad.db');
    writeFileSync(bad, bytes);
    const r = await snapshotCli(['restore', bad, '--data-dir', join(tc.dir, 'never')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Error: expected sha256 \[(\d+ ){31}\d+\], got \[(\d+ ){31}\d+\]/);
  });

  it('defrag: compaction frees space inside the db, defrag returns it', async () => {
    const big = 'x'.repeat(20_000);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 20; i++) expect((await etcdctl(['put', `big/${i}`, `${round}${big}`], { endpoints: tc.endpoints })).code).toBe(0);
    }
    const rev = await etcdctl(['get', 'big/0', '-w', 'json'], { endpoints: tc.endpoints });
    const current = (JSON.parse(rev.stdout) as { header: { revision: number } }).header.revision;
    expect((await etcdctl(['compaction', '--physical', String(current)], { endpoints: tc.endpoints })).code).toBe(0);
    const ep = tc.endpoints[0]!;
    const before = await dbStatus(ep);
    expect(before.dbSizeInUse).toBeLessThan(before.dbSize);
    const r = await etcdctl(['defrag'], { endpoints: [ep] });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Finished defragmenting etcd member[${ep}]\n`);
    const after = await dbStatus(ep);
    expect(after.dbSize).toBeLessThan(before.dbSize);
    expect(after.dbSizeInUse).toBeLessThanOrEqual(after.dbSize);
  });

  it('move-leader hands leadership to the named member', async () => {
    const leader = await waitForLeader(tc.endpoints, 5_000);
    const all = await etcdctl(['endpoint', 'status', '-w', 'json'], { endpoints: tc.endpoints });
    const ids = (parseJsonWithBigIds(all.stdout) as { Status: { header: { member_id: string } } }[]).map((s) => BigInt(s.Status.header.member_id));
    const target = ids.find((id) => id !== BigInt(leader.memberId))!;
    const hex = (id: bigint) => id.toString(16);
    const r = await etcdctl(['move-leader', hex(target)], { endpoints: tc.endpoints });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Leadership transferred from ${hex(BigInt(leader.memberId))} to ${hex(target)}\n`);
    const now = await waitForLeader(tc.endpoints, 5_000);
    expect(BigInt(now.memberId)).toBe(target);

    const bad = await etcdctl(['move-leader', '1234'], { endpoints: tc.endpoints });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Error: etcdserver: bad leader transferee');
  });
});

describe(`NOSPACE alarm (${TARGET})`, () => {
  let cluster: LocalCluster;
  let endpoints: string[];
  const ctl = (args: string[], stdin?: string) => etcdctl(args, { endpoints, stdin });
  beforeAll(async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    cluster = new LocalCluster({
      dataDir: mkdtempSync(join(tmpdir(), `pilothouse-it-quota-${TARGET}-`)),
      portBase: QUOTA_PORT_BASE,
      program: programFor(TARGET),
      clusterToken: 'it-quota',
      extraFlags: ['--quota-backend-bytes', '300000'],
    });
    await cluster.start();
    const ready = await cluster.waitReady(20_000);
    expect(ready.ok, memberLogTails(cluster)).toBe(true);
    endpoints = cluster.endpoints;
  });
  afterAll(async () => {
    cluster.killAll();
    await Promise.all([...cluster.members.values()].map((m) => m.waitExit()));
    const { rmSync } = await import('node:fs');
    rmSync(cluster.opts.dataDir, { recursive: true, force: true });
  });

  it('a full database raises NOSPACE; compact + defrag + alarm disarm recover', async () => {
    const big = 'x'.repeat(20_000);
    let failure: CtlResult | undefined;
    for (let i = 0; i < 40 && failure === undefined; i++) {
      const r = await ctl(['put', 'q', `${i}${big}`]);
      if (r.code !== 0) failure = r;
    }
    expect(failure, 'the quota never filled').toBeDefined();
    expect(failure!.stderr).toContain('Error: etcdserver: mvcc: database space exceeded');

    const list = await ctl(['alarm', 'list']);
    expect(list.code).toBe(0);
    const alarms = list.stdout.split('\n').filter((l) => l !== '');
    expect(alarms.length).toBeGreaterThanOrEqual(1);
    for (const a of alarms) expect(a).toMatch(/^memberID:\d+ alarm:NOSPACE $/);
    const status = await etcdctl(['endpoint', 'status', '-w', 'json'], { endpoints: [endpoints[0]!] });
    const [row] = parseJsonWithBigIds(status.stdout) as { Status: { errors: string[] } }[];
    expect(row!.Status.errors).toEqual(alarms);

    // capped: writes fail, reads and deletes work
    expect((await ctl(['put', 'small', 'v'])).stderr).toContain('etcdserver: mvcc: database space exceeded');
    expect((await ctl(['lease', 'grant', '10'])).stderr).toContain('Error: failed to grant lease (etcdserver: mvcc: database space exceeded)');
    expect((await ctl(['get', 'q', '--print-value-only'])).stdout.length).toBeGreaterThan(20_000);
    expect((await ctl(['put', 'gone', 'v'])).code).toBe(1);
    expect((await ctl(['del', 'nothing-here'])).stdout).toBe('0\n');

    const head = await ctl(['get', 'q', '-w', 'json']);
    const rev = (JSON.parse(head.stdout) as { header: { revision: number } }).header.revision;
    expect((await ctl(['compaction', '--physical', String(rev)])).code).toBe(0);
    const defrag = await ctl(['defrag']);
    expect(defrag.code, defrag.stderr).toBe(0);
    expect((await ctl(['put', 'small', 'v'])).code).toBe(1); // the alarm stays until disarmed

    // later refusals may have raised NOSPACE for other members too
    const active = (await ctl(['alarm', 'list'])).stdout;
    expect(active).toContain(alarms[0]!);
    const disarm = await ctl(['alarm', 'disarm']);
    expect(disarm.code, disarm.stderr).toBe(0);
    expect(disarm.stdout.split('\n').sort()).toEqual(active.split('\n').sort());
    expect((await ctl(['alarm', 'list'])).stdout).toBe('');
    const put = await ctl(['put', 'small', 'v']);
    expect(put.stdout, put.stderr).toBe('OK\n');
  }, 60_000);
});

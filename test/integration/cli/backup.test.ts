// `pilothouse backup save|list|verify` against a real `pilothouse up` plane,
// run as an operator runs them (the built CLI), checked with the real
// clients: etcdctl for the leader and health, kubectl for object counts.
//
// A snapshot of a non-Kubernetes keyspace is a sound etcd snapshot: verify
// accepts it (exit 0) and warns on stderr that it holds no /registry keys
// (the drill and the restore are the ones to refuse it).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataDirAccess } from '../../../main/backup/clusterAccess';
import { saveSnapshot, SaveCancelled } from '../../../main/backup/save';
import { CLI_JS } from '../../support/cluster';
import { etcdctl } from '../../support/etcdctl';
import { snapshotFileOf } from '../../support/snapshotFixture';
import { reapUps, startUp, type UpRun } from '../../support/upProcess';
import { eventually } from '../../support/waitFor';

const PORT_BASE = 23800;
let up: UpRun;
const scratch = mkdtempSync(join(tmpdir(), 'pilothouse-backup-'));
const children = new Set<ChildProcess>();

function cli(args: string[], timeout = 90_000): { stdout: string; stderr: string; status: number | null } {
  const r = spawnSync(process.execPath, [CLI_JS, ...args], { encoding: 'utf8', timeout });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

const mode = (f: string) => (statSync(f).mode & 0o777).toString(8);
const snapshotsDir = () => join(up.dir, 'snapshots');

async function leaderName(): Promise<string> {
  const r = await up.etcdctl(['endpoint', 'status', '-w', 'json']);
  const rows = JSON.parse(r.stdout) as { Endpoint: string; Status: { header: { member_id: number }; leader: number } }[];
  const leader = rows.find((s) => s.Status.header.member_id === s.Status.leader)!;
  return `m${up.endpoints.indexOf(leader.Endpoint) + 1}`;
}

/** Objects of a resource through the API server, at exactly the snapshot's revision. */
async function kubectlCount(path: string, revision: number): Promise<number> {
  const r = await up.kubectl(['get', '--raw', `${path}?resourceVersion=${revision}&resourceVersionMatch=Exact`]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { items: unknown[] }).items.length;
}

beforeAll(async () => {
  up = startUp(PORT_BASE);
  await up.waitFor(/pilothouse: control plane ready/, 120_000);
  expect((await up.kubectl(['create', 'namespace', 'backup-test'])).code).toBe(0);
  for (let i = 0; i < 5; i++) expect((await up.kubectl(['-n', 'backup-test', 'create', 'configmap', `c${i}`, `--from-literal=k=${i}`])).code).toBe(0);
  expect((await up.kubectl(['-n', 'backup-test', 'create', 'secret', 'generic', 's1', '--from-literal=p=x'])).code).toBe(0);
}, 180_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  if (up) await up.stop().catch(() => undefined);
  reapUps();
  rmSync(scratch, { recursive: true, force: true });
});

describe('pilothouse backup', () => {
  let saved: string;

  it('save: preflight, snapshot from the leader, verify, store; file 0600 with metadata and a report', async () => {
    const leader = await leaderName();
    const r = cli(['backup', 'save', '--data-dir', up.dir]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    for (const step of ['[1/4] Preflight', '[2/4] Snapshot from the leader', '[3/4] Verify the snapshot', '[4/4] Store with its metadata']) expect(r.stdout).toContain(step);
    expect(r.stdout).toMatch(/✓ 3\/3 members healthy, leader m\d, no alarms, DB .* quota/);
    expect(r.stdout).toMatch(/\$ etcdctl --endpoints=https:\/\/127\.0\.0\.1:\d+ --cacert=.*snapshot save /);
    const files = readdirSync(snapshotsDir()).filter((f) => f.endsWith('.db'));
    expect(files).toHaveLength(1);
    saved = join(snapshotsDir(), files[0]!);
    expect(mode(saved), 'a snapshot holds every Secret').toBe('600');
    expect(mode(`${saved}.json`)).toBe('600');
    expect(readdirSync(snapshotsDir()).filter((f) => f.endsWith('.part'))).toEqual([]);

    const meta = JSON.parse(readFileSync(`${saved}.json`, 'utf8'));
    expect(meta).toMatchObject({ member: leader, source: 'save', facts: { file: saved, integrity: 'ok', sizeBytes: statSync(saved).size } });
    expect(meta.clusterId).toMatch(/^[0-9a-f]{16}$/);
    const facts = meta.facts;
    expect(facts.resources['/registry/configmaps']).toBe(await kubectlCount('/api/v1/configmaps', facts.revision));
    expect(facts.resources['/registry/namespaces']).toBe(await kubectlCount('/api/v1/namespaces', facts.revision));
    expect(facts.resources['/registry/secrets']).toBe(await kubectlCount('/api/v1/secrets', facts.revision));
    expect(facts.resources['/registry/configmaps']).toBeGreaterThanOrEqual(5);
    const keys = await up.etcdctl(['get', '', '--prefix', '--keys-only', `--rev=${facts.revision}`]);
    expect(facts.totalKeys).toBe(keys.stdout.split('\n').filter((l) => l !== '').length);

    const report = /Report: (\S+)/.exec(r.stdout)![1]!;
    expect(report.startsWith(join(up.dir, 'walkthroughs'))).toBe(true);
    const md = readFileSync(report, 'utf8');
    expect(md).toContain('**succeeded**');
    expect(md).toContain(`| revision | ${facts.revision} |`);
    expect(md).toContain(`| /registry/configmaps | ${facts.resources['/registry/configmaps']} |`);
    const run = JSON.parse(readFileSync(report.replace(/report\.md$/, 'report.json'), 'utf8'));
    expect(run).toMatchObject({ kind: 'backup', state: 'succeeded', figures: { sha256: facts.sha256, totalKeys: facts.totalKeys } });
  }, 120_000);

  it('save --member --out -w json: streams from the named member into the named file', async () => {
    const out = join(scratch, 'from-m2.db');
    const r = cli(['backup', 'save', '--data-dir', up.dir, '--member', 'm2', '--out', out, '-w', 'json']);
    expect(r.status, r.stderr).toBe(0);
    const run = JSON.parse(r.stdout);
    expect(run.state).toBe('succeeded');
    expect(run.steps.map((s: { command: string }) => s.command)[1]).toBe(
      `etcdctl --endpoints=${up.endpoints[1]} --cacert=${join(up.dir, 'pki', 'ca.crt')} --cert=${join(up.dir, 'pki', 'client.crt')} --key=${join(up.dir, 'pki', 'client.key')} snapshot save ${out}`,
    );
    expect(JSON.parse(readFileSync(`${out}.json`, 'utf8'))).toMatchObject({ member: 'm2', source: 'save' });
    expect(mode(out)).toBe('600');
    const bad = cli(['backup', 'save', '--data-dir', up.dir, '--member', 'm9', '--out', join(scratch, 'm9.db')]);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain('no member m9 (members: m1, m2, m3)');
    expect(existsSync(join(scratch, 'm9.db'))).toBe(false);
  }, 120_000);

  it('a save aborted mid-stream leaves neither the file nor its .part', async () => {
    const access = dataDirAccess(up.dir);
    const cluster = access.connect();
    try {
      const file = join(scratch, 'aborted.db');
      const ac = new AbortController();
      let chunks = 0;
      const saving = saveSnapshot({
        client: cluster.members[0]!.client,
        file,
        signal: ac.signal,
        onProgress: (p) => {
          chunks++;
          expect(p.totalBytes, 'the first chunk says the size').toBeGreaterThan(p.bytes);
          ac.abort(); // at the first chunk: more are still to come
        },
      });
      await expect(saving).rejects.toBeInstanceOf(SaveCancelled);
      expect(chunks).toBe(1);
      expect(existsSync(file)).toBe(false);
      expect(existsSync(`${file}.part`)).toBe(false);
    } finally {
      cluster.close();
    }
  });

  it('list: a table and -w json, newest first, with the metadata', () => {
    const t = cli(['backup', 'list', '--data-dir', up.dir]);
    expect(t.status, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/\|\s+NAME\s+\|\s+TAKEN AT\s+\|\s+SOURCE\s+\|\s+MEMBER\s+\|\s+REVISION\s+\|\s+LIVE KEYS\s+\|\s+SIZE\s+\|\s+LAST DRILL\s+\|/);
    expect(t.stdout).toContain(saved.split('/').at(-1));
    const j = JSON.parse(cli(['backup', 'list', '--data-dir', up.dir, '-w', 'json']).stdout);
    expect(j.backups.map((b: { file: string }) => b.file)).toEqual([saved]);
    expect(j.backups[0].meta.facts.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('verify: the facts of a good file; a flipped byte, a truncated file and a missing file are refused', () => {
    const ok = cli(['backup', 'verify', saved]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^integrity: ok \(sha256 [0-9a-f]{64}\)$/m);
    expect(ok.stdout).toMatch(/^ {2}\/registry\/configmaps: \d+$/m);
    const j = JSON.parse(cli(['backup', 'verify', saved, '-w', 'json']).stdout);
    expect(j).toEqual(JSON.parse(readFileSync(`${saved}.json`, 'utf8')).facts);

    const bytes = readFileSync(saved);
    const flipped = Buffer.from(bytes);
    flipped[Math.floor(bytes.length / 2)]! ^= 0x01;
    writeFileSync(join(scratch, 'flipped.db'), flipped);
    const f = cli(['backup', 'verify', join(scratch, 'flipped.db')]);
    expect(f.status).toBe(1);
    expect(f.stderr).toBe(`Error: snapshot ${join(scratch, 'flipped.db')} is damaged: sha256 checksum mismatch (the file was altered or corrupted after it was saved)\n`);

    writeFileSync(join(scratch, 'short.db'), bytes.subarray(0, bytes.length - 1000));
    const s = cli(['backup', 'verify', join(scratch, 'short.db')]);
    expect(s.status).toBe(1);
    // without its trailer the file reads as a bare bbolt file, whose pages run past its end
    expect(s.stderr).toMatch(/^Error: snapshot .*short\.db is damaged: truncated \(\d+ bytes\): bbolt: file size too small/);

    const m = cli(['backup', 'verify', join(scratch, 'missing.db')]);
    expect(m.status).toBe(1);
    expect(m.stderr).toBe(`Error: snapshot ${join(scratch, 'missing.db')}: no such file\n`);
  });

  it('verify of a snapshot without Kubernetes objects passes with a warning: etcd 3.4\'s bbolt file and our older format', () => {
    // taken by Debian's etcd 3.4 (`etcdctl snapshot save`) from a keyspace of 3 plain keys
    const etcd34 = join(__dirname, '../../fixtures/etcd/etcd34-snapshot.db');
    const e = cli(['backup', 'verify', etcd34]);
    expect(e.status, e.stderr).toBe(0);
    expect(e.stdout).toContain('live keys: 3 ');
    expect(e.stdout).toContain('other keys (not under /registry/): 3');
    expect(e.stderr).toBe("Warning: no Kubernetes objects: none of its 3 keys is under /registry/ (not a snapshot of a Kubernetes cluster's etcd)\n");

    const file = join(scratch, 'plain.db');
    writeFileSync(file, snapshotFileOf([{ put: 'greeting', value: 'hello' }, { put: 'app/config' }]));
    const r = cli(['backup', 'verify', file]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('live keys: 2 ');
    expect(r.stderr).toBe("Warning: no Kubernetes objects: none of its 2 keys is under /registry/ (not a snapshot of a Kubernetes cluster's etcd)\n");
  });

  it('a full disk during save fails clearly, leaves no file, and the cluster stays healthy', async () => {
    const full = join(scratch, 'full');
    mkdirSync(full);
    const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', full], { encoding: 'utf8' });
    expect(m.status, `mount a 64 KiB tmpfs (the test runs as root): ${m.stderr}`).toBe(0);
    try {
      const r = cli(['backup', 'save', '--data-dir', up.dir, '--out', join(full, 'b.db')]);
      expect(r.status).toBe(1);
      expect(r.stdout).toMatch(/✗ failed: write .*b\.db\.part: ENOSPC: no space left on device/);
      expect(readdirSync(full)).toEqual([]);
    } finally {
      expect(spawnSync('umount', [full]).status).toBe(0);
    }
    const health = await up.etcdctl(['endpoint', 'health']);
    expect(health.code, health.stderr).toBe(0);
  }, 120_000);

  it('preflight refuses a cluster with a member that does not answer, before any file is written', async () => {
    const leader = await leaderName();
    const follower = ['m1', 'm2', 'm3'].find((m) => m !== leader)!;
    const pid = Number(new RegExp(`${follower} pid (\\d+)`).exec(up.output())![1]);
    const before = readdirSync(snapshotsDir()).sort();
    process.kill(pid, 'SIGSTOP');
    let r: ReturnType<typeof cli>;
    try {
      r = cli(['backup', 'save', '--data-dir', up.dir]);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`✗ failed: ${follower} unhealthy \\(DEADLINE_EXCEEDED`));
    expect(r.stdout).toMatch(/— 2\/3 members healthy, leader m\d, no alarms, DB/);
    expect(r.stdout).toMatch(/Back up etcd: failed — step 1 \(Preflight: members, leader, alarms, quota\) failed/);
    expect(readdirSync(snapshotsDir()).sort()).toEqual(before);
    const report = /Report: (\S+)/.exec(r.stdout)![1]!;
    expect(readFileSync(report, 'utf8')).toContain('**failed**');
    await eventually('the member to answer again', async () => (await up.etcdctl(['endpoint', 'health'])).code === 0, { timeoutMs: 30_000, intervalMs: 200 });
  }, 120_000);

  it('--schedule with --retention keeps taking backups and keeps the newest N scheduled ones', async () => {
    const child = spawn(process.execPath, [CLI_JS, 'backup', 'save', '--data-dir', up.dir, '--schedule', '@every 1s', '--retention', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
    const scheduled = () =>
      readdirSync(snapshotsDir())
        .filter((f) => f.endsWith('.db.json'))
        .map((f) => JSON.parse(readFileSync(join(snapshotsDir(), f), 'utf8')) as { source: string })
        .filter((m) => m.source === 'schedule').length;
    await eventually('four scheduled backups, the older ones pruned', () => (out.match(/Back up etcd: succeeded/g) ?? []).length >= 4 && out.includes('retention 2: removed'), {
      timeoutMs: 90_000,
      intervalMs: 200,
      detail: () => out.slice(-2000),
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited, out).toBe(0);
    expect(scheduled()).toBe(2);
    expect(existsSync(saved), 'a backup taken by hand is never pruned').toBe(true);
    expect(readdirSync(snapshotsDir()).filter((f) => f.endsWith('.part'))).toEqual([]);
    expect(out).toContain('pilothouse: backups on schedule "@every 1s", keeping 2 scheduled backups');
  }, 120_000);

  // last: it makes the database big enough for a save to be caught mid-stream
  it.each(['SIGINT', 'SIGTERM'] as const)('%s during the snapshot cancels the run and leaves neither the file nor its .part', async (sig) => {
    if (sig === 'SIGINT') {
      const mib = 'x'.repeat(1024 * 1024);
      const pki = join(up.dir, 'pki');
      for (let i = 0; i < 32; i++) {
        const r = await etcdctl([`--cacert=${pki}/ca.crt`, `--cert=${pki}/client.crt`, `--key=${pki}/client.key`, 'put', `/bulk/${i}`], { endpoints: up.endpoints, stdin: mib });
        expect(r.code, r.stderr).toBe(0);
      }
    }
    const outDir = join(scratch, `cancel-${sig}`);
    const child = spawn(process.execPath, [CLI_JS, 'backup', 'save', '--data-dir', up.dir, '--out', join(outDir, 'b.db')], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await eventually('the snapshot to be streaming', () => /progress: \d/.test(out) || child.exitCode !== null, { timeoutMs: 60_000, intervalMs: 5, detail: () => out });
    child.kill(sig);
    expect(await exited, out).toBe(1);
    expect(out).toMatch(/Back up etcd: cancelled — cancelled during step 2 \(Snapshot from the leader\)/);
    expect(readdirSync(outDir)).toEqual([]);
  }, 120_000);

  it('--help lists every flag', () => {
    const r = cli(['backup', 'save', '--help']);
    for (const flag of ['--data-dir', '--member', '--out', '--schedule', '--retention', '--write-out']) expect(r.stdout).toContain(flag);
    expect(cli(['backup', 'list', '--help']).stdout).toContain('--write-out');
    expect(cli(['backup', 'verify', '--help']).stdout).toContain('--write-out');
  });
});

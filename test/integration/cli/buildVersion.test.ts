// Every program says which build it is (version, commit, build date), the
// members keep etcd 3.4's version gauges, and a member refuses a data dir
// of a newer format without touching it.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalCluster, memberFlags } from '../../../main/controlplane/localCluster';
import { reapApiServers, startTestApiServer } from '../../support/apiserver';
import { CLI_JS, programFor } from '../../support/cluster';

const PORT_BASE = 26400;
const dirs: string[] = [];
const clusters: LocalCluster[] = [];
afterAll(async () => {
  await reapApiServers();
  await Promise.all(clusters.map((c) => c.stop()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'pilothouse-build-'));
  dirs.push(d);
  return d;
}

const repo = join(import.meta.dirname, '..', '..', '..');

async function oneMember(impl: 'pilothouse' | 'etcd', portBase: number): Promise<LocalCluster> {
  const c = new LocalCluster({ dataDir: tempDir(), members: 1, portBase, program: programFor(impl), clusterToken: `build-${portBase}` });
  clusters.push(c);
  await c.start();
  const ready = await c.waitReady(20_000);
  if (!ready.ok) throw new Error(`${impl} member not ready: ${[...ready.lastErrors.values()].join('; ')}`);
  return c;
}

/** Every file and directory under dir: path → mode, size, mtime and content hash. */
function listing(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    const st = statSync(d);
    out[d] = `dir ${(st.mode & 0o777).toString(8)} ${st.mtimeMs}`;
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const s = statSync(p);
      if (s.isDirectory()) walk(p);
      else out[p] = `file ${(s.mode & 0o777).toString(8)} ${s.size} ${s.mtimeMs} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`;
    }
  };
  walk(dir);
  return out;
}

describe('build and data format versions', () => {
  it('pilothouse --version and pilothouse etcd --version name the commit built, which is in this repository', () => {
    const top = spawnSync(process.execPath, [CLI_JS, '--version'], { encoding: 'utf8', timeout: 10_000 });
    expect(top.status).toBe(0);
    const m = /^(\d+\.\d+\.\d+\S*) \(commit ([0-9a-f]{7})(-dirty)?, built (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\)\n$/.exec(top.stdout);
    expect(m, top.stdout).not.toBeNull();
    const etcd = spawnSync(process.execPath, [CLI_JS, 'etcd', '--version'], { encoding: 'utf8', timeout: 10_000 });
    expect(etcd.stdout).toContain(`pilothouse etcd Version: ${m![1]}\nGit SHA: ${m![2]}${m![3] ?? ''}\n`);
    expect(spawnSync('git', ['cat-file', '-e', `${m![2]}^{commit}`], { cwd: repo }).status).toBe(0);
  });

  it("a member's /metrics carries etcd 3.4's version gauges, as etcd's does, and the build", async () => {
    const [ours, theirs] = await Promise.all([oneMember('pilothouse', PORT_BASE), oneMember('etcd', PORT_BASE + 10)]);
    const metrics = async (c: LocalCluster) => (await (await fetch(`${c.layout[0]!.clientUrl}/metrics`)).text()).split('\n');
    const [mine, etcds] = await Promise.all([metrics(ours), metrics(theirs)]);
    for (const name of ['etcd_server_version', 'etcd_cluster_version']) {
      const want = etcds.find((l) => l.startsWith(`${name}{`));
      expect(want, name).toBeDefined();
      expect(mine).toContain(want);
    }
    const build = mine.find((l) => l.startsWith('pilothouse_build_info{'));
    expect(build).toMatch(/^pilothouse_build_info\{version="[^"]+",commit="[0-9a-f]{40}",tree_state="(clean|dirty)",build_date="[^"]+"\} 1$/);
    const log = readFileSync(ours.layout[0]!.logFile, 'utf8');
    expect(log).toMatch(/etcdmain: pilothouse etcd Version: \S+\netcdmain: Git SHA: [0-9a-f]{7}/);
    expect(await (await fetch(`${ours.layout[0]!.clientUrl}/version`)).json()).toEqual(await (await fetch(`${theirs.layout[0]!.clientUrl}/version`)).json());
  });

  it("the API server's /version carries the build's commit, tree state and date (kubectl version)", async () => {
    const top = spawnSync(process.execPath, [CLI_JS, '--version'], { encoding: 'utf8', timeout: 10_000 });
    const [, short, dirty, built] = /\(commit ([0-9a-f]{7})(-dirty)?, built (\S+)\)/.exec(top.stdout)!;
    const api = await startTestApiServer(PORT_BASE + 40);
    const r = await api.kubectl(['version', '-o', 'json'], { timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    const server = JSON.parse(r.stdout).serverVersion;
    expect(server.gitCommit).toMatch(new RegExp(`^${short}[0-9a-f]{33}$`));
    expect(server.gitTreeState).toBe(dirty ? 'dirty' : 'clean');
    expect(server.buildDate).toBe(built);
    expect(server.gitVersion).toMatch(/^v1\.32\.0-pilothouse\./);
  }, 120_000);

  it('a member records its data format, and refuses a newer one without changing anything', async () => {
    const c = await oneMember('pilothouse', PORT_BASE + 20);
    const member = c.layout[0]!;
    const dataDir = join(c.opts.dataDir, member.name);
    const formatFile = join(dataDir, 'member', 'pilothouse-format');
    await c.stop();
    const recorded = JSON.parse(readFileSync(formatFile, 'utf8'));
    expect(recorded).toEqual({ format: 1, writtenBy: expect.stringMatching(/^pilothouse \S+ \(commit [0-9a-f]{7}(-dirty)?\)$/) });

    writeFileSync(formatFile, `${JSON.stringify({ format: 2, writtenBy: 'pilothouse 9.0.0 (commit 0123456)' })}\n`);
    chmodSync(dataDir, 0o755); // a start would narrow it to 0700
    const before = listing(dataDir);
    const args = [CLI_JS, 'etcd', ...memberFlags(member, c.layout, c.opts)];
    const refused = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 20_000 });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(
      `etcdmain: data dir ${join(dataDir, 'member')} has format 2, written by pilothouse 9.0.0 (commit 0123456); this build (pilothouse ${/Version: (\S+)/.exec(refused.stderr)![1]}) reads format 1 and older: refusing to start (nothing was changed)\n`,
    );
    expect(listing(dataDir)).toEqual(before);

    // Told it is format 1 again, the same data dir starts and serves what it held.
    writeFileSync(formatFile, `${JSON.stringify(recorded)}\n`);
    await c.start();
    expect((await c.waitReady(20_000)).ok).toBe(true);
  });
});

// `pilothouse upgrade plan` against a running `pilothouse up`: what an upgrade
// to another build (this tree built as the next minor version) or a
// flag change would do, and whether apply may go ahead — refused without a
// fresh verified backup, allowed after `pilothouse backup save`.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_JS } from '../../support/cluster';
import { buildNextMinor, currentVersion } from '../../support/nextBuild';
import { reapUps, startUp, type UpRun } from '../../support/upProcess';

const PORT_BASE = 26500;
const scratch = mkdtempSync(join(tmpdir(), 'pilothouse-upgrade-plan-'));
let up: UpRun;
let current: string;
let next: string;
const nextBuild = join(scratch, 'next');

function plan(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI_JS, 'upgrade', 'plan', '--data-dir', up.dir, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  current = currentVersion();
  up = startUp(PORT_BASE);
  // The second build: this tree built as the next minor version.
  next = buildNextMinor(nextBuild);
  await up.waitFor(/pilothouse: control plane ready/, 120_000);
}, 240_000);

afterAll(async () => {
  if (up) await up.stop().catch(() => undefined);
  reapUps();
  rmSync(scratch, { recursive: true, force: true });
});

describe('pilothouse upgrade plan', () => {
  it('without a verified backup: every component and its target shown, preflight passes but the backup, apply would refuse', () => {
    const r = plan(['--to', nextBuild]);
    expect(r.status, r.stderr).toBe(1);
    for (const id of ['m1', 'm2', 'm3', 'apiserver', 'controllers']) expect(r.stdout).toMatch(new RegExp(`^\\| ${id} +\\| \\d+ +\\| ${current.replace(/\./g, '\\.')} \\([0-9a-f]{7}(-dirty)?\\) +\\| ${next.replace(/\./g, '\\.')} \\(`, 'm'));
    expect(r.stdout).toContain(`[ok]   ${current} → ${next}: within one minor version`);
    expect(r.stdout).toContain('[ok]   members: 3/3 members healthy');
    expect(r.stdout).toContain('[ok]   nodes: 3/3 nodes Ready');
    expect(r.stdout).toContain(`[fail] backup: no verified backup in ${join(up.dir, 'snapshots')}: take one with pilothouse backup save --data-dir ${up.dir}`);
    expect(r.stdout).toMatch(/pilothouse upgrade apply would refuse: no verified backup .* \(--force goes on without it\)\n$/);
  });

  it('after backup save: the leader goes last, and apply would go ahead (JSON too)', async () => {
    const saved = spawnSync(process.execPath, [CLI_JS, 'backup', 'save', '--data-dir', up.dir], { encoding: 'utf8', timeout: 60_000 });
    expect(saved.status, saved.stdout + saved.stderr).toBe(0);
    const r = plan(['--to', nextBuild, '-w', 'json']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const p = JSON.parse(r.stdout);
    expect(p.canApply).toBe(true);
    expect(p.target.version).toBe(next);
    expect(p.components.map((c: { id: string; target: { version: string } }) => [c.id, c.target.version])).toEqual(['m1', 'm2', 'm3', 'apiserver', 'controllers'].map((id) => [id, next]));
    // The leader the members name is replaced last of the members.
    const status = await up.etcdctl(['endpoint', 'status', '-w', 'json']);
    const leaderEndpoint = (JSON.parse(status.stdout) as { Endpoint: string; Status: { header: { member_id: number }; leader: number } }[]).find((s) => s.Status.header.member_id === s.Status.leader)!.Endpoint;
    const leader = `m${up.endpoints.indexOf(leaderEndpoint) + 1}`;
    expect(p.order.slice(0, 3)).toHaveLength(3);
    expect(p.order[2]).toBe(leader);
    expect(p.order.slice(3)).toEqual(['apiserver', 'controllers']);
    expect(plan(['--to', nextBuild]).stdout).toContain('pilothouse upgrade apply would go ahead.\n');
  });

  it('--set: each instance shows the change; flags the target lacks and flags the layout owns are refused', () => {
    const r = plan(['--set', 'etcd.quota-backend-bytes=4294967296', '--set', 'apiserver.max-requests-inflight=800']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    for (const m of ['m1', 'm2', 'm3']) expect(r.stdout).toMatch(new RegExp(`^\\| ${m} .*\\| --quota-backend-bytes: \\(unset\\) → 4294967296 +\\|$`, 'm'));
    expect(r.stdout).toMatch(/^\| apiserver .*\| --max-requests-inflight: \(unset\) → 800 +\|$/m);
    expect(r.stdout).toMatch(/^\| controllers .*\| - +\|$/m);
    expect(r.stdout).toContain('[ok]   no new build: a reconfiguration of the running one');

    const bogus = plan(['--set', 'etcd.no-such-flag=1']);
    expect(bogus.status).toBe(1);
    expect(bogus.stderr).toBe("Error: --set etcd.no-such-flag=1: the target's etcd has no flag --no-such-flag\n");
    const owned = plan(['--set', 'etcd.data-dir=/elsewhere']);
    expect(owned.stderr).toBe("Error: --set etcd.data-dir=/elsewhere: the plane's layout sets --data-dir; an upgrade does not change it\n");
  });

  it('nothing to do, no build in --to, and no plane running are each said plainly', () => {
    expect(plan([]).stdout).toContain('nothing to do: give --to DIR (another build), --set COMPONENT.FLAG=VALUE and/or --renew-certs');
    const none = plan(['--to', scratch]);
    expect(none.stderr).toBe(`Error: no built Pilothouse in ${scratch} (want ${join(scratch, 'out', 'main', 'cli.js')}; run npm run build there)\n`);
    const idle = spawnSync(process.execPath, [CLI_JS, 'upgrade', 'plan', '--data-dir', scratch, '--to', nextBuild], { encoding: 'utf8', timeout: 30_000 });
    expect(idle.status).toBe(1);
    expect(idle.stderr).toContain(`Error: no control plane runs under ${scratch}`);
  });
});

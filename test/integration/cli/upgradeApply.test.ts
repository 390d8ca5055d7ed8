// `pilothouse upgrade apply` against a running `pilothouse up`, to this tree
// built as the next minor version:
//   - refused without a fresh verified backup, nothing changed (and --force
//     goes on past that check only), refused while a member is not healthy;
//   - the seed's failure rehearsed on a copy: the upgraded member gets a flag
//     it refuses, the failure is caught, the member rolled back, the quorum
//     kept, and the live plane untouched;
//   - the rolling upgrade itself with the availability probe writing all
//     along: every component upgraded in order, no acknowledged write lost,
//     the versions reported by the components themselves;
//   - the upgraded command lines survive a restart of `up`;
//   - a component whose target does not start is rolled back, the run stops
//     with the cluster mixed, and `upgrade rollback` undoes the rest;
//   - a rolling reconfiguration that turns on encryption at rest, with the
//     storage migration after it: every Secret encrypted in etcd, all still
//     readable through kubectl.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_JS } from '../../support/cluster';
import { buildNextMinor, currentVersion } from '../../support/nextBuild';
import { reapUps, startUp, type UpRun } from '../../support/upProcess';

const PORT_BASE = 26610;
const scratch = mkdtempSync(join(tmpdir(), 'pilothouse-upgrade-apply-'));
const nextBuild = join(scratch, 'next');
let up: UpRun;
let current: string;
let next: string;

interface Cli {
  status: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], timeoutMs = 300_000): Promise<Cli> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_JS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const apply = (args: string[]) => cli(['upgrade', 'apply', '--data-dir', up.dir, ...args]);

/** Each component's pid and the version it reports, as the plan surveys them. */
async function running(): Promise<Map<string, { pid: number; version: string; flags: string[] }>> {
  const r = await cli(['upgrade', 'plan', '--data-dir', up.dir, '--set', 'etcd.quota-backend-bytes=2147483648', '-w', 'json'], 60_000);
  const p = JSON.parse(r.stdout) as { components: { id: string; pid: number; current: { version: string; flags: string[] } }[] };
  return new Map(p.components.map((c) => [c.id, { pid: c.pid, version: c.current.version, flags: c.current.flags }]));
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

describe('pilothouse upgrade apply', () => {
  it('refuses without a fresh verified backup and changes nothing; --force passes that check only', async () => {
    const before = await running();
    const r = await apply(['--to', nextBuild, '--timeout', '1m']);
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('[upgrade/apply] FATAL: the preflight refuses; nothing was changed:');
    expect(r.stdout).toContain(`no verified backup in ${join(up.dir, 'snapshots')}`);
    expect(r.stdout).toContain('or pass --force to go on without one');
    const after = await running();
    for (const [id, c] of before) expect(after.get(id)!.pid, id).toBe(c.pid);
    expect(existsSync(join(up.dir, 'components.json'))).toBe(false);

    // --force: a rolling reconfiguration of the members goes ahead without the backup.
    const forced = await apply(['--set', 'etcd.quota-backend-bytes=4294967296', '--force', '--timeout', '1m']);
    expect(forced.status, forced.stdout + forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/\[upgrade\/apply\] forced past: no verified backup in /);
    for (const m of ['m1', 'm2', 'm3']) expect(forced.stdout).toMatch(new RegExp(`^${m} +upgraded `, 'm'));
    expect(forced.stdout).toMatch(/^apiserver +unchanged /m);
    const reconfigured = await running();
    for (const m of ['m1', 'm2', 'm3']) {
      expect(reconfigured.get(m)!.pid).not.toBe(before.get(m)!.pid);
      expect(reconfigured.get(m)!.flags).toContain('--quota-backend-bytes=4294967296');
    }
    expect(reconfigured.get('apiserver')!.pid).toBe(before.get('apiserver')!.pid);
  }, 180_000);

  it('refuses while a member is not healthy, even with --force', async () => {
    const m2 = (await running()).get('m2')!.pid;
    process.kill(m2, 'SIGSTOP');
    try {
      const r = await apply(['--to', nextBuild, '--force']);
      expect(r.status, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toContain('[upgrade/apply] FATAL: the preflight refuses; nothing was changed:');
      expect(r.stdout).toMatch(/2\/3 members healthy \(m2: /);
    } finally {
      process.kill(m2, 'SIGCONT');
    }
    expect((await running()).get('m2')!.pid).toBe(m2);
  }, 120_000);

  it("rehearses the seed's failure on a copy: the bad flag is caught, the member rolled back, the quorum kept, the live plane untouched", async () => {
    const saved = await cli(['backup', 'save', '--data-dir', up.dir], 120_000);
    expect(saved.status, saved.stdout + saved.stderr).toBe(0);
    const before = await running();
    const r = await apply(['--to', nextBuild, '--rehearse-bad-flag', '--timeout', '90s']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/rehearsing a bad flag: --election-timeout=50/);
    // What the member said when it refused, and the rollback.
    expect(r.stdout).toContain('--election-timeout[50ms] should be at least as 5 times as --heartbeat-interval[100ms]');
    expect(r.stdout).toMatch(/\[upgrade\/apply\] (m\d) was rolled back and is healthy and caught up/);
    expect(r.stdout).toMatch(/^m\d +rolled-back /m);
    // Quorum kept: the etcd channel of the probe had acknowledged writes throughout, none lost.
    expect(r.stdout).toMatch(/\[upgrade\/availability\] etcd: \d+ writes.*0 acknowledged writes lost/);
    expect(r.stdout).toContain('the live plane was not changed');
    const after = await running();
    for (const [id, c] of before) {
      expect(after.get(id)!.pid, id).toBe(c.pid);
      expect(after.get(id)!.version, id).toBe(current);
    }
  }, 400_000);

  it('upgrades every component in turn with writes flowing: none acknowledged is lost, each reports the new version', async () => {
    const before = await running();
    const r = await apply(['--to', nextBuild, '--timeout', '2m']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const rows = [...r.stdout.matchAll(/^(m\d|apiserver|controllers) +(upgraded|unchanged|rolled-back|failed) /gm)].map((m) => [m[1], m[2]]);
    expect(rows.map(([id]) => id).slice(3)).toEqual(['apiserver', 'controllers']);
    expect(rows.every(([, o]) => o === 'upgraded'), r.stdout).toBe(true);
    expect(r.stdout).toMatch(/led; leadership moved to m\d/);
    expect(r.stdout).toMatch(/\[upgrade\/nodes\] node \S+: Ready under the new kubelet; uncordoned/);
    expect(r.stdout).toMatch(/\[upgrade\/availability\] etcd: \d+ writes.*0 acknowledged writes lost/);
    expect(r.stdout).toMatch(/\[upgrade\/availability\] API server: \d+ writes.*0 acknowledged writes lost/);
    expect(r.stdout).toContain('[upgrade/apply] SUCCESS');
    const after = await running();
    for (const [id, c] of before) {
      expect(after.get(id)!.pid, id).not.toBe(c.pid);
      expect(after.get(id)!.version, id).toBe(next);
    }
    const nodes = await up.kubectl(['get', 'nodes', '-o', 'jsonpath={.items[*].spec.unschedulable}']);
    expect(nodes.stdout.trim()).toBe('');
    const rollback = await cli(['upgrade', 'rollback', '--data-dir', up.dir], 60_000);
    expect(rollback.status).toBe(1);
    expect(rollback.stderr).toContain('is complete: the cluster is no longer mixed');
    expect(rollback.stderr).toContain(`pilothouse backup restore FILE --data-dir ${up.dir}`);
  }, 400_000);

  it('the upgraded command lines outlive a restart of up', async () => {
    const recorded = JSON.parse(readFileSync(join(up.dir, 'components.json'), 'utf8')) as { components: Record<string, { program: { args: string[] } }> };
    expect(Object.keys(recorded.components).sort()).toEqual(['apiserver', 'controllers', 'm1', 'm2', 'm3']);
    expect(await up.stop()).toBe(0);
    up = startUp(PORT_BASE, [], up.dir);
    await up.waitFor(/pilothouse: control plane ready/, 120_000);
    for (const [id, c] of await running()) expect(c.version, id).toBe(next);
  }, 300_000);
});

describe('a component that does not come back', () => {
  it('is rolled back, the run stops with the cluster mixed, and upgrade rollback undoes the rest', async () => {
    const saved = await cli(['backup', 'save', '--data-dir', up.dir], 120_000);
    expect(saved.status, saved.stdout + saved.stderr).toBe(0);
    const before = await running();
    const r = await apply(['--set', 'etcd.quota-backend-bytes=3221225472', '--set', 'apiserver.storage-media-type=application/bogus', '--timeout', '60s']);
    expect(r.status, r.stdout + r.stderr).toBe(1);
    for (const m of ['m1', 'm2', 'm3']) expect(r.stdout).toMatch(new RegExp(`^${m} +upgraded `, 'm'));
    expect(r.stdout).toMatch(/^apiserver +rolled-back /m);
    expect(r.stdout).toContain('--storage-media-type: unsupported media type "application/bogus"');
    expect(r.stdout).toMatch(/\[upgrade\/apply\] apiserver was rolled back and is ready/);
    expect(r.stdout).toMatch(/the cluster is mixed: m\d, m\d, m\d upgraded\./);
    expect(r.stdout).toContain(`pilothouse upgrade rollback --data-dir ${up.dir}`);
    const mixed = await running();
    for (const m of ['m1', 'm2', 'm3']) expect(mixed.get(m)!.flags).toContain('--quota-backend-bytes=3221225472');
    expect(mixed.get('apiserver')!.flags).not.toContain('--storage-media-type=application/bogus');

    const back = await cli(['upgrade', 'rollback', '--data-dir', up.dir, '--timeout', '60s'], 200_000);
    expect(back.status, back.stdout + back.stderr).toBe(0);
    expect(back.stdout).toContain('every upgraded component runs its previous program and flags again');
    const after = await running();
    for (const m of ['m1', 'm2', 'm3']) expect(after.get(m)!.flags, m).toEqual(before.get(m)!.flags);
    expect(after.get('apiserver')!.flags).toEqual(before.get('apiserver')!.flags);
  }, 400_000);
});

describe('a rolling reconfiguration', () => {
  it('turns on encryption at rest and migrates: every Secret encrypted in etcd, all readable through kubectl', async () => {
    for (let i = 0; i < 12; i++) {
      const r = await up.kubectl(['create', 'secret', 'generic', `s${i}`, `--from-literal=k=v${i}`]);
      expect(r.code, r.stderr).toBe(0);
    }
    const config = join(up.dir, 'encryption.yaml');
    writeFileSync(
      config,
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: EncryptionConfiguration',
        'resources:',
        '  - resources: [secrets]',
        '    providers:',
        '      - aescbc:',
        '          keys:',
        `            - name: key1`,
        `              secret: ${Buffer.alloc(32, 7).toString('base64')}`,
        '      - identity: {}',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    const saved = await cli(['backup', 'save', '--data-dir', up.dir], 120_000);
    expect(saved.status, saved.stdout + saved.stderr).toBe(0);
    const r = await apply(['--set', `apiserver.encryption-provider-config=${config}`, '--timeout', '2m']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^apiserver +upgraded /m);
    expect(r.stdout).toMatch(/\[upgrade\/migrate\] secrets: migrated .*after: \d+ encrypted:aescbc:key1/);
    const keys = await up.etcdctl(['get', '/registry/secrets/', '--prefix', '--keys-only']);
    const names = keys.stdout.split('\n').filter((l) => l.startsWith('/registry/secrets/'));
    expect(names.length).toBeGreaterThanOrEqual(12);
    for (const key of names) {
      const v = await up.etcdctl(['get', key, '--print-value-only']);
      expect(v.stdout.startsWith('k8s:enc:aescbc:v1:key1:'), key).toBe(true);
    }
    for (let i = 0; i < 12; i++) {
      const s = await up.kubectl(['get', 'secret', `s${i}`, '-o', 'jsonpath={.data.k}']);
      expect(Buffer.from(s.stdout, 'base64').toString()).toBe(`v${i}`);
    }
  }, 400_000);

  it('switches the storage media type to JSON and migrates every resource: etcd then holds JSON, kubectl reads everything', async () => {
    const r = await apply(['--set', 'apiserver.storage-media-type=application/json', '--timeout', '2m']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/storage migration of .*configmaps.*deployments\.apps.*\(--storage-media-type=application\/json\)/);
    expect(r.stdout).toMatch(/\[upgrade\/migrate\] configmaps: migrated .*after: \d+ json$/m);
    expect(r.stdout).toMatch(/\[upgrade\/migrate\] namespaces: migrated .*after: \d+ json$/m);
    const ns = await up.etcdctl(['get', '/registry/namespaces/default', '--print-value-only']);
    expect(ns.stdout.trimStart().startsWith('{'), ns.stdout.slice(0, 40)).toBe(true);
    expect(JSON.parse(ns.stdout).metadata.name).toBe('default');
    // Secrets stay encrypted: the encryption config still applies, over JSON now
    const secret = await up.etcdctl(['get', '/registry/secrets/default/s0', '--print-value-only']);
    expect(secret.stdout.startsWith('k8s:enc:aescbc:v1:key1:')).toBe(true);
    expect((await up.kubectl(['get', 'secret', 's0', '-o', 'jsonpath={.data.k}'])).stdout).toBe(Buffer.from('v0').toString('base64'));
    expect((await up.kubectl(['get', 'nodes'])).code).toBe(0);
  }, 400_000);

  it('--renew-certs: every certificate renewed, every component restarted in turn to load them; etcdctl and kubectl work with the new ones', async () => {
    const before = await running();
    const clientCert = readFileSync(join(up.dir, 'pki', 'client.crt'), 'utf8');
    const plan = await cli(['upgrade', 'plan', '--data-dir', up.dir, '--renew-certs'], 60_000);
    expect(plan.stdout).toContain('Certificates: every leaf certificate renewed (new keys and serials, same CAs)');
    const r = await apply(['--renew-certs', '--timeout', '2m']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/certificates renewed \(new keys and serials, same CAs\): .*; each component restarts to load them/);
    for (const id of ['m1', 'm2', 'm3', 'apiserver', 'controllers']) expect(r.stdout).toMatch(new RegExp(`^${id} +upgraded `, 'm'));
    expect(readFileSync(join(up.dir, 'pki', 'client.crt'), 'utf8')).not.toBe(clientCert);
    const after = await running();
    for (const [id, c] of before) {
      expect(after.get(id)!.pid, id).not.toBe(c.pid);
      expect(after.get(id)!.flags, id).toEqual(c.flags);
    }
    expect((await up.etcdctl(['endpoint', 'health'])).code).toBe(0);
    expect((await up.kubectl(['get', 'ns', 'default'])).code).toBe(0);
  }, 400_000);
});

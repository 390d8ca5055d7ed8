// `pilothouse: control plane ready` means usable, at once, for a script that
// starts on that line: with the whole plane, the aggregated roles have their
// rules (a user bound to `edit` may create deployments), every simulated node
// is Ready and the scheduler and the controller manager hold their Leases;
// /readyz includes the rbac/bootstrap-roles post-start hook as kube-apiserver's
// does. `--no-apiserver` prints it once the members serve (etcdctl works) and
// `--no-controllers` once the API server is ready (kubectl works); both flags
// are in `up --help`.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_JS } from '../../support/cluster';
import { readyNodeCount, reapUps, startUp } from '../../support/upProcess';

const PORTS = { full: 22100, membersOnly: 22200, noControllers: 22300 } as const;
const READY = /pilothouse: control plane ready \(([^)]*)\) in (\d+) ms\n/;

afterAll(() => reapUps());

describe('pilothouse up readiness', () => {
  it('lists --no-apiserver and --no-controllers in its help', () => {
    const help = spawnSync(process.execPath, [CLI_JS, 'up', '--help'], { encoding: 'utf8' });
    expect(help.stdout).toMatch(/--no-apiserver\s+start the members only/);
    expect(help.stdout).toMatch(/--no-controllers\s+start the members and the API server only/);
  });

  it('is ready when the edit role is aggregated, every node Ready and the leases held', async () => {
    const t0 = Date.now();
    const up = startUp(PORTS.full);
    const ready = await up.waitFor(READY, 120_000);
    console.log(`cold start to the ready line: ${Date.now() - t0} ms (up says ${ready[2]} ms)`);
    expect(ready[1]).toBe('3 members, API server, controllers, 3 Ready nodes');

    // Right after the line, nothing polled: the roles, the nodes, the leases.
    const [edit, nodes, leases] = await Promise.all([
      up.kubectl(['get', 'clusterrole', 'edit', '-o', 'json']),
      up.kubectl(['get', 'nodes', '--no-headers']),
      up.kubectl(['get', 'leases', '-n', 'kube-system', '-o', 'json']),
    ]);
    const rules = (JSON.parse(edit.stdout) as { rules?: { resources?: string[]; verbs: string[] }[] }).rules ?? [];
    expect(rules.some((r) => r.resources?.includes('deployments') && r.verbs.includes('create')), edit.stdout).toBe(true);
    expect(readyNodeCount(nodes.stdout), nodes.stdout).toBe(3);
    const held = (JSON.parse(leases.stdout) as { items: { metadata: { name: string }; spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number } }[] }).items;
    for (const name of ['kube-scheduler', 'kube-controller-manager']) {
      const l = held.find((x) => x.metadata.name === name);
      expect(l?.spec?.holderIdentity, `${name}: ${leases.stdout}`).toBeTruthy();
      expect(Date.parse(l!.spec!.renewTime!) + l!.spec!.leaseDurationSeconds! * 1000).toBeGreaterThan(Date.now());
    }

    // A user bound to edit may use it now.
    const bind = await up.kubectl(['create', 'rolebinding', 'alice-edit', '--clusterrole=edit', '--user=alice', '-n', 'default']);
    expect(bind.stdout + bind.stderr).toBe('rolebinding.rbac.authorization.k8s.io/alice-edit created\n');
    const can = await up.kubectl(['auth', 'can-i', 'create', 'deployments', '--as=alice', '-n', 'default']);
    expect(can.stdout).toBe('yes\n');

    const readyz = await up.kubectl(['get', '--raw', '/readyz?verbose']);
    expect(readyz.stdout).toContain('[+]poststarthook/rbac/bootstrap-roles ok\n');
    expect(await up.stop()).toBe(0);
  }, 200_000);

  it('with --no-apiserver, is ready once the members serve', async () => {
    const up = startUp(PORTS.membersOnly, ['--no-apiserver']);
    const ready = await up.waitFor(READY, 120_000);
    expect(ready[1]).toBe('3 members');
    const put = await up.etcdctl(['put', 'greeting', 'hello']);
    expect(put.stdout + put.stderr).toBe('OK\n');
    const get = await up.etcdctl(['get', 'greeting', '--print-value-only'], [up.endpoints[2]!]);
    expect(get.stdout).toBe('hello\n');
    expect(up.output()).not.toContain('API server');
    expect(existsSync(join(up.dir, 'kubeconfig'))).toBe(false);
    expect(await up.stop()).toBe(0);
  }, 200_000);

  it('with --no-controllers, is ready once the API server is', async () => {
    const up = startUp(PORTS.noControllers, ['--no-controllers']);
    const ready = await up.waitFor(READY, 120_000);
    expect(ready[1]).toBe('3 members, API server');
    const ns = await up.kubectl(['get', 'ns', 'default', '-o', 'name']);
    expect(ns.stdout + ns.stderr).toBe('namespace/default\n');
    expect(up.output()).not.toContain('controllers running');
    expect(await up.stop()).toBe(0);
  }, 200_000);
});

// `pilothouse up` keeps its plane alive: a kill -9 of the API server, of a
// member or of the controllers is said on stderr with the signal and the
// backoff, the component is back and serving within 5 s (measured from the
// kill), and kubectl with DIR/kubeconfig works again without any user
// action. SIGHUP restarts every component in turn (new pids, followers
// before the leader) and the plane is healthy after. DIR/controlplane.pid
// names up (mode 0600) while it runs and is removed on a clean exit.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ApiServerLayout } from '../../../main/controlplane/apiserverLayout';
import { apiRequest } from '../../support/apiserver';
import { readyNodeCount, reapUps, msUntil, startUp, type UpRun } from '../../support/upProcess';

const PORT_BASE = 22000;
const BACK_WITHIN_MS = 5_000;

afterAll(() => reapUps());

async function kubectlWorks(up: UpRun): Promise<boolean | string> {
  const r = await up.kubectl(['get', 'ns', 'kube-system', '-o', 'name']);
  return r.stdout === 'namespace/kube-system\n' || `${r.code}: ${r.stderr.trim()}`;
}

const ELECTED = ['kube-scheduler', 'kube-controller-manager'];

/** Lease name → holderIdentity in kube-system. */
async function leaseHolders(up: UpRun): Promise<Map<string, string>> {
  const r = await up.kubectl(['get', 'leases', '-n', 'kube-system', '-o', 'json']);
  if (r.code !== 0) return new Map();
  const items = (JSON.parse(r.stdout) as { items: { metadata: { name: string }; spec?: { holderIdentity?: string } }[] }).items;
  return new Map(items.map((l) => [l.metadata.name, l.spec?.holderIdentity ?? '']));
}

/** One GET as the admin (DIR/pki/kube), without a client's start-up time in the measurement. */
async function apiServes(up: UpRun): Promise<boolean | string> {
  const kube = join(up.dir, 'pki', 'kube');
  const layout = { url: `https://127.0.0.1:${up.portBase + 6}`, pki: { ca: { cert: join(kube, 'ca.crt') }, admin: { cert: join(kube, 'admin.crt'), key: join(kube, 'admin.key') } } } as ApiServerLayout;
  try {
    const r = await apiRequest(layout, 'GET', '/api/v1/namespaces/kube-system');
    return r.status === 200 || `${r.status} ${r.body}`;
  } catch (err) {
    return (err as Error).message;
  }
}

function pidOf(up: UpRun, component: RegExp): number {
  const all = [...up.output().matchAll(new RegExp(component.source, 'g'))];
  return Number(all[all.length - 1]![1]);
}

describe('pilothouse up supervision', () => {
  it('restarts what is killed, within 5 s, and restarts everything in turn on SIGHUP', async () => {
    const up = startUp(PORT_BASE);
    await up.waitFor(/pilothouse: control plane ready/, 120_000);
    const pidFile = join(up.dir, 'controlplane.pid');
    expect(readFileSync(pidFile, 'utf8')).toBe(`${up.child.pid}\n`);
    expect(statSync(pidFile).mode & 0o777).toBe(0o600);

    // The API server.
    let from = up.output().length;
    const api = pidOf(up, /apiserver pid (\d+)/);
    let t0 = Date.now();
    process.kill(api, 'SIGKILL');
    await up.waitFor(/pilothouse: apiserver exited \(signal SIGKILL\); restarting in 250 ms \(attempt 1\)\n/, 10_000, from);
    const api2 = Number((await up.waitFor(/pilothouse: apiserver restarted \(pid (\d+)\)\n/, 10_000, from))[1]);
    expect(api2).not.toBe(api);
    const apiBack = await msUntil('the API server serving after its kill', () => apiServes(up), 30_000, t0);
    console.log(`API server: kill -9 to serving again: ${apiBack} ms`);
    expect(apiBack).toBeLessThan(BACK_WITHIN_MS);
    expect(await kubectlWorks(up)).toBe(true);

    // A member (m2), and kubectl through the API server meanwhile.
    from = up.output().length;
    const m2 = pidOf(up, /m2 pid (\d+)/);
    t0 = Date.now();
    process.kill(m2, 'SIGKILL');
    await up.waitFor(/pilothouse: m2 exited \(signal SIGKILL\); restarting in 250 ms \(attempt 1\)\n/, 10_000, from);
    const m2b = Number((await up.waitFor(/pilothouse: m2 restarted \(pid (\d+)\)\n/, 10_000, from))[1]);
    expect(m2b).not.toBe(m2);
    const memberBack = await msUntil(
      'm2 serving after its kill',
      async () => {
        // A short timeout: an attempt made while m2 waits for a leader must not hide the moment it serves.
        const r = await up.etcdctl(['--command-timeout=500ms', 'endpoint', 'health'], [up.endpoints[1]!]);
        return r.code === 0 || r.stderr.trim();
      },
      30_000,
      t0,
    );
    console.log(`member m2: kill -9 to endpoint health: ${memberBack} ms`);
    expect(memberBack).toBeLessThan(BACK_WITHIN_MS);
    expect(await kubectlWorks(up)).toBe(true);

    // The controllers: back with their simulated kubelets (each re-registers its Node at start).
    const oldHolders = await leaseHolders(up);
    expect(oldHolders.get('kube-scheduler')).toBeTruthy();
    from = up.output().length;
    const ctl = pidOf(up, /controllers pid (\d+)/);
    const killedAt = new Date();
    t0 = Date.now();
    process.kill(ctl, 'SIGKILL');
    await up.waitFor(/pilothouse: controllers exited \(signal SIGKILL\); restarting in 250 ms \(attempt 1\)\n/, 10_000, from);
    const ctl2 = Number((await up.waitFor(/pilothouse: controllers restarted \(pid (\d+)\)\n/, 10_000, from))[1]);
    expect(ctl2).not.toBe(ctl);
    const heartbeatSince = Math.floor(killedAt.getTime() / 1000) * 1000;
    const ctlBack = await msUntil(
      'every node re-registered by the new controllers',
      async () => {
        const r = await up.kubectl(['get', 'nodes', '-o', 'json']);
        if (r.code !== 0) return r.stderr.trim();
        const nodes = (JSON.parse(r.stdout) as { items: { status: { conditions: { type: string; status: string; lastHeartbeatTime: string }[] } }[] }).items;
        const fresh = nodes.filter((n) => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True' && Date.parse(c.lastHeartbeatTime) >= heartbeatSince));
        return fresh.length === 3 || `${fresh.length}/3 nodes with a heartbeat since the kill`;
      },
      30_000,
      t0,
    );
    console.log(`controllers: kill -9 to every node heartbeating again: ${ctlBack} ms`);
    expect(ctlBack).toBeLessThan(BACK_WITHIN_MS);
    // The killed leader never released its Leases: the new process takes them once they expire (leaseDuration 15 s, as kube's).
    const leasesBack = await msUntil(
      'the Leases held by the new controllers',
      async () => {
        const now = await leaseHolders(up);
        return ELECTED.every((n) => now.get(n) && now.get(n) !== oldHolders.get(n)) || JSON.stringify([...now]);
      },
      60_000,
      t0,
    );
    console.log(`controllers: kill -9 to both Leases held again: ${leasesBack} ms`);

    // SIGHUP: every component restarted in turn, the leader member last.
    from = up.output().length;
    const before = { m1: pidOf(up, /m1 (?:pid|restarted \(pid) (\d+)/), m2: m2b, m3: pidOf(up, /m3 (?:pid|restarted \(pid) (\d+)/), apiserver: api2, controllers: ctl2 };
    const hupAt = Date.now();
    up.child.kill('SIGHUP');
    await up.waitFor(/pilothouse: components restarted\n/, 120_000, from);
    console.log(`SIGHUP to components restarted: ${Date.now() - hupAt} ms`);
    const hup = up.output().slice(from);
    for (const [id, old] of Object.entries(before)) {
      const again = new RegExp(`pilothouse: ${id} restarted \\(pid (\\d+)\\)`).exec(hup);
      expect(again, `${id} restarted:\n${hup}`).not.toBeNull();
      expect(Number(again![1])).not.toBe(old);
    }
    const order = [...hup.matchAll(/pilothouse: restarting (m\d|the API server|the controllers)(?: \((leader|follower))?/g)].map((m) => m[2] ?? m[1]);
    expect(order).toEqual(['follower', 'follower', 'leader', 'the API server', 'the controllers']);
    expect(hup).not.toMatch(/exited \(.*\); restarting in/); // asked-for stops are not crashes
    expect(await kubectlWorks(up)).toBe(true);
    expect(readyNodeCount((await up.kubectl(['get', 'nodes', '--no-headers'])).stdout)).toBe(3);
    const health = await up.etcdctl(['endpoint', 'health']);
    expect(health.code, health.stderr).toBe(0);

    expect(await up.stop()).toBe(0);
    expect(existsSync(pidFile)).toBe(false);
  }, 400_000);
});

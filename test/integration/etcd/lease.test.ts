// Leases through Debian's etcdctl 3.4 against a three-member cluster: grant,
// attach keys, time-to-live, list, keep-alive (also through followers, which
// forward to the leader), revoke, expiry, and expiry after the leader is
// killed (the new leader's lessor takes over the clocks). Run with
// PILOTHOUSE_TEST_IMPL=etcd to check the same expectations against etcd.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberNameForEndpoint, reapClusters, startTestCluster, TARGET, waitForLeader, type TestCluster } from '../../support/cluster';
import { etcdctl } from '../../support/etcdctl';

/** This file's ports: 24800–24899. */
const PORT_BASE = 24800;

/** etcdctl logs clientv3's retry warnings (JSON lines) before its own error line. */
const lastLine = (text: string) => text.trim().split('\n').pop();

const GRANTED = /^lease ([0-9a-f]{16}) granted with TTL\((\d+)s\)\n$/;

describe(`leases through etcdctl (${TARGET})`, () => {
  let tc: TestCluster;
  let leader: string;
  let followers: string[];
  const ctl = (args: string[], endpoints = tc.endpoints) => etcdctl(args, { endpoints });

  async function grant(ttl: number, endpoints = tc.endpoints): Promise<string> {
    const r = await ctl(['lease', 'grant', String(ttl)], endpoints);
    expect(r.stderr).toBe('');
    const m = GRANTED.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    return m![1]!;
  }

  async function keys(prefix: string, endpoints = tc.endpoints): Promise<string> {
    const r = await ctl(['get', prefix, '--prefix', '--keys-only', '--command-timeout=2s'], endpoints);
    return r.code === 0 ? r.stdout.split('\n').filter((l) => l !== '').join(',') : `error: ${r.stderr.trim()}`;
  }

  beforeAll(async () => {
    tc = await startTestCluster(TARGET, PORT_BASE);
    leader = (await waitForLeader(tc.endpoints, 10_000)).endpoint;
    followers = tc.endpoints.filter((e) => e !== leader);
  });
  afterAll(reapClusters);

  it('grant, attach keys, time-to-live with keys, list, keep-alive, revoke', async () => {
    const id = await grant(10);
    expect((await ctl(['put', '--lease', id, '/lease/a', '1'])).stdout).toBe('OK\n');
    expect((await ctl(['put', '--lease', id, '/lease/b', '2'])).stdout).toBe('OK\n');

    const ttl = await ctl(['lease', 'timetolive', id, '--keys']);
    const m = /^lease ([0-9a-f]{16}) granted with TTL\(10s\), remaining\((\d+)s\), attached keys\(\[\/lease\/a \/lease\/b\]\)\n$/.exec(ttl.stdout);
    expect(m, ttl.stdout + ttl.stderr).not.toBeNull();
    expect(m![1]).toBe(id);
    expect(Number(m![2])).toBeGreaterThanOrEqual(7);
    expect(Number(m![2])).toBeLessThanOrEqual(10);
    // a follower forwards time-to-live to the leader
    for (const f of followers) {
      const viaFollower = await ctl(['lease', 'timetolive', id], [f]);
      expect(viaFollower.stdout).toMatch(new RegExp(`^lease ${id} granted with TTL\\(10s\\), remaining\\((7|8|9|10)s\\)\\n$`));
    }

    const list = await ctl(['lease', 'list']);
    expect(list.stdout).toMatch(/^found \d+ leases\n/);
    expect(list.stdout.split('\n')).toContain(id);

    for (const ep of [leader, ...followers]) {
      const ka = await ctl(['lease', 'keep-alive', '--once', id], [ep]);
      expect(ka.stdout, `${ep}: ${ka.stderr}`).toBe(`lease ${id} keepalived with TTL(10)\n`);
    }

    expect((await ctl(['lease', 'revoke', id])).stdout).toBe(`lease ${id} revoked\n`);
    expect(await keys('/lease/')).toBe('');
    expect((await ctl(['lease', 'timetolive', id])).stdout).toBe(`lease ${id} already expired\n`);
    const gone = await ctl(['lease', 'keep-alive', '--once', id], [followers[0]!]);
    expect(gone.code).not.toBe(0);
    // clientv3's KeepAliveOnce turns the TTL 0 answer into ErrLeaseNotFound
    expect(lastLine(gone.stderr)).toBe('Error: etcdserver: requested lease not found');
  });

  it('a continuous keep-alive through a follower keeps a lease alive past its TTL', async () => {
    const id = await grant(3);
    expect((await ctl(['put', '--lease', id, '/alive/k', 'v'])).stdout).toBe('OK\n');
    // etcdctl renews every TTL/3 until killed (the harness SIGKILLs it at timeoutMs)
    const ka = await etcdctl(['lease', 'keep-alive', id], { endpoints: [followers[0]!], timeoutMs: 5_500 });
    const lines = ka.stdout.split('\n').filter((l) => l !== '');
    expect(lines.length, ka.stdout + ka.stderr).toBeGreaterThanOrEqual(3);
    for (const l of lines) expect(l).toBe(`lease ${id} keepalived with TTL(3)`);
    expect(await keys('/alive/')).toBe('/alive/k');
    expect((await ctl(['lease', 'timetolive', id])).stdout).toMatch(new RegExp(`^lease ${id} granted with TTL\\(3s\\), remaining\\([123]s\\)\\n$`));
  });

  it('the /v3 JSON gateway serves grant, time-to-live, leases and revoke (both of etcd 3.4\'s paths)', async () => {
    const post = async (path: string, body: object) => {
      const r = await fetch(`http://${leader}/v3/${path}`, { method: 'POST', body: JSON.stringify(body) });
      return { status: r.status, json: (await r.json()) as Record<string, unknown> };
    };
    const g = await post('lease/grant', { TTL: 30 });
    expect(g.status).toBe(200);
    expect(Object.keys(g.json).sort()).toEqual(['ID', 'TTL', 'header']);
    expect(g.json.TTL).toBe('30');
    const id = g.json.ID as string;
    expect(id).toMatch(/^\d+$/);
    for (const path of ['kv/lease/timetolive', 'lease/timetolive']) {
      const t = await post(path, { ID: id, keys: true });
      expect(t.json.ID).toBe(id);
      expect(t.json.grantedTTL).toBe('30');
      expect(['28', '29', '30']).toContain(t.json.TTL);
    }
    for (const path of ['kv/lease/leases', 'lease/leases']) {
      expect((await post(path, {})).json.leases).toContainEqual({ ID: id });
    }
    const r = await post('kv/lease/revoke', { ID: id });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(['header']);
    const gone = await post('lease/timetolive', { ID: id });
    expect(gone.json.TTL).toBe('-1');
    const again = await post('lease/revoke', { ID: id });
    expect(again.status).toBe(404);
    expect(again.json).toEqual({ error: 'etcdserver: requested lease not found', message: 'etcdserver: requested lease not found', code: 5 });
  });

  it('raises a TTL below the minimum, refuses puts on unknown leases and unknown revokes', async () => {
    const id = await grant(1);
    expect((await ctl(['lease', 'timetolive', id])).stdout).toMatch(new RegExp(`^lease ${id} granted with TTL\\(2s\\)`));
    const put = await ctl(['put', '--lease', '1234abcd', '/lease/x', 'v']);
    expect(put.code).toBe(1);
    expect(lastLine(put.stderr)).toBe('Error: etcdserver: requested lease not found');
    const revoke = await ctl(['lease', 'revoke', '1234abcd']);
    expect(revoke.code).toBe(1);
    expect(lastLine(revoke.stderr)).toBe('Error: failed to revoke lease (etcdserver: requested lease not found)');
    const big = await ctl(['lease', 'grant', '9000000001']);
    expect(lastLine(big.stderr)).toBe('Error: failed to grant lease (etcdserver: too large lease TTL)');
  });

  it('a lease that is not kept alive expires and takes its keys within TTL + 1 s', async () => {
    const id = await grant(3);
    const grantedAt = Date.now();
    expect((await ctl(['put', '--lease', id, '/expire/k', 'v'])).stdout).toBe('OK\n');
    let goneAfter = -1;
    while (Date.now() - grantedAt < 8_000) {
      if ((await keys('/expire/')) === '') {
        goneAfter = Date.now() - grantedAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    // TTL + 1 s, plus up to 0.5 s for the etcdctl run that observes it
    expect(goneAfter).toBeGreaterThan(2_500);
    expect(goneAfter).toBeLessThan(4_500);
    expect((await ctl(['lease', 'timetolive', id])).stdout).toBe(`lease ${id} already expired\n`);
  });

  it('after kill -9 of the leader, the new leader expires the lease', async () => {
    leader = (await waitForLeader(tc.endpoints, 5_000)).endpoint;
    const others = tc.endpoints.filter((e) => e !== leader);
    const id = await grant(4);
    const grantedAt = Date.now();
    expect((await ctl(['put', '--lease', id, '/failover/k', 'v'])).stdout).toBe('OK\n');
    const longId = await grant(600);
    expect((await ctl(['put', '--lease', longId, '/kept/k', 'v'])).stdout).toBe('OK\n');
    const name = memberNameForEndpoint(tc, leader);
    tc.cluster.member(name).kill('SIGKILL');
    await tc.cluster.member(name).waitExit();
    const killedAt = Date.now();

    let goneAfterKill = -1;
    let last = '';
    while (Date.now() - killedAt < 15_000) {
      last = await keys('/failover/', others);
      if (last === '') {
        goneAfterKill = Date.now() - killedAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    // The new leader restarts every lease's clock at TTL + one election timeout
    // when it takes over (etcd's Promote): gone after at most about
    // election (≤ 2 s) + TTL (4 s) + 1 s (+ slack for etcdctl runs).
    expect(goneAfterKill, `still there: ${last}`).toBeGreaterThanOrEqual(0);
    expect(goneAfterKill).toBeLessThan(9_000);
    expect(Date.now() - grantedAt).toBeGreaterThan(3_500);
    expect((await ctl(['lease', 'timetolive', id], others)).stdout).toBe(`lease ${id} already expired\n`);

    // Restarted from its data dir, the old leader rebuilds its leases from
    // the WAL: its local list has the long lease and not the expired one.
    tc.cluster.member(name).start();
    let listed = '';
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      // lease list is answered from the member's own lessor: right after the
      // restart it has replayed its WAL (both grants) and may not yet have
      // applied the revoke the new leader committed while it was down.
      listed = (await ctl(['lease', 'list', '--command-timeout=1s'], [leader])).stdout;
      const ids = listed.split('\n');
      if (ids.includes(longId) && !ids.includes(id)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(listed.split('\n')).toContain(longId);
    expect(listed.split('\n')).not.toContain(id);
    const kept = await ctl(['lease', 'timetolive', longId, '--keys'], [leader]);
    expect(kept.stdout).toMatch(new RegExp(`^lease ${longId} granted with TTL\\(600s\\), remaining\\(\\d+s\\), attached keys\\(\\[/kept/k\\]\\)\\n$`));
  });
});

// Kill -9 of the leader. With default timings (heartbeat 100 ms,
// election 1000 ms) writes succeed through the other members within 3 s, and
// the killed member, restarted from its data dir, catches up: a serializable
// read on it (answered from its own state) returns the writes it missed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberNameForEndpoint, PORTS, reapClusters, startTestCluster, TARGET, waitForLeader, type TestCluster } from '../../support/cluster';
import { etcdctl } from '../../support/etcdctl';

describe(`leader kill -9 (${TARGET})`, () => {
  let tc: TestCluster;
  beforeAll(async () => {
    tc = await startTestCluster(TARGET, PORTS.failover);
  });
  afterAll(reapClusters);

  it('keeps accepting writes and the restarted member catches up', async () => {
    const before = await etcdctl(['put', 'before', 'kill'], { endpoints: tc.endpoints });
    expect(before.code).toBe(0);
    const leader = await waitForLeader(tc.endpoints, 5_000);
    const leaderName = memberNameForEndpoint(tc, leader.endpoint);
    const others = tc.endpoints.filter((e) => e !== leader.endpoint);

    const killedAt = Date.now();
    tc.cluster.member(leaderName).kill('SIGKILL');
    await tc.cluster.member(leaderName).waitExit();

    let acceptedAfter = -1;
    let lastError = '';
    while (Date.now() - killedAt < 3_000) {
      const r = await etcdctl(['put', 'after', 'kill', '--command-timeout=1s'], { endpoints: others, timeoutMs: 3_000 });
      if (r.code === 0 && r.stdout.trim() === 'OK') {
        acceptedAfter = Date.now() - killedAt;
        break;
      }
      lastError = r.stderr;
    }
    expect(acceptedAfter, `no write accepted within 3 s: ${lastError}`).toBeGreaterThanOrEqual(0);
    expect(acceptedAfter).toBeLessThan(3_000);

    for (let i = 0; i < 5; i++) {
      expect((await etcdctl(['put', `missed${i}`, `v${i}`], { endpoints: others })).code).toBe(0);
    }
    const newLeader = await waitForLeader(others, 3_000);
    expect(newLeader.memberId).not.toBe(leader.memberId);

    tc.cluster.member(leaderName).start();
    const deadline = Date.now() + 10_000;
    let seen = '';
    while (Date.now() < deadline) {
      const r = await etcdctl(['get', 'missed', '--prefix', '--consistency=s', '--print-value-only', '--command-timeout=1s'], {
        endpoints: [leader.endpoint],
      });
      seen = r.stdout;
      if (seen === 'v0\nv1\nv2\nv3\nv4\n') break;
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(seen).toBe('v0\nv1\nv2\nv3\nv4\n');
    const old = await etcdctl(['get', 'before', '--consistency=s', '--print-value-only'], { endpoints: [leader.endpoint] });
    expect(old.stdout).toBe('kill\n');
  });
});

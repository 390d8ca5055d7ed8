// Two of three members down. Writes through the survivor fail
// with etcd's text, a failed multi-key txn leaves no key behind (all or
// nothing, checked on every member after recovery), a serializable read
// still answers on the survivor, and restarting one member brings writes back.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberNameForEndpoint, PORTS, reapClusters, startTestCluster, TARGET, waitForLeader, type TestCluster } from '../../support/cluster';
import { etcdctl } from '../../support/etcdctl';

// What etcdctl 3.4 prints when a write cannot reach a quorum: the server's
// timeout, its leader-loss variants, or the client's own deadline (etcd 3.4
// reports the latter for txn as "rpc error: code = Unknown desc = context
// deadline exceeded": the server saw the client's deadline first).
const QUORUM_LOSS_ERRORS =
  /Error: ((rpc error: code = (Unknown|DeadlineExceeded) desc = )?context deadline exceeded|etcdserver: request timed out(, possibly due to previous leader failure)?|etcdserver: no leader)\n$/;

const TXN_TWO_KEYS = ['', 'put half/a 1', 'put half/b 2', '', '', ''].join('\n');

describe(`two of three members down (${TARGET})`, () => {
  let tc: TestCluster;
  beforeAll(async () => {
    tc = await startTestCluster(TARGET, PORTS.quorumLoss);
  });
  afterAll(reapClusters);

  it('refuses writes without a quorum, still serves serializable reads, recovers', async () => {
    expect((await etcdctl(['put', 'stable', 'yes'], { endpoints: tc.endpoints })).code).toBe(0);
    const leader = await waitForLeader(tc.endpoints, 5_000);
    // Keep a follower: the leader is among the two that go down.
    const survivor = tc.cluster.layout.find((m) => m.endpoint !== leader.endpoint)!;
    const downed = tc.cluster.layout.filter((m) => m.name !== survivor.name);
    expect(downed.map((m) => m.endpoint)).toContain(leader.endpoint);
    for (const m of downed) tc.cluster.member(m.name).kill('SIGKILL');
    await Promise.all(downed.map((m) => tc.cluster.member(m.name).waitExit()));

    const put = await etcdctl(['put', 'lost', 'write', '--command-timeout=3s'], { endpoints: [survivor.endpoint], timeoutMs: 10_000 });
    expect(put.code).not.toBe(0);
    expect(put.stderr).toMatch(QUORUM_LOSS_ERRORS);
    const txn = await etcdctl(['txn', '--command-timeout=3s'], { endpoints: [survivor.endpoint], stdin: TXN_TWO_KEYS, timeoutMs: 10_000 });
    expect(txn.code).not.toBe(0);
    expect(txn.stderr).toMatch(QUORUM_LOSS_ERRORS);

    const read = await etcdctl(['get', 'stable', '--consistency=s', '--print-value-only'], { endpoints: [survivor.endpoint] });
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toBe('yes\n');
    const linearizable = await etcdctl(['get', 'stable', '--command-timeout=2s'], { endpoints: [survivor.endpoint], timeoutMs: 10_000 });
    expect(linearizable.code).not.toBe(0);

    const back = downed.find((m) => m.endpoint !== leader.endpoint) ?? downed[0]!;
    tc.cluster.member(back.name).start();
    const up = [survivor.endpoint, back.endpoint];
    const deadline = Date.now() + 15_000;
    let ok = false;
    while (!ok && Date.now() < deadline) {
      ok = (await etcdctl(['put', 'recovered', 'yes', '--command-timeout=1s'], { endpoints: up, timeoutMs: 3_000 })).code === 0;
    }
    expect(ok, 'writes resume once a quorum is back').toBe(true);

    // All or nothing, and the same on every member once all are back.
    tc.cluster.member(downed.find((m) => m.name !== back.name)!.name).start();
    expect((await tc.cluster.waitReady(15_000)).ok).toBe(true);
    const views: string[] = [];
    for (const m of tc.cluster.layout) {
      const r = await etcdctl(['get', 'half/', '--prefix', '--keys-only', '--consistency=s'], { endpoints: [m.endpoint] });
      views.push(r.stdout);
    }
    expect(['', 'half/a\n\nhalf/b\n\n']).toContain(views[0]);
    expect(new Set(views).size).toBe(1);
    expect(memberNameForEndpoint(tc, survivor.endpoint)).toBe(survivor.name);
  });
});

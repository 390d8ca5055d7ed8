// Three members started with etcd flags are healthy within 5 s,
// `member list` shows three started members with the URLs they were given,
// and `endpoint status` shows exactly one leader and one raft term.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PORTS, reapClusters, startTestCluster, TARGET, waitForLeader, type TestCluster } from '../../support/cluster';
import { endpointStatus, etcdctl } from '../../support/etcdctl';

describe(`three-member cluster (${TARGET})`, () => {
  let tc: TestCluster;
  let startedAt = 0;

  beforeAll(async () => {
    startedAt = Date.now();
    // Only spawn: the first test measures readiness from process start.
    tc = await startTestCluster(TARGET, PORTS.cluster, 0);
  });
  afterAll(reapClusters);

  it('reports every endpoint healthy within 5 s of start', async () => {
    let out = '';
    let healthyAt = -1;
    // Bounded at 15 s so a slow start reports how slow instead of just "no".
    while (Date.now() - startedAt < 15_000) {
      const r = await etcdctl(['endpoint', 'health', '--command-timeout=1s'], { endpoints: tc.endpoints });
      out = r.stdout + r.stderr;
      if (r.code === 0) {
        healthyAt = Date.now() - startedAt;
        break;
      }
      await new Promise((res) => setTimeout(res, 100));
    }
    for (const ep of tc.endpoints) expect(out).toMatch(new RegExp(`${ep} is healthy: successfully committed proposal: took = `));
    expect(healthyAt, `all healthy after ${healthyAt} ms`).toBeGreaterThanOrEqual(0);
    expect(healthyAt, `all healthy after ${healthyAt} ms`).toBeLessThan(5_000);
  });

  it('lists three started members with their URLs', async () => {
    const r = await etcdctl(['member', 'list', '-w', 'table'], { endpoints: tc.endpoints });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[1]).toMatch(/^\|\s+ID\s+\|\s+STATUS\s+\|\s+NAME\s+\|\s+PEER ADDRS\s+\|\s+CLIENT ADDRS\s+\|\s+IS LEARNER\s+\|$/);
    const rows = lines.filter((l) => /^\| [0-9a-f]{1,16} /.test(l));
    expect(rows).toHaveLength(3);
    for (const m of tc.cluster.layout) {
      // etcdctl centres table cells, so columns are matched with \s+.
      const row = rows.find((l) => new RegExp(`\\|\\s+${m.name}\\s+\\|`).test(l));
      expect(row, m.name).toBeDefined();
      expect(row).toMatch(new RegExp(`\\|\\s+started\\s+\\|\\s+${m.name}\\s+\\|\\s+${m.peerUrl}\\s+\\|\\s+${m.clientUrl}\\s+\\|\\s+false \\|$`));
    }
  });

  it('has exactly one leader and one raft term', async () => {
    await waitForLeader(tc.endpoints, 5_000);
    const statuses = await endpointStatus(tc.endpoints);
    expect(statuses).toHaveLength(3);
    expect(new Set(statuses.map((s) => s.leader)).size).toBe(1);
    expect(statuses.filter((s) => s.memberId === s.leader)).toHaveLength(1);
    expect(new Set(statuses.map((s) => s.raftTerm)).size).toBe(1);
    const table = await etcdctl(['endpoint', 'status', '-w', 'table'], { endpoints: tc.endpoints });
    expect(table.code).toBe(0);
    const rows = table.stdout.split('\n').filter((l) => l.startsWith('| 127.0.0.1:'));
    expect(rows).toHaveLength(3);
    expect(rows.filter((l) => /\|\s+true\s+\|\s+false\s+\|/.test(l))).toHaveLength(1);
  });

  // etcd re-raises the signal after its cleanup (pkg/osutil), so it dies "by
  // SIGTERM"; `pilothouse etcd` exits 0 as its issue asks. Either way each
  // member must exit on its own, before the harness would SIGKILL it.
  it('stops every member gracefully on SIGTERM', async () => {
    const stopStarted = Date.now();
    const codes = await Promise.all(
      [...tc.cluster.members.values()].map(async (m) => {
        const exit = m.waitExit();
        m.kill('SIGTERM');
        return exit;
      }),
    );
    expect(codes).toEqual(TARGET === 'etcd' ? [null, null, null] : [0, 0, 0]);
    expect(Date.now() - stopStarted).toBeLessThan(10_000);
  });
});

// Auto-compaction: a 3-member cluster started with
// --auto-compaction-mode=revision --auto-compaction-retention=10 compacts,
// on its leader only, to current - 10 once writes stop; older revisions then
// fail with etcd's compacted error. Pilothouse members get a 300 ms interval
// through the test-only PILOTHOUSE_AUTO_COMPACTION_INTERVAL_MS; Debian's etcd
// (PILOTHOUSE_TEST_IMPL=etcd) ignores it and uses its fixed 5 minutes, so
// that run takes about 5 minutes. Ports 25300–25399: the cluster on 25300.

import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberLogTails, memberNameForEndpoint, reapClusters, startTestCluster, TARGET, waitForLeader, type TestCluster } from '../../support/cluster';
import { etcdctl } from '../../support/etcdctl';

const PORT_BASE = 25300;
const INTERVAL_ENV = 'PILOTHOUSE_AUTO_COMPACTION_INTERVAL_MS';
/** etcd's revision-mode interval is 5 minutes; ours is shortened to 300 ms. */
const WAIT_MS = TARGET === 'etcd' ? 6 * 60_000 : 20_000;
const COMPACTED = 'Error: etcdserver: mvcc: required revision has been compacted';

describe(`auto-compaction (${TARGET})`, () => {
  let tc: TestCluster;
  const savedInterval = process.env[INTERVAL_ENV];

  beforeAll(async () => {
    process.env[INTERVAL_ENV] = '300';
    tc = await startTestCluster(TARGET, PORT_BASE, 20_000, {
      extraFlags: ['--auto-compaction-mode=revision', '--auto-compaction-retention=10'],
    });
  }, 30_000);

  afterAll(async () => {
    if (savedInterval === undefined) delete process.env[INTERVAL_ENV];
    else process.env[INTERVAL_ENV] = savedInterval;
    await reapClusters();
  });

  it(
    'the leader compacts to current - retention; older revisions are gone, later ones stay',
    async () => {
      const leader = await waitForLeader(tc.endpoints, 10_000);
      // A fresh cluster is at revision 1: the puts make revisions 2..31 (v0 at 2, v19 at 21).
      for (let i = 0; i < 30; i++) {
        const r = await etcdctl(['put', 'k', `v${i}`], { endpoints: [leader.endpoint] });
        expect(r.code, r.stderr).toBe(0);
      }
      const deadline = Date.now() + WAIT_MS;
      let last = await etcdctl(['get', 'k', '--rev=20'], { endpoints: tc.endpoints });
      while (last.code === 0 && Date.now() < deadline) {
        await new Promise((res) => setTimeout(res, 200));
        last = await etcdctl(['get', 'k', '--rev=20'], { endpoints: tc.endpoints });
      }
      expect(last.code, `${last.stdout}\n${memberLogTails(tc.cluster)}`).toBe(1);
      expect(last.stderr).toContain(COMPACTED);

      // Every member applied the compaction to exactly 31 - 10 = 21.
      for (const endpoint of tc.endpoints) {
        const old = await etcdctl(['get', 'k', '--rev=2'], { endpoints: [endpoint] });
        expect(old.code).toBe(1);
        expect(old.stderr).toContain(COMPACTED);
        const kept = await etcdctl(['get', 'k', '--rev=21', '--print-value-only'], { endpoints: [endpoint] });
        expect(kept.code, kept.stderr).toBe(0);
        expect(kept.stdout).toBe('v19\n');
      }

      // Only the leader ran the compactor.
      const leaderName = memberNameForEndpoint(tc, leader.endpoint);
      for (const m of tc.cluster.layout) {
        const log = existsSync(m.logFile) ? readFileSync(m.logFile, 'utf8') : '';
        if (m.name === leaderName) expect(log).toContain('compactor: Finished auto-compaction at revision 21');
        else expect(log).not.toContain('Starting auto-compaction');
      }
    },
    WAIT_MS + 30_000,
  );
});

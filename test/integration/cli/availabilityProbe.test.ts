// The availability probe against a real plane (`pilothouse up`): while it
// writes through etcd and through the API server, the etcd leader member is
// killed with SIGKILL and nothing else is touched (up's supervisor restarts
// the member). The probe sees the etcd channel fail or stall, writes succeed
// again, no acknowledged write is lost on either channel, and at its stop
// nothing it wrote is left: Debian's etcdctl with DIR/etcdctl.env finds no
// key under its prefix, kubectl with DIR/kubeconfig no ConfigMap with its label.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEtcdctlEnv } from '../../../main/backup/clusterAccess';
import { AvailabilityProbe, formatAvailability, type AvailabilityReport } from '../../../main/upgrade/availabilityProbe';
import { PROBE_LABEL, ETCD_PROBE_PREFIX } from '../../../main/upgrade/probeWriters';
import { run } from '../../support/apiserver';
import { ETCDCTL, parseJsonWithBigIds } from '../../support/etcdctl';
import { reapUps, startUp, type UpRun } from '../../support/upProcess';
import { eventually } from '../../support/waitFor';

// Members 26520–26525, the API server 26526.
const PORT_BASE = 26520;

let probe: AvailabilityProbe | undefined;
afterAll(async () => {
  await probe?.stop().catch(() => {});
  reapUps();
});

/** Debian's etcdctl 3.4 as DIR/etcdctl.env sets it up. */
function etcdctlWithEnv(up: UpRun, args: string[]) {
  return run(ETCDCTL, args, { ...readEtcdctlEnv(up.dir), ETCDCTL_API: '3' }, { timeoutMs: 20_000 });
}

/** The name (m1…) of the member that leads now, by `endpoint status` of every member. */
async function leaderName(up: UpRun): Promise<string | undefined> {
  const r = await up.etcdctl(['endpoint', 'status', '-w', 'json']);
  if (r.stdout.trim() === '') return undefined;
  const rows = parseJsonWithBigIds(r.stdout) as { Endpoint: string; Status: { header: { member_id: string }; leader: string } }[];
  const leader = rows.find((row) => String(row.Status.header.member_id) === String(row.Status.leader));
  const index = leader ? up.endpoints.indexOf(leader.Endpoint) : -1;
  return index < 0 ? undefined : `m${index + 1}`;
}

/** The pid up last named for a member, checked to be up's own child. */
function memberPid(up: UpRun, name: string): number {
  const all = [...up.output().matchAll(new RegExp(`${name} (?:pid|restarted \\(pid) (\\d+)`, 'g'))];
  const pid = Number(all[all.length - 1]![1]);
  const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
  expect(ppid, `${name} (pid ${pid}) is a child of up (pid ${up.child.pid})`).toBe(up.child.pid);
  return pid;
}

const live = () => probe!.snapshot();
const acked = (r: AvailabilityReport) => ({ etcd: r.etcd!.acknowledged, apiserver: r.apiserver!.acknowledged });

describe('the availability probe on a plane whose etcd leader is killed', () => {
  it('counts the outage, loses no acknowledged write, and leaves nothing behind', async () => {
    const up = startUp(PORT_BASE);
    await up.waitFor(/pilothouse: control plane ready/, 120_000);
    const pki = join(up.dir, 'pki');
    const runId = `itest-${process.pid}`;
    probe = new AvailabilityProbe({
      etcd: { endpoints: up.endpoints, tls: { ca: readFileSync(join(pki, 'ca.crt')), cert: readFileSync(join(pki, 'client.crt')), key: readFileSync(join(pki, 'client.key')) } },
      kubeconfig: join(up.dir, 'kubeconfig'),
      runId,
      intervalMs: 100,
      writeTimeoutMs: 2_000,
      maxDurationMs: 180_000,
    });
    probe.start();
    await eventually('20 acknowledged writes on each channel', () => acked(live()).etcd >= 20 && acked(live()).apiserver >= 20, { timeoutMs: 30_000 });

    const leader = await eventually('a leader', () => leaderName(up), { timeoutMs: 10_000 });
    const pid = memberPid(up, leader);
    const from = up.output().length;
    const before = acked(live());
    process.kill(pid, 'SIGKILL');
    console.log(`killed the leader ${leader} (pid ${pid})`);
    await up.waitFor(new RegExp(`pilothouse: ${leader} restarted \\(pid (\\d+)\\)`), 15_000, from);

    // Writes succeed again on both channels, and have for a while.
    await eventually(
      'both channels writing again',
      () => {
        const r = live();
        const now = acked(r);
        return !r.etcd!.longestWindow?.ongoing && !r.apiserver!.longestWindow?.ongoing && now.etcd >= before.etcd + 30 && now.apiserver >= before.apiserver + 30;
      },
      { timeoutMs: 60_000, intervalMs: 200, detail: () => formatAvailability(live()).join('\n') },
    );

    const report = await probe.stop();
    const lines = formatAvailability(report);
    console.log(lines.join('\n'));
    const etcd = report.etcd!;
    const api = report.apiserver!;
    expect(etcd.failedCount > 0 || etcd.longestUnavailableMs > 0, lines.join('\n')).toBe(true);
    for (const c of [etcd, api]) {
      expect(c.verifyError, lines.join('\n')).toBeUndefined();
      expect(c.cleanupError, lines.join('\n')).toBeUndefined();
      expect(c.lost, lines.join('\n')).toBe(0);
      expect(c.acknowledged).toBe(c.writes - c.failedCount);
      expect(c.acknowledged).toBeGreaterThan(50);
    }

    const keys = await etcdctlWithEnv(up, ['get', '--prefix', '--keys-only', `${ETCD_PROBE_PREFIX}${runId}/`]);
    expect(keys.code, keys.stderr).toBe(0);
    expect(keys.stdout).toBe('');
    const cms = await up.kubectl(['get', 'configmaps', '-n', 'default', '-l', `${PROBE_LABEL}=${runId}`, '-o', 'name']);
    expect(cms.code, cms.stderr).toBe(0);
    expect(cms.stdout).toBe('');

    expect(await up.stop()).toBe(0);
  }, 300_000);
});

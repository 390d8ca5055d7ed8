// Before a backup: is the cluster in a state worth snapshotting? Every member
// answers Status and a linearizable read (`etcdctl endpoint health`), they
// agree on exactly one leader, no alarm is raised (`etcdctl alarm list`), and
// the database is below its quota (`etcdctl endpoint status`: DB SIZE).
// The verdict carries the numbers, so the report says what was seen.

import { ALARM_NAMES, idHex } from '../client/etcd/memberClient';
import { humanizeBytes } from '../etcd/snapshot/index';
import type { BackupCluster } from './clusterAccess';

/** etcd's default --quota-backend-bytes (0 means this: 2 GiB). */
export const DEFAULT_QUOTA_BYTES = 2 * 1024 * 1024 * 1024;

export interface MemberCheck {
  name: string;
  healthy: boolean;
  /** Hex id, when Status answered. */
  id?: string;
  dbSize?: number;
  error?: string;
}

export interface PreflightResult {
  ok: boolean;
  members: MemberCheck[];
  /** Name of the one leader all healthy members name. */
  leader?: string;
  clusterId?: string;
  revision?: number;
  alarms: string[];
  dbSizeBytes: number;
  quotaBytes: number;
  /** One line with the numbers (the step's verdict, or why it failed). */
  summary: string;
}

export interface PreflightOptions {
  quotaBytes?: number;
  timeoutMs?: number;
}

export async function preflight(cluster: BackupCluster, o: PreflightOptions = {}): Promise<PreflightResult> {
  const timeoutMs = o.timeoutMs ?? 3_000;
  const quotaBytes = o.quotaBytes ?? DEFAULT_QUOTA_BYTES;
  const statuses = await Promise.all(
    cluster.members.map(async (m) => {
      try {
        const st = await m.client.status(timeoutMs);
        await m.client.healthRead(timeoutMs);
        return { m, st };
      } catch (err) {
        return { m, error: (err as Error).message };
      }
    }),
  );
  const members: MemberCheck[] = statuses.map((s) =>
    s.st
      ? { name: s.m.name, healthy: true, id: idHex(s.st.header!.member_id), dbSize: Number(s.st.dbSize) }
      : { name: s.m.name, healthy: false, error: s.error! },
  );
  const healthy = statuses.filter((s) => s.st !== undefined);
  const leaders = new Set(healthy.map((s) => idHex(s.st!.leader)));
  const leaderId = leaders.size === 1 ? [...leaders][0]! : undefined;
  const leader = members.find((m) => m.id !== undefined && m.id === leaderId)?.name;
  const dbSizeBytes = Math.max(0, ...members.map((m) => m.dbSize ?? 0));
  const first = healthy[0]?.st;

  let alarms: string[] = [];
  const problems: string[] = [];
  for (const m of members) if (!m.healthy) problems.push(`${m.name} unhealthy (${m.error})`);
  if (leaderId === undefined || leaderId === '0000000000000000') problems.push(leaders.size > 1 ? `members disagree on the leader (${[...leaders].join(', ')})` : 'no leader');
  else if (leader === undefined) problems.push(`leader ${leaderId} is not one of the members`);
  const alarmSource = healthy[0]?.m;
  if (alarmSource !== undefined) {
    try {
      alarms = (await alarmSource.client.alarms(timeoutMs)).map((a) => `memberID:${BigInt(a.memberID)} alarm:${ALARM_NAMES[a.alarm] ?? a.alarm}`);
    } catch (err) {
      problems.push(`alarm list failed (${(err as Error).message})`);
    }
  }
  if (alarms.length > 0) problems.push(`alarm raised: ${alarms.join('; ')}`);
  if (dbSizeBytes >= quotaBytes) problems.push(`DB size ${humanizeBytes(dbSizeBytes)} reached the quota ${humanizeBytes(quotaBytes)}`);

  const pct = ((dbSizeBytes / quotaBytes) * 100).toFixed(1);
  const numbers =
    `${healthy.length}/${members.length} members healthy, leader ${leader ?? 'none'}, ` +
    `${alarms.length === 0 ? 'no alarms' : `${alarms.length} alarm(s)`}, DB ${humanizeBytes(dbSizeBytes)} of ${humanizeBytes(quotaBytes)} quota (${pct}%)`;
  return {
    ok: problems.length === 0,
    members,
    ...(leader !== undefined ? { leader } : {}),
    ...(first ? { clusterId: idHex(first.header!.cluster_id), revision: Number(first.header!.revision) } : {}),
    alarms,
    dbSizeBytes,
    quotaBytes,
    summary: problems.length === 0 ? numbers : `${problems.join('; ')} — ${numbers}`,
  };
}

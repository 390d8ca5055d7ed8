// The status a StorageVersionMigration moves through, as kube's
// storage-version-migrator controller writes it: Running (reason
// StorageVersionMigrationInProgress) while objects are rewritten, then
// Succeeded or Failed, with Running turned False; a finished migration is
// never run again. Pure: the controller passes the time in.

import { MIGRATION_RUNNING, MIGRATION_SUCCEEDED, type MigrationCondition, type StorageVersionMigration } from '../../../kube/storageVersionMigration';

export const REASON_SUCCEEDED = 'StorageVersionMigrationSucceeded';
export const REASON_RUNNING = 'StorageVersionMigrationInProgress';
export const REASON_FAILED = 'StorageVersionMigrationFailed';

/** metav1.Now() as JSON carries it: RFC 3339, whole seconds. */
const timestamp = (nowMs: number): string => `${new Date(nowMs).toISOString().slice(0, 19)}Z`;

/** "migrated 120 of 400 objects": the Running condition's message. */
export function progressMessage(done: number, total: number): string {
  return `migrated ${done} of ${total} object${total === 1 ? '' : 's'}`;
}

/** A copy with the condition of `type` set (in place when present, appended otherwise). */
function withCondition(m: StorageVersionMigration, c: MigrationCondition): StorageVersionMigration {
  const out = structuredClone(m);
  const conds = out.status?.conditions ?? [];
  const i = conds.findIndex((x) => x.type === c.type);
  if (i >= 0) conds[i] = c;
  else conds.push(c);
  out.status = { ...out.status, conditions: conds };
  return out;
}

/** Running=True with the progress so far. */
export function running(m: StorageVersionMigration, message: string, nowMs: number): StorageVersionMigration {
  return withCondition(m, { type: MIGRATION_RUNNING, status: 'True', lastUpdateTime: timestamp(nowMs), reason: REASON_RUNNING, message });
}

/** Succeeded or Failed =True; a Running condition stays, turned False (kube's setStatusConditions). */
export function finished(m: StorageVersionMigration, outcome: 'Succeeded' | 'Failed', message: string, nowMs: number): StorageVersionMigration {
  const out = withCondition(m, {
    type: outcome,
    status: 'True',
    lastUpdateTime: timestamp(nowMs),
    reason: outcome === MIGRATION_SUCCEEDED ? REASON_SUCCEEDED : REASON_FAILED,
    ...(message ? { message } : {}),
  });
  const r = out.status?.conditions?.find((c) => c.type === MIGRATION_RUNNING);
  if (r) r.status = 'False';
  return out;
}

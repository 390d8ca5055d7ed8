// storagemigration.k8s.io/v1alpha1 StorageVersionMigration as JSON, and the
// condition types kube defines for it: what the API server validates and the
// storage-version-migrator controller writes.

import type { KObject } from './object';

export const MIGRATION_RUNNING = 'Running';
export const MIGRATION_SUCCEEDED = 'Succeeded';
export const MIGRATION_FAILED = 'Failed';

export interface MigrationCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastUpdateTime?: string;
  reason?: string;
  message?: string;
}

export interface StorageVersionMigration extends KObject {
  spec?: { resource?: { group?: string; version?: string; resource?: string }; continueToken?: string };
  status?: { conditions?: MigrationCondition[]; resourceVersion?: string };
}

/** The first condition of that type is True (kube's getCondition / IsConditionTrue). */
export const isConditionTrue = (m: StorageVersionMigration, type: string): boolean => m.status?.conditions?.find((c) => c.type === type)?.status === 'True';

/** Succeeded or Failed: the migration is over and is never run again. */
export const isFinished = (m: StorageVersionMigration): boolean => isConditionTrue(m, MIGRATION_SUCCEEDED) || isConditionTrue(m, MIGRATION_FAILED);

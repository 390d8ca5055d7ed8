// Retention as k3s applies it (--etcd-snapshot-retention): after each
// scheduled backup, only the newest N scheduled backups are kept. Backups
// taken by hand (source 'save') are never pruned, as k3s leaves its on-demand
// snapshots alone; a file without metadata is not ours to judge and stays.

import { rmSync } from 'node:fs';
import { metadataPath } from './metadata';
import type { BackupEntry } from './catalog';

export const DEFAULT_RETENTION = 5;

/** The entries to delete so that `keep` scheduled backups remain (entries in any order). */
export function selectForPruning(entries: BackupEntry[], keep: number): BackupEntry[] {
  if (!Number.isInteger(keep) || keep < 1) throw new Error(`retention must be a positive integer, got ${keep}`);
  const scheduled = entries.filter((e) => e.meta?.source === 'schedule');
  scheduled.sort((a, b) => b.takenAt.localeCompare(a.takenAt) || b.name.localeCompare(a.name));
  return scheduled.slice(keep);
}

/** Deletes the snapshot and its metadata of each entry; returns their names. */
export function prune(entries: BackupEntry[]): string[] {
  for (const e of entries) {
    rmSync(e.file, { force: true });
    rmSync(metadataPath(e.file), { force: true });
  }
  return entries.map((e) => e.name);
}

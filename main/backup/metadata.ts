// A stored backup's metadata: `<file>.json` beside the snapshot file, so a
// directory of backups describes itself (what was checked, when, from where,
// and the last restore drill) without re-reading every snapshot.

import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import type { SnapshotFacts } from './inspect';

export interface DrillRecord {
  at: string;
  verdict: 'restorable' | 'failed';
  rtoMs?: number;
  reason?: string;
}

export interface BackupMetadata {
  facts: SnapshotFacts;
  /** ISO time the snapshot was taken. */
  takenAt: string;
  /** Name of the member that streamed it. */
  member: string;
  /** Hex cluster id of the cluster it came from. */
  clusterId: string;
  /** 'import': copied in from elsewhere (the console's Import); member and clusterId are then ''. */
  source: 'save' | 'schedule' | 'import';
  /** With source 'import': the path the file was imported from. */
  importedFrom?: string;
  lastDrill?: DrillRecord;
}

export function metadataPath(snapshotFile: string): string {
  return `${snapshotFile}.json`;
}

/** Writes `<file>.json` (0600) atomically: a crash leaves the old or the new, never half. */
export function writeMetadata(snapshotFile: string, meta: BackupMetadata): void {
  const target = metadataPath(snapshotFile);
  const tmp = `${target}.part`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(meta, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, target);
}

/** The metadata beside a snapshot, or undefined when it has none (or it is unreadable). */
export function readMetadata(snapshotFile: string): BackupMetadata | undefined {
  const p = metadataPath(snapshotFile);
  if (!existsSync(p)) return undefined;
  try {
    return JSON.parse(readFileSync(p, 'utf8')) as BackupMetadata;
  } catch {
    return undefined;
  }
}

/** Records a restore drill's outcome in the snapshot's metadata. */
export function recordDrill(snapshotFile: string, drill: DrillRecord): void {
  const meta = readMetadata(snapshotFile);
  if (meta === undefined) throw new Error(`no metadata for ${snapshotFile} (${metadataPath(snapshotFile)})`);
  writeMetadata(snapshotFile, { ...meta, lastDrill: drill });
}

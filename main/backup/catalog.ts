// The backups in a directory (DIR/snapshots by default): every complete
// snapshot file (*.db; a *.db.part is a save in progress or one that died)
// with its metadata when it has some, newest first, and the table
// `pilothouse backup list` prints in etcdctl's table style.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { humanizeBytes } from '../etcd/snapshot/index';
import { readMetadata, type BackupMetadata } from './metadata';

/** "2026-11-30T19-37-50.123Z.db": sortable, no characters a shell or Windows minds. */
export function backupFileName(at: Date): string {
  return `${at.toISOString().replace(/:/g, '-')}.db`;
}

export interface BackupEntry {
  name: string;
  file: string;
  sizeBytes: number;
  /** The metadata's takenAt, else the file's mtime. */
  takenAt: string;
  meta?: BackupMetadata;
}

export function listBackups(dir: string): BackupEntry[] {
  if (!existsSync(dir)) return [];
  const out: BackupEntry[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.db') || name.startsWith('.')) continue;
    const file = join(dir, name);
    const st = statSync(file, { throwIfNoEntry: false });
    if (!st?.isFile()) continue;
    const meta = readMetadata(file);
    out.push({ name, file, sizeBytes: st.size, takenAt: meta?.takenAt ?? st.mtime.toISOString(), ...(meta ? { meta } : {}) });
  }
  return out.sort((a, b) => b.takenAt.localeCompare(a.takenAt) || b.name.localeCompare(a.name));
}

const HEADERS = ['NAME', 'TAKEN AT', 'SOURCE', 'MEMBER', 'REVISION', 'LIVE KEYS', 'SIZE', 'LAST DRILL'];

function cells(e: BackupEntry): string[] {
  const m = e.meta;
  const drill = m?.lastDrill ? `${m.lastDrill.verdict} ${m.lastDrill.at}` : '-';
  return [e.name, e.takenAt, m?.source ?? '-', m?.member ?? '-', m ? String(m.facts.revision) : '-', m ? String(m.facts.totalKeys) : '-', humanizeBytes(e.sizeBytes), drill];
}

/** etcdctl's -w table (olekukonko/tablewriter): centred upper-case headers, one row per backup. */
export function formatBackupTable(entries: BackupEntry[]): string {
  const rows = entries.map(cells);
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  const centre = (s: string, w: number) => {
    const gap = w - s.length;
    const left = Math.floor(gap / 2);
    return ' '.repeat(left) + s + ' '.repeat(gap - left);
  };
  const head = `|${HEADERS.map((h, i) => ` ${centre(h, widths[i]!)} `).join('|')}|`;
  const body = rows.map((r) => `|${r.map((c, i) => ` ${c.padEnd(widths[i]!)} `).join('|')}|`);
  return [line, head, line, ...body, line, ''].join('\n');
}

export function formatBackupJson(entries: BackupEntry[]): string {
  return `${JSON.stringify({ backups: entries })}\n`;
}

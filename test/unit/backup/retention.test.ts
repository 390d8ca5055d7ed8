import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listBackups, type BackupEntry } from '../../../main/backup/catalog';
import { writeMetadata, type BackupMetadata } from '../../../main/backup/metadata';
import { prune, selectForPruning } from '../../../main/backup/retention';

const entry = (name: string, takenAt: string, source?: 'save' | 'schedule'): BackupEntry => ({
  name, file: `/b/${name}`, sizeBytes: 1, takenAt,
  ...(source ? { meta: { source, takenAt } as BackupMetadata } : {}),
});

describe('retention', () => {
  const cases = [
    {
      name: 'keeps the newest N scheduled backups',
      entries: [entry('a', '2026-01-01', 'schedule'), entry('c', '2026-01-03', 'schedule'), entry('b', '2026-01-02', 'schedule'), entry('d', '2026-01-04', 'schedule')],
      keep: 2, want: ['b', 'a'],
    },
    {
      name: 'never prunes backups taken by hand or files without metadata',
      entries: [entry('old-manual', '2025-01-01', 'save'), entry('stray', '2025-01-01'), entry('s1', '2026-01-01', 'schedule'), entry('s2', '2026-01-02', 'schedule')],
      keep: 1, want: ['s1'],
    },
    { name: 'fewer than N: nothing', entries: [entry('s1', '2026-01-01', 'schedule')], keep: 5, want: [] },
  ];
  it.each(cases)('$name', ({ entries, keep, want }) => expect(selectForPruning(entries, keep).map((e) => e.name)).toEqual(want));

  it('refuses a retention below 1', () => expect(() => selectForPruning([], 0)).toThrow('retention must be a positive integer'));

  describe('on disk', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'ph-retention-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('removes the snapshot and its metadata, and the list shows the rest newest first', () => {
      for (const [i, source] of (['schedule', 'schedule', 'save', 'schedule'] as const).entries()) {
        const file = join(dir, `2026-01-0${i + 1}.db`);
        writeFileSync(file, 'x');
        writeMetadata(file, { takenAt: `2026-01-0${i + 1}T00:00:00.000Z`, source, member: 'm1', clusterId: 'c', facts: { revision: i } as BackupMetadata['facts'] });
      }
      writeFileSync(join(dir, 'half.db.part'), 'x');
      const removed = prune(selectForPruning(listBackups(dir), 2));
      expect(removed).toEqual(['2026-01-01.db']);
      expect(existsSync(join(dir, '2026-01-01.db.json'))).toBe(false);
      expect(listBackups(dir).map((e) => e.name)).toEqual(['2026-01-04.db', '2026-01-03.db', '2026-01-02.db']);
      expect(readdirSync(dir)).toContain('half.db.part');
    });
  });
});

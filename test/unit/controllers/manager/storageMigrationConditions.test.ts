import { describe, expect, it } from 'vitest';
import { finished, progressMessage, running } from '../../../../main/controllers/manager/storageversionmigrator/conditions';
import { isFinished, type StorageVersionMigration } from '../../../../main/kube/storageVersionMigration';

const T0 = Date.parse('2026-03-01T12:00:00.250Z');
const base: StorageVersionMigration = { metadata: { name: 'm' }, spec: { resource: { version: 'v1', resource: 'secrets' } }, status: { resourceVersion: '42' } };

describe('storage version migration conditions', () => {
  it('Running carries the progress, updated in place', () => {
    const a = running(base, progressMessage(0, 400), T0);
    const b = running(a, progressMessage(120, 400), T0 + 1000);
    expect(b.status).toEqual({
      resourceVersion: '42',
      conditions: [{ type: 'Running', status: 'True', lastUpdateTime: '2026-03-01T12:00:01Z', reason: 'StorageVersionMigrationInProgress', message: 'migrated 120 of 400 objects' }],
    });
    expect(base.status?.conditions).toBeUndefined();
    expect(isFinished(b)).toBe(false);
  });

  const cases = [
    { outcome: 'Succeeded' as const, message: '', reason: 'StorageVersionMigrationSucceeded' },
    { outcome: 'Failed' as const, message: 'migration encountered unhandled error', reason: 'StorageVersionMigrationFailed' },
  ];
  for (const c of cases) {
    it(`${c.outcome}: Running turns False and keeps its last progress`, () => {
      const m = finished(running(base, progressMessage(1, 1), T0), c.outcome, c.message, T0);
      expect(m.status?.conditions).toEqual([
        { type: 'Running', status: 'False', lastUpdateTime: '2026-03-01T12:00:00Z', reason: 'StorageVersionMigrationInProgress', message: 'migrated 1 of 1 object' },
        { type: c.outcome, status: 'True', lastUpdateTime: '2026-03-01T12:00:00Z', reason: c.reason, ...(c.message ? { message: c.message } : {}) },
      ]);
      expect(isFinished(m)).toBe(true);
    });
  }
});

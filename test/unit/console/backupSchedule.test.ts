import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BackupSchedule, DEFAULT_SCHEDULE } from '../../../main/console/backupSchedule';
import { WalkthroughEngine } from '../../../main/walkthrough/engine';
import type { WalkthroughDefinition } from '../../../main/walkthrough/types';
import { eventually } from '../../support/waitFor';

let dir: string;
let engine: WalkthroughEngine;
let schedule: BackupSchedule | undefined;
const seen: Record<string, unknown>[] = [];

/** Stands in for the backup walkthrough: the schedule is under test, it only records the parameters of each tick. */
const backup: WalkthroughDefinition = {
  kind: 'backup',
  title: 'Back up etcd',
  steps: (p) => [{ id: 'save', title: 'Save', why: 'w', command: `pilothouse backup save --out ${String(p.file)}`, resumable: true, run: async () => (seen.push(p), 'saved') }],
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ph-schedule-'));
  engine = new WalkthroughEngine({ dir: join(dir, 'walkthroughs'), definitions: [backup] });
  seen.length = 0;
});
afterEach(async () => {
  await schedule?.dispose();
  engine.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const make = () => new BackupSchedule({ file: join(dir, 'console', 'backup-schedule.json'), snapshotsDir: join(dir, 'snapshots'), dataDir: dir, engine });

describe('BackupSchedule', () => {
  it("defaults to k3s's every 12 hours, 5 kept, armed at start", () => {
    schedule = make();
    schedule.start();
    const info = schedule.info();
    expect(info).toMatchObject({ enabled: true, cron: DEFAULT_SCHEDULE, keep: 5 });
    const next = Date.parse(info.nextAt!);
    expect(next).toBeGreaterThan(Date.now());
    expect(next - Date.now()).toBeLessThanOrEqual(12 * 3600_000);
    expect(new Date(next).getUTCMinutes()).toBe(0);
  });

  it('runs the backup walkthrough at each tick with source schedule and the retention, and keeps its settings 0600', async () => {
    schedule = make();
    schedule.start();
    const info = await schedule.set({ enabled: true, cron: '@every 1s', keep: 2 });
    expect(info.cron).toBe('@every 1s');
    await eventually('two scheduled backups', () => seen.length >= 2, { timeoutMs: 8000 });
    expect(seen[0]).toMatchObject({ source: 'schedule', retention: 2, dataDir: dir });
    expect(String(seen[0]!.file)).toMatch(new RegExp(`^${join(dir, 'snapshots')}/\\d{4}-\\d\\d-\\d\\dT[\\d-]+\\.\\d{3}Z\\.db$`));
    await eventually('the last run recorded', () => schedule!.info().lastRun?.state === 'succeeded');
    const file = join(dir, 'console', 'backup-schedule.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ enabled: true, cron: '@every 1s', keep: 2 });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    await schedule.set({ enabled: false, cron: '@every 1s', keep: 2 });
    const count = seen.length;
    expect(schedule.info().nextAt).toBeUndefined();
    // a fresh schedule (the console restarted) reads the saved settings: still off
    await schedule.dispose();
    schedule = make();
    schedule.start();
    expect(schedule.info()).toMatchObject({ enabled: false, keep: 2 });
    expect(seen.length).toBe(count);
  });

  it('refuses a bad cron expression or keep, and keeps the old settings', async () => {
    schedule = make();
    await expect(schedule.set({ enabled: true, cron: 'every day', keep: 5 })).rejects.toThrow();
    await expect(schedule.set({ enabled: true, cron: '0 3 * * *', keep: 0 })).rejects.toThrow('keep must be a whole number of backups, at least 1 (not 0)');
    expect(schedule.info()).toMatchObject({ cron: DEFAULT_SCHEDULE, keep: 5 });
  });
});

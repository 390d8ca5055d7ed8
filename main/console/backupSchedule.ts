// The console's scheduled backups, as k3s takes them: a cron expression
// (default every 12 hours) and how many scheduled backups to keep (default 5).
// Each tick starts the backup walkthrough with source 'schedule', so a
// scheduled backup is a run like any other (history, report) and its last
// step prunes the older scheduled files; backups taken by hand are never
// pruned. The settings live in DIR/console/backup-schedule.json (0600).

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { BackupScheduleInfo } from '../../preload/contract';
import { BACKUP_KIND } from '../backup/backupWalkthrough';
import { parseCron } from '../backup/cron';
import { DEFAULT_RETENTION } from '../backup/retention';
import { BackupScheduler } from '../backup/scheduler';
import type { WalkthroughEngine } from '../walkthrough/engine';
import { writeFileAtomic } from '../walkthrough/runStore';
import { snapshotFileName } from './snapshots';

export const DEFAULT_SCHEDULE = '0 */12 * * *';

interface Settings {
  enabled: boolean;
  cron: string;
  keep: number;
}

export interface BackupScheduleOptions {
  /** DIR/console/backup-schedule.json */
  file: string;
  /** DIR/snapshots */
  snapshotsDir: string;
  dataDir: string;
  engine: WalkthroughEngine;
  onError?(message: string): void;
}

export class BackupSchedule {
  private settings: Settings;
  private scheduler: BackupScheduler | undefined;
  private lastRunId: string | undefined;

  constructor(private readonly o: BackupScheduleOptions) {
    this.settings = this.load();
  }

  start(): void {
    this.arm();
  }

  info(): BackupScheduleInfo {
    const out: BackupScheduleInfo = { ...this.settings };
    if (this.scheduler?.next) out.nextAt = this.scheduler.next.toISOString();
    const last = this.lastRunId ? this.o.engine.get(this.lastRunId) : this.o.engine.list().find((r) => r.kind === BACKUP_KIND && r.params.source === 'schedule');
    if (last) out.lastRun = { id: last.id, state: last.state, startedAt: last.startedAt };
    return out;
  }

  /** Checks and saves new settings, then re-arms the schedule. */
  async set(req: { enabled: boolean; cron: string; keep: number }): Promise<BackupScheduleInfo> {
    const cron = String(req?.cron ?? '').trim();
    parseCron(cron); // throws with the reason for a bad expression
    const keep = Number(req?.keep);
    if (!Number.isInteger(keep) || keep < 1) throw new Error(`keep must be a whole number of backups, at least 1 (not ${JSON.stringify(req?.keep)})`);
    this.settings = { enabled: Boolean(req.enabled), cron, keep };
    mkdirSync(dirname(this.o.file), { recursive: true, mode: 0o700 });
    writeFileAtomic(this.o.file, `${JSON.stringify(this.settings, null, 2)}\n`);
    await this.scheduler?.stop();
    this.scheduler = undefined;
    this.arm();
    return this.info();
  }

  async dispose(): Promise<void> {
    const s = this.scheduler;
    this.scheduler = undefined;
    await s?.stop();
  }

  private arm(): void {
    if (!this.settings.enabled || this.scheduler) return;
    try {
      this.scheduler = new BackupScheduler({ schedule: this.settings.cron, tick: (at) => this.tick(at) });
      this.scheduler.start();
    } catch (err) {
      this.o.onError?.(`backup schedule ${JSON.stringify(this.settings.cron)} not armed: ${(err as Error).message}`);
    }
  }

  private async tick(at: Date): Promise<void> {
    const params = { file: join(this.o.snapshotsDir, snapshotFileName(at)), source: 'schedule', retention: this.settings.keep, dataDir: this.o.dataDir };
    try {
      const run = await this.o.engine.start(BACKUP_KIND, params);
      this.lastRunId = run.id;
      await this.o.engine.wait(run.id);
    } catch (err) {
      this.o.onError?.(`scheduled backup did not run: ${(err as Error).message}`);
    }
  }

  private load(): Settings {
    const defaults: Settings = { enabled: true, cron: DEFAULT_SCHEDULE, keep: DEFAULT_RETENTION };
    if (!existsSync(this.o.file)) return defaults;
    try {
      const s = JSON.parse(readFileSync(this.o.file, 'utf8')) as Partial<Settings>;
      return {
        enabled: typeof s.enabled === 'boolean' ? s.enabled : defaults.enabled,
        cron: typeof s.cron === 'string' ? s.cron : defaults.cron,
        keep: typeof s.keep === 'number' && s.keep >= 1 ? Math.floor(s.keep) : defaults.keep,
      };
    } catch {
      return defaults;
    }
  }
}

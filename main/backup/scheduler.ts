// Backups on a cron schedule (cron.ts), as k3s takes them: at each tick one
// backup runs; a tick that comes while the previous backup still runs is
// skipped (never two at once), and a failed backup does not stop the
// schedule. `pilothouse backup save --schedule` and the console both run it.

import { nextRun, parseCron, type Schedule } from './cron';

export interface BackupSchedulerOptions {
  /** A cron expression (cron.ts). */
  schedule: string;
  /** One backup; the scheduler waits for it before computing the next tick. */
  tick(at: Date): Promise<void>;
  /** Told the time of each next tick. */
  onNext?(at: Date): void;
  now?: () => Date;
}

export class BackupScheduler {
  private readonly parsed: Schedule;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  next: Date | undefined;

  constructor(private readonly o: BackupSchedulerOptions) {
    this.parsed = parseCron(o.schedule); // throws on a bad expression before anything runs
  }

  start(): void {
    this.arm(this.now());
  }

  /** Stops the schedule; resolves once a backup in progress has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.next = undefined;
    await this.running;
  }

  private now(): Date {
    return this.o.now?.() ?? new Date();
  }

  private arm(after: Date): void {
    if (this.stopped) return;
    const at = nextRun(this.parsed, after);
    this.next = at;
    this.o.onNext?.(at);
    this.timer = setTimeout(() => void this.fire(at), Math.max(0, at.getTime() - this.now().getTime()));
  }

  private async fire(at: Date): Promise<void> {
    this.timer = undefined;
    if (this.stopped) return;
    this.running = this.o.tick(at).catch(() => undefined); // the tick reports its own failure
    await this.running;
    this.running = undefined;
    // ticks the backup overran are skipped: the next one is after both
    this.arm(new Date(Math.max(at.getTime(), this.now().getTime())));
  }
}

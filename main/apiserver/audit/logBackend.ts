// The audit log file (--audit-log-path, "-" = stdout), rotated as kube's
// lumberjack.Logger rotates it:
//   - before a write that would take the file past maxSize (MB; 0 = 100 MB)
//     the file is renamed to <name>-<UTC time 2006-01-02T15-04-05.000><ext>
//     and a new one is started;
//   - then backups beyond maxBackups (0 = keep all) and older than maxAge
//     days (by the time in their name; 0 = keep) are removed;
//   - a single line larger than maxSize is refused (and counted as dropped).
// Writes never wait on the disk: lines are queued and written in batches by
// one async loop; close() writes out what is queued. The queue is bounded
// (a stalled disk drops lines rather than eating memory; the count is kept).

import { mkdirSync, readdirSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';

export interface LogBackendOptions {
  path: string;
  maxAgeDays?: number;
  maxBackups?: number;
  /** Megabytes, as --audit-log-maxsize (0 = lumberjack's 100). */
  maxSizeMB?: number;
  /** Overrides maxSizeMB in bytes (tests). */
  maxSizeBytes?: number;
  /** Lines kept while the disk is busy before new ones are dropped. */
  maxQueued?: number;
  now?: () => Date;
  log?: (line: string) => void;
}

export interface AuditLogWriter {
  write(line: string): void;
  /** Lines dropped so far (queue full or a line larger than the file limit). */
  readonly dropped: number;
  /** Resolves once every queued line is written. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const MB = 1024 * 1024;
const DEFAULT_MAX_QUEUED = 100_000;

export function openAuditLog(opts: LogBackendOptions): AuditLogWriter {
  return opts.path === '-' ? stdoutWriter() : new RotatingFile(opts);
}

function stdoutWriter(): AuditLogWriter {
  return {
    write: (line) => void process.stdout.write(line),
    dropped: 0,
    flush: () => new Promise((resolve) => process.stdout.write('', () => resolve())),
    close: () => new Promise((resolve) => process.stdout.write('', () => resolve())),
  };
}

/** lumberjack's backup name: audit.log → audit-2026-11-30T22-30-00.000.log (UTC). */
export function backupName(path: string, t: Date): string {
  const ext = extname(path);
  const prefix = basename(path, ext);
  const stamp = t.toISOString().slice(0, 23).replace(/:/g, '-');
  return join(dirname(path), `${prefix}-${stamp}${ext}`);
}

/** The time encoded in a backup's name, or undefined when the name is not one of ours. */
export function backupTime(path: string, file: string): Date | undefined {
  const ext = extname(path);
  const prefix = `${basename(path, ext)}-`;
  if (!file.startsWith(prefix) || !file.endsWith(ext)) return undefined;
  const stamp = file.slice(prefix.length, file.length - ext.length);
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/.exec(stamp);
  if (!m) return undefined;
  const t = new Date(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`);
  return Number.isNaN(t.getTime()) ? undefined : t;
}

class RotatingFile implements AuditLogWriter {
  private queue: string[] = [];
  private fh: FileHandle | undefined;
  private size = 0;
  private draining: Promise<void> | undefined;
  private closed = false;
  dropped = 0;
  private readonly maxBytes: number;
  private readonly now: () => Date;
  private readonly log: (line: string) => void;

  constructor(private readonly opts: LogBackendOptions) {
    this.maxBytes = opts.maxSizeBytes ?? (opts.maxSizeMB && opts.maxSizeMB > 0 ? opts.maxSizeMB : 100) * MB;
    this.now = opts.now ?? (() => new Date());
    this.log = opts.log ?? ((l) => process.stderr.write(`${l}\n`));
  }

  write(line: string): void {
    if (this.closed || this.queue.length >= (this.opts.maxQueued ?? DEFAULT_MAX_QUEUED)) {
      this.dropped++;
      return;
    }
    this.queue.push(line);
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
  }

  async flush(): Promise<void> {
    // A drain started while we waited is awaited too; bounded by the queue emptying.
    for (let i = 0; i < 1000 && this.draining; i++) await this.draining;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    await this.fh?.close();
    this.fh = undefined;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const lines = this.queue;
      this.queue = [];
      let batch = '';
      let batchBytes = 0;
      for (const line of lines) {
        const n = Buffer.byteLength(line);
        if (n > this.maxBytes) {
          this.dropped++;
          this.log(`audit log: write length ${n} exceeds maximum file size ${this.maxBytes}`);
          continue;
        }
        await this.ensureOpen();
        if (this.size + batchBytes + n > this.maxBytes) {
          await this.writeOut(batch);
          batch = '';
          batchBytes = 0;
          await this.rotate();
        }
        batch += line;
        batchBytes += n;
      }
      await this.writeOut(batch);
    }
  }

  private async writeOut(batch: string): Promise<void> {
    if (batch === '' || !this.fh) return;
    try {
      await this.fh.write(batch);
      this.size += Buffer.byteLength(batch);
    } catch (err) {
      this.dropped += batch.split('\n').length - 1;
      this.log(`audit log: write failed: ${(err as Error).message}`);
    }
  }

  private async ensureOpen(): Promise<void> {
    if (this.fh) return;
    mkdirSync(dirname(this.opts.path), { recursive: true });
    this.fh = await open(this.opts.path, 'a', 0o600);
    this.size = (await this.fh.stat()).size;
  }

  private async rotate(): Promise<void> {
    await this.fh?.close();
    this.fh = undefined;
    try {
      renameSync(this.opts.path, backupName(this.opts.path, this.now()));
    } catch (err) {
      this.log(`audit log: rotate failed: ${(err as Error).message}`);
    }
    this.removeOldBackups();
    await this.ensureOpen();
  }

  /** lumberjack's millRunOnce (without compression): newest first, keep maxBackups, drop those past maxAge. */
  private removeOldBackups(): void {
    const { maxBackups = 0, maxAgeDays = 0 } = this.opts;
    if (maxBackups <= 0 && maxAgeDays <= 0) return;
    const dir = dirname(this.opts.path);
    let backups: { file: string; t: Date }[];
    try {
      backups = readdirSync(dir)
        .map((file) => ({ file, t: backupTime(this.opts.path, file) }))
        .filter((b): b is { file: string; t: Date } => b.t !== undefined && statSync(join(dir, b.file)).isFile())
        .sort((a, b) => b.t.getTime() - a.t.getTime());
    } catch {
      return;
    }
    let remove = maxBackups > 0 ? backups.slice(maxBackups) : [];
    if (maxAgeDays > 0) {
      const cutoff = this.now().getTime() - maxAgeDays * 24 * 3600 * 1000;
      remove = [...new Set([...remove, ...backups.filter((b) => b.t.getTime() < cutoff)])];
    }
    for (const b of remove) {
      try {
        unlinkSync(join(dir, b.file));
      } catch (err) {
        this.log(`audit log: removing ${b.file}: ${(err as Error).message}`);
      }
    }
  }
}

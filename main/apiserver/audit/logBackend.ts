// The audit log file (--audit-log-path, "-" = stdout), rotated as kube's
// lumberjack.Logger rotates it:
//   - before a write that would take the file past maxSize (MB; 0 = 100 MB)
//     the file is renamed to <name>-<UTC time 2006-01-02T15-04-05.000><ext>
//     and a new one is started;
//   - then backups beyond maxBackups (0 = keep all) and older than maxAge
//     days (by the time in their name; 0 = keep) are removed;
//   - a single line larger than maxSize is refused (and counted as dropped).
// Lines written during one turn of the event loop go out together in one
// synchronous append at the end of the turn (setImmediate). kube's log
// backend blocks the request on each write by default; a page-cache append
// takes microseconds, while an async write costs ~40 µs of CPU per call in
// handing it to libuv's thread pool — more than the event it writes.
// close() and flush() write out what is pending. A line larger than the
// file limit, or lines that fail to write (a full disk), are dropped and counted.

import { closeSync, fchmodSync, fstatSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';

export interface LogBackendOptions {
  path: string;
  maxAgeDays?: number;
  maxBackups?: number;
  /** Megabytes, as --audit-log-maxsize (0 = lumberjack's 100). */
  maxSizeMB?: number;
  /** Overrides maxSizeMB in bytes (tests). */
  maxSizeBytes?: number;
  /** Lines kept for the end of the event-loop turn before new ones are dropped. */
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
  private fd: number | undefined;
  private size = 0;
  private scheduled: NodeJS.Immediate | undefined;
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
    this.scheduled ??= setImmediate(() => this.writePending());
  }

  async flush(): Promise<void> {
    this.writePending();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.writePending();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private writePending(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const lines = this.queue;
    this.queue = [];
    let batch = '';
    let batchBytes = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      const n = Buffer.byteLength(line);
      if (n > this.maxBytes) {
        this.dropped++;
        this.log(`audit log: write length ${n} exceeds maximum file size ${this.maxBytes}`);
        continue;
      }
      let open = this.ensureOpen();
      if (open && this.size + batchBytes + n > this.maxBytes) {
        this.writeOut(batch, batchBytes);
        batch = '';
        batchBytes = 0;
        this.rotate();
        open = this.ensureOpen();
      }
      if (!open) {
        // The file cannot be opened (logged once): this turn's remaining lines are lost.
        this.dropped += lines.length - i;
        break;
      }
      batch += line;
      batchBytes += n;
    }
    this.writeOut(batch, batchBytes);
  }

  private writeOut(batch: string, bytes: number): void {
    if (batch === '' || this.fd === undefined) return;
    try {
      writeSync(this.fd, batch);
      this.size += bytes;
    } catch (err) {
      this.dropped += batch.split('\n').length - 1;
      this.log(`audit log: write failed: ${(err as Error).message}`);
    }
  }

  /** Opens the file when it is not open; false (logged) when that fails. */
  private ensureOpen(): boolean {
    if (this.fd !== undefined) return true;
    try {
      mkdirSync(dirname(this.opts.path), { recursive: true });
      this.fd = openSync(this.opts.path, 'a', 0o600);
      // Owner-only also when the file existed with wider modes: events name users and objects.
      fchmodSync(this.fd, 0o600);
      this.size = fstatSync(this.fd).size;
      return true;
    } catch (err) {
      this.log(`audit log: open failed: ${(err as Error).message}`);
      return false;
    }
  }

  private rotate(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    try {
      renameSync(this.opts.path, backupName(this.opts.path, this.now()));
    } catch (err) {
      this.log(`audit log: rotate failed: ${(err as Error).message}`);
    }
    this.removeOldBackups();
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

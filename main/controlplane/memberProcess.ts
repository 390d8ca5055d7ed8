// One cluster member running as a child process, with its output appended to
// a log file. Stopping is etcd's way: SIGTERM so the member can finish what it
// persisted and step down, then SIGKILL if it has not exited in time (Debian's
// etcd leader can take 6–9 s to exit on SIGTERM).

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/** How to run the member program: a command, its leading args, extra env. */
export interface Program {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

export const STOP_GRACE_MS = 10_000;

export class MemberProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<number | null> = Promise.resolve(null);

  constructor(
    readonly name: string,
    private readonly program: Program,
    private readonly flags: string[],
    private readonly logFile: string,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  start(): void {
    if (this.running) throw new Error(`${this.name} is already running (pid ${this.pid})`);
    mkdirSync(dirname(this.logFile), { recursive: true });
    const fd = openSync(this.logFile, 'a');
    try {
      const child = spawn(this.program.command, [...this.program.args, ...this.flags], {
        stdio: ['ignore', fd, fd],
        env: { ...process.env, ...this.program.env },
      });
      this.child = child;
      this.exited = new Promise((resolve) => {
        child.once('exit', (code) => resolve(code));
        child.once('error', () => resolve(null));
      });
    } finally {
      // The child holds its own copy of the descriptor.
      closeSync(fd);
    }
  }

  /** Resolves with the exit code (null when killed by a signal). */
  waitExit(): Promise<number | null> {
    return this.exited;
  }

  /** Sends a signal now (e.g. SIGKILL for a crash test). */
  kill(signal: NodeJS.Signals): void {
    if (this.running) this.child!.kill(signal);
  }

  /** SIGTERM, then SIGKILL after graceMs. Resolves once the process is gone. */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    if (!this.running) return;
    this.child!.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const gone = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
    ]);
    clearTimeout(timer);
    if (!gone) {
      this.child!.kill('SIGKILL');
      await this.exited;
    }
  }
}

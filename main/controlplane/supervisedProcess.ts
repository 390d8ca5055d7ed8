// One child process kept alive (or, with the restart policy 'never', just
// run): its state machine, restarts with backoff, the user's actions on it,
// and its output into the LogStore or appended straight to a log file. The
// orchestrator (supervisor.ts), LocalCluster and the test harness all run
// their processes through this one type.
//
// States (ProcessState):
//   stopped ──start──▶ starting ──markReady──▶ running ⇄ paused (SIGSTOP/SIGCONT)
//   starting/running ──exits unasked──▶ restarting ──backoff──▶ starting
//                                   └─(too many crashes)─▶ crashed
//   any live state ──stop (SIGTERM, SIGKILL after grace) / kill (SIGKILL)──▶ stopped
// Invariants:
//   1. What the user stopped or killed is never restarted by the supervisor
//      (desired = 'down' until the user's next start/restart).
//   2. At most one child per SupervisedProcess is alive at any time: start
//      while a child lives is a no-op, a restart waits for the exit.
//   3. Every timer is cleared on stop/kill/dispose; dispose reaps the child.
//   4. Stopping is etcd's way: SIGTERM so a member can finish what it
//      persisted and step down, then SIGKILL if it has not exited within the
//      grace period (Debian's etcd leader can take 6–9 s to exit on SIGTERM).
//
// Spawning and time are injected so the state machine is unit-tested with a
// fake child and a fake clock.

import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import type { ComponentKind, ComponentStatus, ProcessState } from '../../preload/contract';
import type { LogStore } from './logStore';
import type { Program } from './program';
import { NEVER_RESTART, RestartPolicy, type CrashDecision, type RestartPolicyOptions } from './restartPolicy';

export const STOP_GRACE_MS = 10_000;

export interface ChildLike {
  readonly pid?: number;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  kill(signal: NodeJS.Signals): boolean;
  once(event: 'exit', cb: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
  once(event: 'error', cb: (err: Error) => void): unknown;
}

/** Where the child's stdout and stderr go: pipes (read into the LogStore) or an open file descriptor. */
export type ChildOutput = 'pipe' | number;

export type Spawner = (command: string, args: string[], env: NodeJS.ProcessEnv, output: ChildOutput) => ChildLike;

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export const realSpawner: Spawner = (command, args, env, output) => spawn(command, args, { stdio: ['ignore', output, output], env });

/**
 * What happened to the child, for hosts that report it (`pilothouse up` logs
 * each on stderr): a spawn (the first or a restart), and an exit with what
 * the supervisor does next (undefined: asked for, so not restarted).
 */
export type LifecycleEvent =
  | { type: 'spawned'; id: string; pid: number | undefined; restart: number }
  | { type: 'exited'; id: string; code: number | null; signal: NodeJS.Signals | null; next: CrashDecision | undefined };

export interface SupervisedProcessOptions {
  id: string;
  kind: ComponentKind;
  url?: string;
  program: Program;
  /** Flags after program.args. */
  args: string[];
  /** Output and the supervisor's notes go here (which may also append them to a file: LogStore.attachFile). */
  logs?: LogStore;
  /** Without logs: the child writes its output straight to this file (appended; the child keeps writing if we die). */
  logFile?: string;
  /** Called after every state change. */
  onChange?: (status: ComponentStatus) => void;
  onLifecycle?: (event: LifecycleEvent) => void;
  spawner?: Spawner;
  clock?: Clock;
  /** 'never': an exit nobody asked for leaves the process crashed (tests, LocalCluster). */
  restart?: RestartPolicyOptions | 'never';
  stopGraceMs?: number;
}

/** What replace() changes; what is left out stays. */
export interface CommandLineChange {
  program?: Program;
  args?: string[];
}

export class SupervisedProcess {
  private child: ChildLike | undefined;
  private exited: Promise<number | null> = Promise.resolve(null);
  private desired: 'up' | 'down' = 'down';
  private stateValue: ProcessState = 'stopped';
  private restarts = 0;
  private lastExit: ComponentStatus['lastExit'];
  private startedAt: string | undefined;
  private restartTimer: unknown;
  private closed = false;
  private readonly policy: RestartPolicy;
  private readonly clock: Clock;
  private readonly spawner: Spawner;
  private program: Program;
  private args: string[];

  constructor(private readonly o: SupervisedProcessOptions) {
    this.policy = new RestartPolicy(o.restart === 'never' ? NEVER_RESTART : o.restart);
    this.clock = o.clock ?? realClock;
    this.spawner = o.spawner ?? realSpawner;
    this.program = o.program;
    this.args = o.args;
  }

  get id(): string {
    return this.o.id;
  }

  get state(): ProcessState {
    return this.stateValue;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** True while a child process exists, whatever its state (starting, running, paused). */
  get running(): boolean {
    return this.child !== undefined;
  }

  /** The program and flags the next spawn runs. */
  commandLine(): { program: Program; args: string[] } {
    return { program: this.program, args: this.args };
  }

  private note(text: string): void {
    this.o.logs?.note(this.o.id, text);
  }

  status(): ComponentStatus {
    const s: ComponentStatus = { id: this.o.id, kind: this.o.kind, state: this.stateValue, restarts: this.restarts };
    if (this.child?.pid !== undefined) s.pid = this.child.pid;
    if (this.o.url !== undefined) s.url = this.o.url;
    if (this.lastExit) s.lastExit = this.lastExit;
    if (this.startedAt && this.child) s.startedAt = this.startedAt;
    return s;
  }

  private set(state: ProcessState): void {
    if (state === this.stateValue) return;
    this.stateValue = state;
    this.o.onChange?.(this.status());
  }

  /** The user's start (also clears the crash history). No-op while a child lives, and after close(). */
  start(): void {
    if (this.closed) return;
    this.desired = 'up';
    this.policy.reset();
    this.cancelRestart();
    if (!this.child) this.spawnNow();
  }

  /** The component answered its readiness check: starting → running. */
  markReady(): void {
    if (this.stateValue === 'starting' && this.child) this.set('running');
  }

  private spawnNow(): void {
    const env = { ...process.env, ...this.program.env };
    const argv = [...this.program.args, ...this.args];
    let child: ChildLike;
    try {
      child = this.spawnChild(argv, env);
    } catch (err) {
      this.note(`could not start: ${(err as Error).message}`);
      this.onExit(undefined, null, null);
      return;
    }
    this.child = child;
    this.startedAt = new Date(this.clock.now()).toISOString();
    const logs = this.o.logs;
    if (logs) {
      child.stdout?.on('data', (d: Buffer) => logs.write(this.o.id, 'stdout', d));
      child.stderr?.on('data', (d: Buffer) => logs.write(this.o.id, 'stderr', d));
    }
    let done = false;
    this.exited = new Promise<number | null>((resolve) => {
      const finish = (code: number | null, signal: NodeJS.Signals | null, why?: string) => {
        if (done) return;
        done = true;
        if (why) this.note(why);
        this.onExit(child, code, signal);
        resolve(code);
      };
      child.once('exit', (code, signal) => finish(code, signal));
      child.once('error', (err) => finish(null, null, `process error: ${err.message}`));
    });
    this.note(`started pid ${child.pid ?? '?'}: ${this.program.command} ${argv.join(' ')}`);
    this.set('starting');
    this.o.onLifecycle?.({ type: 'spawned', id: this.o.id, pid: child.pid, restart: this.restarts });
  }

  /** Pipes into the LogStore, or the log file's descriptor (the child holds its own copy, so ours is closed at once). */
  private spawnChild(argv: string[], env: NodeJS.ProcessEnv): ChildLike {
    if (this.o.logs || this.o.logFile === undefined) return this.spawner(this.program.command, argv, env, 'pipe');
    mkdirSync(dirname(this.o.logFile), { recursive: true });
    const fd = openSync(this.o.logFile, 'a');
    try {
      return this.spawner(this.program.command, argv, env, fd);
    } finally {
      closeSync(fd);
    }
  }

  private onExit(child: ChildLike | undefined, code: number | null, signal: NodeJS.Signals | null): void {
    if (child !== undefined && child !== this.child) return;
    this.child = undefined;
    this.lastExit = { code, signal, at: new Date(this.clock.now()).toISOString() };
    this.note(`exited (code ${code}, signal ${signal})`);
    if (this.desired === 'down') {
      this.set('stopped');
      this.o.onLifecycle?.({ type: 'exited', id: this.o.id, code, signal, next: undefined });
      return;
    }
    const decision = this.policy.onCrash(this.clock.now());
    this.o.onLifecycle?.({ type: 'exited', id: this.o.id, code, signal, next: decision });
    if (decision.action === 'give-up') {
      this.note(this.o.restart === 'never' ? 'not restarting (restart policy never)' : `crashed ${decision.crashes} times within the restart window; not restarting (start it by hand)`);
      this.desired = 'down';
      this.set('crashed');
      return;
    }
    this.note(`crashed; restart ${decision.attempt} in ${decision.delayMs} ms`);
    this.set('restarting');
    this.restartTimer = this.clock.setTimeout(() => {
      this.restartTimer = undefined;
      if (this.desired === 'up' && !this.child) {
        this.restarts++;
        this.spawnNow();
      }
    }, decision.delayMs);
  }

  private cancelRestart(): void {
    if (this.restartTimer !== undefined) this.clock.clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
  }

  /** SIGTERM, SIGKILL after the grace period; resolves once the child is gone. */
  async stop(graceMs = this.o.stopGraceMs ?? STOP_GRACE_MS): Promise<void> {
    this.desired = 'down';
    this.cancelRestart();
    const child = this.child;
    if (!child) {
      this.set('stopped');
      return;
    }
    const exited = this.exited;
    child.kill('SIGTERM');
    if (this.stateValue === 'paused') child.kill('SIGCONT'); // a stopped process cannot act on SIGTERM
    const timer = this.clock.setTimeout(() => {
      if (this.child === child) {
        this.note(`did not exit ${graceMs} ms after SIGTERM; sending SIGKILL`);
        child.kill('SIGKILL');
      }
    }, graceMs);
    await exited;
    this.clock.clearTimeout(timer);
  }

  /**
   * Sends signal now (default SIGKILL, kill -9; SIGTERM without the grace
   * period's SIGKILL); resolves once the child is gone, so only for signals
   * that end it. Not restarted.
   */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    this.desired = 'down';
    this.cancelRestart();
    const child = this.child;
    if (!child) {
      if (this.stateValue === 'restarting' || this.stateValue === 'crashed') this.set('stopped');
      return;
    }
    const exited = this.exited;
    child.kill(signal);
    if (this.stateValue === 'paused' && signal !== 'SIGKILL') child.kill('SIGCONT');
    await exited;
  }

  async restart(): Promise<void> {
    await this.stop();
    this.start();
  }

  /**
   * Runs the component with another program or other flags from now on,
   * keeping its id, logs, restart policy and restart count (an upgrade swaps
   * a member's binary). A live process is stopped and started with the new
   * command line, and so is one given up on after crashing (the new command
   * line is the fix: an upgrade's rollback of a member its target kept from
   * starting); a stopped one stays stopped until its next start.
   */
  async replace(change: CommandLineChange): Promise<void> {
    const wasUp = this.desired === 'up' || this.stateValue === 'crashed';
    await this.stop();
    if (change.program) this.program = change.program;
    if (change.args) this.args = change.args;
    this.note(`command line replaced: ${this.program.command} ${[...this.program.args, ...this.args].join(' ')}`);
    if (wasUp) this.start();
  }

  /** SIGSTOP: the process stays, frozen (a stuck member: peers see it as unreachable). */
  pause(): boolean {
    if (!this.child || (this.stateValue !== 'running' && this.stateValue !== 'starting')) return false;
    this.child.kill('SIGSTOP');
    this.set('paused');
    return true;
  }

  resume(): boolean {
    if (!this.child || this.stateValue !== 'paused') return false;
    this.child.kill('SIGCONT');
    this.set('running');
    return true;
  }

  /** Stops the child for good: later start() calls (a late restart, an experiment's finally) do nothing. */
  async close(): Promise<void> {
    this.closed = true;
    await this.stop();
  }

  /** Resolves when the current child (if any) has exited: its exit code, null when a signal ended it (or there was none). */
  waitExit(): Promise<number | null> {
    return this.exited;
  }
}

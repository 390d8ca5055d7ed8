// One child process the console keeps alive: its state machine, restarts
// with backoff, the user's actions on it, and its output into the LogStore.
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
//
// Spawning and time are injected so the state machine is unit-tested with a
// fake child and a fake clock.

import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { ComponentKind, ComponentStatus, ProcessState } from '../../preload/contract';
import type { LogStore } from './logStore';
import { RestartPolicy, type CrashDecision, type RestartPolicyOptions } from './restartPolicy';
import { STOP_GRACE_MS, type Program } from './memberProcess';

export interface ChildLike {
  readonly pid?: number;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  kill(signal: NodeJS.Signals): boolean;
  once(event: 'exit', cb: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
  once(event: 'error', cb: (err: Error) => void): unknown;
}

export type Spawner = (command: string, args: string[], env: NodeJS.ProcessEnv) => ChildLike;

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

export const realSpawner: Spawner = (command, args, env) => spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });

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
  logs: LogStore;
  /** Called after every state change. */
  onChange?: (status: ComponentStatus) => void;
  onLifecycle?: (event: LifecycleEvent) => void;
  spawner?: Spawner;
  clock?: Clock;
  restart?: RestartPolicyOptions;
  stopGraceMs?: number;
}

export class SupervisedProcess {
  private child: ChildLike | undefined;
  private exited: Promise<void> = Promise.resolve();
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

  constructor(private readonly o: SupervisedProcessOptions) {
    this.policy = new RestartPolicy(o.restart);
    this.clock = o.clock ?? realClock;
    this.spawner = o.spawner ?? realSpawner;
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

  /** True while a child process exists (whatever its state). */
  get alive(): boolean {
    return this.child !== undefined;
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
    const env = { ...process.env, ...this.o.program.env };
    let child: ChildLike;
    try {
      child = this.spawner(this.o.program.command, [...this.o.program.args, ...this.o.args], env);
    } catch (err) {
      this.o.logs.note(this.o.id, `could not start: ${(err as Error).message}`);
      this.onExit(undefined, null, null);
      return;
    }
    this.child = child;
    this.startedAt = new Date(this.clock.now()).toISOString();
    child.stdout?.on('data', (d: Buffer) => this.o.logs.write(this.o.id, 'stdout', d));
    child.stderr?.on('data', (d: Buffer) => this.o.logs.write(this.o.id, 'stderr', d));
    let done = false;
    this.exited = new Promise<void>((resolve) => {
      const finish = (code: number | null, signal: NodeJS.Signals | null, why?: string) => {
        if (done) return;
        done = true;
        if (why) this.o.logs.note(this.o.id, why);
        this.onExit(child, code, signal);
        resolve();
      };
      child.once('exit', (code, signal) => finish(code, signal));
      child.once('error', (err) => finish(null, null, `process error: ${err.message}`));
    });
    this.o.logs.note(this.o.id, `started pid ${child.pid ?? '?'}: ${this.o.program.command} ${[...this.o.program.args, ...this.o.args].join(' ')}`);
    this.set('starting');
    this.o.onLifecycle?.({ type: 'spawned', id: this.o.id, pid: child.pid, restart: this.restarts });
  }

  private onExit(child: ChildLike | undefined, code: number | null, signal: NodeJS.Signals | null): void {
    if (child !== undefined && child !== this.child) return;
    this.child = undefined;
    this.lastExit = { code, signal, at: new Date(this.clock.now()).toISOString() };
    this.o.logs.note(this.o.id, `exited (code ${code}, signal ${signal})`);
    if (this.desired === 'down') {
      this.set('stopped');
      this.o.onLifecycle?.({ type: 'exited', id: this.o.id, code, signal, next: undefined });
      return;
    }
    const decision = this.policy.onCrash(this.clock.now());
    this.o.onLifecycle?.({ type: 'exited', id: this.o.id, code, signal, next: decision });
    if (decision.action === 'give-up') {
      this.o.logs.note(this.o.id, `crashed ${decision.crashes} times within the restart window; not restarting (start it by hand)`);
      this.desired = 'down';
      this.set('crashed');
      return;
    }
    this.o.logs.note(this.o.id, `crashed; restart ${decision.attempt} in ${decision.delayMs} ms`);
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
        this.o.logs.note(this.o.id, `did not exit ${graceMs} ms after SIGTERM; sending SIGKILL`);
        child.kill('SIGKILL');
      }
    }, graceMs);
    await exited;
    this.clock.clearTimeout(timer);
  }

  /** SIGKILL now (kill -9); resolves once the child is gone. Not restarted. */
  async kill(): Promise<void> {
    this.desired = 'down';
    this.cancelRestart();
    const child = this.child;
    if (!child) {
      if (this.stateValue === 'restarting' || this.stateValue === 'crashed') this.set('stopped');
      return;
    }
    const exited = this.exited;
    child.kill('SIGKILL');
    await exited;
  }

  async restart(): Promise<void> {
    await this.stop();
    this.start();
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

  /** Resolves when the current child (if any) has exited. */
  waitExit(): Promise<void> {
    return this.exited;
  }
}

// The walkthrough engine: runs a definition's steps in order, one at a time,
// persisting the run after every change (runStore.ts) and leaving a report
// when it ends (report.ts). The console and the CLI (headless.ts) drive the
// same engine.
//
// A run's life:
//   running ──step throws──▶ failed ──retry()──▶ running (the failed step again)
//   running ──gate──▶ waiting ──confirm()──▶ running
//   running ──pause()──▶ paused ──resume()──▶ running (the paused step again)
//   running | waiting | paused | failed ──cancel()──▶ cancelled
//   running ──last step succeeds──▶ succeeded
// Pause and cancel abort the step's signal; the engine then waits for the
// step to settle, so a step never runs twice at once. A step that finishes
// anyway keeps its verdict and the run stops before the next one.
//
// Closing the app (dispose) aborts the running step without recording
// anything: run.json still says 'running'. recover() at the next start
// resumes such a run when the step is resumable, and otherwise ends it
// failed with the reason (DESIGN: the report must say where it stopped).

import { randomBytes } from 'node:crypto';
import { RunStore, checkRunId, type StoredRun } from './runStore';
import { writeReport } from './report';
import { attemptStep, type StepOutcome } from './stepAttempt';
import type { RunRecord, StepDefinition, WalkthroughDefinition } from './types';

export interface WalkthroughEngineOptions {
  /** DIR/walkthroughs */
  dir: string;
  definitions: WalkthroughDefinition<any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- each definition types its own params
  onChange?(run: RunRecord): void;
  /** Tests: the clock that stamps runs and steps. */
  now?: () => Date;
}

/** How often progress and output changes are written and pushed, at most. */
export const FLUSH_MS = 100;

const ENDED = new Set<RunRecord['state']>(['succeeded', 'failed', 'cancelled']);

interface LiveRun {
  stored: StoredRun;
  def: WalkthroughDefinition<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  steps: StepDefinition[];
  driving: boolean;
  request?: 'pause' | 'cancel';
  controller?: AbortController;
  gate?: (go: 'confirm' | 'cancel') => void;
  timer?: NodeJS.Timeout;
  waiters: ((run: RunRecord) => void)[];
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class WalkthroughEngine {
  private readonly store: RunStore;
  private readonly defs = new Map<string, WalkthroughDefinition<any>>(); // eslint-disable-line @typescript-eslint/no-explicit-any
  private readonly live = new Map<string, LiveRun>();
  private readonly listeners = new Set<(run: RunRecord) => void>();
  private readonly now: () => Date;
  private disposed = false;

  constructor(o: WalkthroughEngineOptions) {
    this.store = new RunStore(o.dir);
    for (const d of o.definitions) this.defs.set(d.kind, d);
    this.now = o.now ?? (() => new Date());
    if (o.onChange) this.listeners.add(o.onChange);
  }

  /** The kinds and titles this engine can start. */
  kinds(): { kind: string; title: string }[] {
    return [...this.defs.values()].map((d) => ({ kind: d.kind, title: d.title }));
  }

  /** Every change of any run (throttled for progress and output); returns the unsubscribe function. */
  subscribe(listener: (run: RunRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async start(kind: string, params: Record<string, unknown> = {}): Promise<RunRecord> {
    const def = this.defs.get(kind);
    if (!def) throw new Error(`unknown walkthrough ${JSON.stringify(kind)} (known: ${[...this.defs.keys()].join(', ')})`);
    const steps = def.steps(params);
    const startedAt = this.stamp();
    const id = `${startedAt.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'z').replace('T', '-').toLowerCase()}-${kind.toLowerCase().replace(/[^a-z0-9]/g, '')}-${randomBytes(3).toString('hex')}`;
    checkRunId(id);
    const run: RunRecord = {
      id, kind, title: def.title, params: { ...params }, state: 'running', startedAt,
      steps: steps.map((s) => ({ id: s.id, title: s.title, why: s.why, command: s.command, ...(s.gate ? { gate: s.gate } : {}), ...(s.gateNote ? { gateNote: s.gateNote } : {}), state: 'pending', output: [] })),
    };
    const live: LiveRun = { stored: { run, state: { ...params }, confirmed: [], pid: process.pid }, def, steps, driving: false, waiters: [] };
    this.live.set(id, live);
    this.flush(live);
    void this.drive(live);
    return this.clone(run);
  }

  /** Resolves once the run has ended (succeeded, failed or cancelled). */
  wait(id: string): Promise<RunRecord> {
    const live = this.live.get(id);
    if (!live) {
      const stored = this.store.load(id);
      if (stored && ENDED.has(stored.run.state)) return Promise.resolve(stored.run);
      return Promise.reject(new Error(`no walkthrough run ${id} in this process`));
    }
    if (ENDED.has(live.stored.run.state) && !live.driving) return Promise.resolve(this.clone(live.stored.run));
    return new Promise((resolve) => live.waiters.push(resolve));
  }

  pause(id: string): RunRecord {
    const live = this.mustBe(id, ['running'], 'pause');
    live.request = 'pause';
    live.controller?.abort(new Error('paused'));
    return this.clone(live.stored.run);
  }

  resume(id: string): RunRecord {
    const live = this.mustBe(id, ['paused'], 'resume');
    if (live.driving) throw new Error(`run ${id} is still stopping its step; resume it in a moment`);
    live.request = undefined;
    void this.drive(live);
    return this.clone(live.stored.run);
  }

  cancel(id: string): RunRecord {
    const live = this.mustBe(id, ['running', 'waiting', 'paused', 'failed'], 'cancel');
    const run = live.stored.run;
    if (run.state === 'waiting' && live.gate) live.gate('cancel');
    else if (live.driving) {
      live.request = 'cancel';
      live.controller?.abort(new Error('cancelled'));
    } else this.end(live, 'cancelled', 'cancelled by the user');
    return this.clone(run);
  }

  retry(id: string): RunRecord {
    const live = this.mustBe(id, ['failed'], 'retry');
    if (live.driving) throw new Error(`run ${id} is still ending; retry it in a moment`);
    const step = live.stored.run.steps.find((s) => s.state === 'failed');
    if (step) {
      step.state = 'pending';
      step.output.push(`--- retry (previous attempt: ${step.error ?? 'failed'}) ---`);
      delete step.error;
      delete step.progress;
    }
    const run = live.stored.run;
    delete run.reason;
    delete run.endedAt;
    delete run.report;
    run.state = 'running';
    live.request = undefined;
    void this.drive(live);
    return this.clone(run);
  }

  confirm(id: string): RunRecord {
    const live = this.mustBe(id, ['waiting'], 'confirm');
    live.gate?.('confirm');
    return this.clone(live.stored.run);
  }

  get(id: string): RunRecord | undefined {
    checkRunId(id);
    const live = this.live.get(id);
    return live ? this.clone(live.stored.run) : this.store.load(id)?.run;
  }

  /** Every run under the folder, this process's and others' (a CLI run shows in the console), newest first. */
  list(): RunRecord[] {
    const byId = new Map<string, RunRecord>();
    for (const s of this.store.loadAll()) byId.set(s.run.id, s.run);
    for (const [id, live] of this.live) byId.set(id, this.clone(live.stored.run));
    return [...byId.values()].sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.id.localeCompare(a.id));
  }

  /**
   * At start-up: takes over the runs a closed app left unfinished. A run left
   * running resumes when its step is resumable and ends failed otherwise; one
   * left waiting asks for its confirmation again; one left paused stays paused
   * for the user to resume. Runs another live process is executing are left alone.
   */
  async recover(): Promise<void> {
    for (const stored of this.store.loadAll()) {
      const run = stored.run;
      if (ENDED.has(run.state) || this.live.has(run.id)) continue;
      if (stored.pid && stored.pid !== process.pid && isAlive(stored.pid)) continue;
      const live = this.adopt(stored);
      const i = run.steps.findIndex((s) => s.state === 'running' || s.state === 'paused');
      const rec = i >= 0 ? run.steps[i] : undefined;
      if (!live.steps.length) {
        if (rec) this.failStep(rec, 'the app stopped while it was running');
        this.end(live, 'failed', `cannot continue: this version has no walkthrough "${run.kind}" with the run's steps`);
        continue;
      }
      if (run.state === 'paused') {
        if (rec && rec.state === 'running') rec.state = 'paused';
        this.flush(live);
        continue;
      }
      if (rec && rec.state === 'running') {
        if (!live.steps[i]!.resumable) {
          this.failStep(rec, 'the app stopped while it was running');
          this.end(live, 'failed', `interrupted at step ${i + 1} (${rec.title}): the app stopped while it was running`);
          continue;
        }
        rec.output.push('--- the app stopped while this step was running; running it again ---');
      }
      void this.drive(live);
    }
  }

  /** Takes a run read from disk into this process; no steps when its definition is gone or changed. */
  private adopt(stored: StoredRun): LiveRun {
    const run = stored.run;
    const def = this.defs.get(run.kind);
    let steps = def ? def.steps(run.params as never) : [];
    if (steps.length !== run.steps.length || steps.some((s, k) => s.id !== run.steps[k]!.id)) steps = [];
    const live: LiveRun = {
      stored: { ...stored, ...(ENDED.has(run.state) ? {} : { pid: process.pid }) },
      def: def ?? { kind: run.kind, title: run.title, steps: () => [] },
      steps, driving: false, waiters: [],
    };
    this.live.set(run.id, live);
    return live;
  }

  /** Closing the app: steps are aborted but runs stay recorded as they were, for recover() to take over. */
  dispose(): void {
    this.disposed = true;
    for (const live of this.live.values()) {
      if (live.timer) clearTimeout(live.timer);
      live.controller?.abort(new Error('the app is closing'));
    }
    this.listeners.clear();
  }

  // ------------------------------------------------------------ the run loop

  private async drive(live: LiveRun): Promise<void> {
    if (live.driving) return;
    live.driving = true;
    const { run } = live.stored;
    try {
      run.state = 'running';
      this.flush(live);
      for (let i = 0; i < live.steps.length; i++) {
        const def = live.steps[i]!;
        const rec = run.steps[i]!;
        if (rec.state === 'succeeded' || rec.state === 'skipped') continue;
        if (live.request === 'cancel') return this.end(live, 'cancelled', 'cancelled by the user');
        if (live.request === 'pause') return this.pausedAt(live);
        if (def.gate === 'confirm' && !live.stored.confirmed.includes(def.id)) {
          // the gate is open before anyone hears of it: a listener may confirm at once (headless --yes)
          const answered = new Promise<'confirm' | 'cancel'>((resolve) => (live.gate = resolve));
          run.state = 'waiting';
          this.flush(live);
          const go = await answered;
          live.gate = undefined;
          if (this.disposed) return;
          if (go === 'cancel') return this.end(live, 'cancelled', `cancelled before step ${i + 1} (${rec.title})`);
          live.stored.confirmed.push(def.id);
          run.state = 'running';
        }
        const outcome = await this.runStep(live, def, i);
        if (this.disposed) return;
        if (outcome === 'failed') return this.end(live, 'failed', `step ${i + 1} (${rec.title}) failed: ${rec.error}`);
        if (outcome === 'cancelled') return this.end(live, 'cancelled', `cancelled during step ${i + 1} (${rec.title})`);
        if (outcome === 'paused') return this.pausedAt(live);
        this.flush(live);
      }
      this.end(live, 'succeeded');
    } catch (err) {
      // the engine's own failure (a full disk under run.json): end the run and say so
      if (!this.disposed) this.end(live, 'failed', `the walkthrough engine failed: ${(err as Error).message}`);
    } finally {
      live.driving = false;
      live.controller = undefined;
      if (ENDED.has(run.state) && !this.disposed) this.settleWaiters(live);
    }
  }

  private async runStep(live: LiveRun, def: StepDefinition, i: number): Promise<StepOutcome> {
    const rec = live.stored.run.steps[i]!;
    rec.state = 'running';
    rec.startedAt = this.stamp();
    delete rec.endedAt;
    delete rec.verdict;
    delete rec.error;
    delete rec.progress;
    const controller = new AbortController();
    live.controller = controller;
    this.flush(live);
    const outcome = await attemptStep(def, rec, {
      state: live.stored.state,
      signal: controller.signal,
      changed: () => this.soon(live),
      stopRequest: () => live.request,
    });
    live.controller = undefined;
    rec.endedAt = this.stamp();
    return outcome;
  }

  private pausedAt(live: LiveRun): void {
    live.request = undefined;
    live.stored.run.state = 'paused';
    this.flush(live);
  }

  private failStep(rec: RunRecord['steps'][number], error: string): void {
    rec.state = 'failed';
    rec.error = error;
    rec.endedAt = this.stamp();
  }

  private end(live: LiveRun, state: 'succeeded' | 'failed' | 'cancelled', reason?: string): void {
    const { run } = live.stored;
    run.state = state;
    if (reason) run.reason = reason;
    else delete run.reason;
    run.endedAt = this.stamp();
    live.request = undefined;
    if (state === 'cancelled') for (const s of run.steps) if (s.state === 'pending' || s.state === 'paused') s.state = 'skipped';
    try {
      const figures = live.def.figures?.(live.stored.state);
      if (figures) run.figures = figures;
    } catch (err) {
      run.figures = { 'figures unavailable': (err as Error).message };
    }
    delete live.stored.pid;
    run.report = writeReport(this.store.runDir(run.id), run);
    this.flush(live);
    if (!live.driving) this.settleWaiters(live);
  }

  private settleWaiters(live: LiveRun): void {
    const waiters = live.waiters.splice(0);
    for (const w of waiters) w(this.clone(live.stored.run));
  }

  private mustBe(id: string, states: RunRecord['state'][], verb: string): LiveRun {
    checkRunId(id);
    const live = this.live.get(id);
    if (!live) {
      const stored = this.store.load(id);
      if (!stored) throw new Error(`no walkthrough run ${id}`);
      if (!ENDED.has(stored.run.state)) throw new Error(`run ${id} is being run by another process (pid ${stored.pid ?? '?'})`);
      // a run that failed before this process started can still be retried or cancelled here
      if (stored.run.state !== 'failed' || !states.includes('failed')) throw new Error(`run ${id} has ${stored.run.state}: nothing to ${verb}`);
      const adopted = this.adopt(stored);
      if (verb === 'retry' && !adopted.steps.length) throw new Error(`run ${id} cannot be retried: this version has no walkthrough "${stored.run.kind}" with its steps`);
      return adopted;
    }
    if (!states.includes(live.stored.run.state)) throw new Error(`run ${id} is ${live.stored.run.state}: cannot ${verb} it`);
    return live;
  }

  /** Writes and pushes now: every state change. */
  private flush(live: LiveRun): void {
    if (live.timer) clearTimeout(live.timer);
    live.timer = undefined;
    if (this.disposed) return;
    this.store.save(live.stored);
    const snapshot = this.clone(live.stored.run);
    for (const l of this.listeners) l(snapshot);
  }

  /** Writes and pushes within FLUSH_MS: progress and output, which may come thousands of times a second. */
  private soon(live: LiveRun): void {
    if (live.timer || this.disposed) return;
    live.timer = setTimeout(() => {
      live.timer = undefined;
      try {
        this.flush(live);
      } catch {
        // the next state change writes again, and reports a failure that persists
      }
    }, FLUSH_MS);
    live.timer.unref?.();
  }

  private stamp(): string {
    return this.now().toISOString();
  }

  private clone(run: RunRecord): RunRecord {
    return structuredClone(run);
  }
}

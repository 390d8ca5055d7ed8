export type StepState = 'pending' | 'running' | 'paused' | 'succeeded' | 'failed' | 'cancelled' | 'skipped';
export type RunState = 'running' | 'paused' | 'waiting' | 'succeeded' | 'failed' | 'cancelled' | 'interrupted';
export interface StepProgress { done: number; total?: number; unit?: string }
export interface StepContext {
  /** Aborted when the user cancels the run (or pauses it: a paused step is re-run on resume). */
  signal: AbortSignal;
  progress(p: StepProgress): void;
  /** One line of the step's output, shown live and kept in the report. */
  log(line: string): void;
  /** Run-wide JSON-serialisable state: parameters and what earlier steps found (persisted after each step). */
  state: Record<string, unknown>;
}
export interface StepDefinition {
  id: string;
  title: string;
  /** What it does and why, one or two sentences. */
  why: string;
  /** The exact etcdctl/kubectl/pilothouse command this step corresponds to. */
  command: string;
  /** 'confirm': the run waits (state 'waiting') for an explicit go-ahead before this step (destructive steps). */
  gate?: 'confirm';
  /** What the gate says the step does to the cluster (default: that it cannot be undone). */
  gateNote?: string;
  /** true when running it again after an interruption is safe; otherwise an interrupted run ends 'failed' with the reason. */
  resumable: boolean;
  /** Resolves with the step's verdict (one line); throws to fail the step (the message is the reason). */
  run(ctx: StepContext): Promise<string>;
}
export interface WalkthroughDefinition<P = Record<string, unknown>> {
  kind: string;              // 'backup' | 'drill' | 'restore' | later 'upgrade'
  title: string;
  /** Steps for these parameters; called again on resume with the persisted state. */
  steps(params: P): StepDefinition[];
  /** Figures for the report (read from state after the last step). */
  figures?(state: Record<string, unknown>): Record<string, string | number>;
}
export interface StepRecord { id: string; title: string; why: string; command: string; gate?: 'confirm'; gateNote?: string; state: StepState; progress?: StepProgress; output: string[]; verdict?: string; error?: string; startedAt?: string; endedAt?: string }
export interface RunRecord { id: string; kind: string; title: string; params: Record<string, unknown>; state: RunState; reason?: string; startedAt: string; endedAt?: string; steps: StepRecord[]; figures?: Record<string, string | number>; report?: { markdown: string; json: string } }

// One attempt at one step: the StepContext the step gets (its signal, its
// progress and output folded into its record) and how the attempt ends. A
// step that throws after the user paused or cancelled ended because of that,
// not failed; one that resolves anyway keeps its verdict. Calls a step makes
// after it settled change nothing (a stray timer must not rewrite a record).

import type { StepContext, StepDefinition, StepProgress, StepRecord } from './types';

/** Output lines kept per step; older ones are dropped (a line says so). */
export const MAX_OUTPUT_LINES = 2000;

export type StepOutcome = 'succeeded' | 'failed' | 'paused' | 'cancelled';

export interface AttemptHooks {
  /** The run-wide state the steps share. */
  state: Record<string, unknown>;
  signal: AbortSignal;
  /** Progress or output changed (written and pushed within a moment). */
  changed(): void;
  /** What the user asked for while the step ran. */
  stopRequest(): 'pause' | 'cancel' | undefined;
}

export async function attemptStep(def: StepDefinition, rec: StepRecord, hooks: AttemptHooks): Promise<StepOutcome> {
  let current = true;
  const ctx: StepContext = {
    signal: hooks.signal,
    state: hooks.state,
    progress: (p: StepProgress) => {
      if (!current) return;
      rec.progress = { ...p };
      hooks.changed();
    },
    log: (line: string) => {
      if (!current) return;
      for (const l of String(line).split(/\r?\n/)) rec.output.push(l);
      if (rec.output.length > MAX_OUTPUT_LINES) rec.output.splice(0, rec.output.length - MAX_OUTPUT_LINES, '… (earlier lines dropped)');
      hooks.changed();
    },
  };
  let outcome: StepOutcome;
  try {
    rec.verdict = String(await Promise.resolve().then(() => def.run(ctx)));
    rec.state = 'succeeded';
    const stop = hooks.stopRequest();
    outcome = stop === 'pause' ? 'paused' : stop === 'cancel' ? 'cancelled' : 'succeeded';
  } catch (err) {
    const stop = hooks.stopRequest();
    if (stop === 'pause') rec.state = outcome = 'paused';
    else if (stop === 'cancel') rec.state = outcome = 'cancelled';
    else {
      rec.state = outcome = 'failed';
      rec.error = err instanceof Error ? err.message : String(err);
    }
  }
  current = false;
  return outcome;
}

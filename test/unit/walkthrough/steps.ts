// Definitions for the engine's tests: steps whose timing the test controls
// (a gate each step waits on), so pause, cancel and restarts land exactly
// where a test puts them. The engine is what is under test, not these steps.

import type { StepContext, StepDefinition, WalkthroughDefinition } from '../../../main/walkthrough/types';

export interface Controlled {
  /** Times each step's run() was entered. */
  attempts: Record<string, number>;
  /** Signals seen by each step's latest attempt. */
  signals: Record<string, AbortSignal>;
  /** Lets a held step finish (resolve) or fail (reject) its current attempt. */
  release(id: string, verdict?: string): void;
  fail(id: string, message: string): void;
  /** Steps that fail on their first attempt. */
  failOnce: Set<string>;
}

interface Pending { resolve(v: string): void; reject(e: Error): void }

export function controlled(): Controlled {
  const pending = new Map<string, Pending>();
  const c: Controlled & { hold(id: string, ctx: StepContext): Promise<string> } = {
    attempts: {},
    signals: {},
    failOnce: new Set(),
    release(id, verdict = `${id} done`) {
      pending.get(id)?.resolve(verdict);
    },
    fail(id, message) {
      pending.get(id)?.reject(new Error(message));
    },
    hold(id, ctx) {
      return new Promise<string>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true });
      });
    },
  };
  return c;
}

export interface StepSpec { id: string; held?: boolean; gate?: 'confirm'; resumable?: boolean }

/** A definition "test" whose steps log, report progress, record what they saw in the state, and wait when held. */
export function testDefinition(kind: string, specs: StepSpec[], c: Controlled): WalkthroughDefinition<{ label?: string }> {
  const hold = (c as unknown as { hold(id: string, ctx: StepContext): Promise<string> }).hold;
  return {
    kind,
    title: `Test walkthrough ${kind}`,
    steps: () =>
      specs.map((s): StepDefinition => ({
        id: s.id,
        title: `Step ${s.id}`,
        why: `Because ${s.id} matters.`,
        command: `pilothouse test ${s.id} --data-dir DIR`,
        ...(s.gate ? { gate: s.gate } : {}),
        resumable: s.resumable ?? true,
        async run(ctx) {
          c.attempts[s.id] = (c.attempts[s.id] ?? 0) + 1;
          c.signals[s.id] = ctx.signal;
          ctx.log(`${s.id} attempt ${c.attempts[s.id]}`);
          ctx.progress({ done: 1, total: 4, unit: 'parts' });
          const seen = Object.keys(ctx.state).filter((k) => k.startsWith('found-')).sort().join(',');
          ctx.state[`found-${s.id}`] = seen || 'nothing';
          if (c.failOnce.delete(s.id)) throw new Error(`${s.id} broke`);
          const verdict = s.held ? await hold(s.id, ctx) : `${s.id} ok`;
          ctx.progress({ done: 4, total: 4, unit: 'parts' });
          return verdict;
        },
      })),
    figures: (state) => ({ steps: Object.keys(state).filter((k) => k.startsWith('found-')).length, label: String(state.label ?? '') }),
  };
}

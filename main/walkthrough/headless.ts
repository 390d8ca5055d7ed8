// A walkthrough from the command line: the same engine and steps the console
// runs, printed as they happen — each step's title, why, command, progress,
// output and verdict — and an exit code (0 succeeded, 1 otherwise). With
// `json` only the final RunRecord is printed, on stdout. A confirm gate is
// passed by `yes` (the command's --yes), asked on a terminal, and otherwise
// ends the run with a message naming the flag. Ctrl-C cancels the run, so a
// step's cleanup (a partial snapshot file, a scratch cluster) still happens.

import { createInterface } from 'node:readline';
import type { WalkthroughEngine } from './engine';
import { elapsed } from './report';
import type { RunRecord, StepProgress } from './types';

export interface HeadlessOptions {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
  json?: boolean;
  /** Pass every confirm gate without asking. */
  yes?: boolean;
  /** Where a gate's question is answered; process.stdin unless given. Asked only when it is a TTY. */
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Cancel the run on SIGINT (true unless given). */
  handleSigint?: boolean;
}

const MIB = 1024 * 1024;

/** "12.0 MiB / 100.0 MiB (12%)", "3/10 objects (30%)", "42 keys". */
export function formatProgress(p: StepProgress): string {
  const bytes = p.unit === 'bytes';
  const fmt = (n: number) => (bytes ? `${(n / MIB).toFixed(1)} MiB` : String(n));
  const unit = bytes || !p.unit ? '' : ` ${p.unit}`;
  if (p.total === undefined || p.total <= 0) return `${fmt(p.done)}${unit}`;
  const pct = Math.min(100, Math.floor((p.done / p.total) * 100));
  return `${fmt(p.done)} / ${fmt(p.total)}${unit} (${pct}%)`;
}

interface Printed {
  started: boolean;
  lines: number;
  pct: number;
  progressAt: number;
  ended: boolean;
}

export async function runHeadless(
  engine: WalkthroughEngine,
  kind: string,
  params: Record<string, unknown>,
  opts: HeadlessOptions,
): Promise<number> {
  const say = (line: string) => {
    if (!opts.json) opts.out.write(`${line}\n`);
  };
  const input = opts.input ?? process.stdin;
  const printed = new Map<string, Printed>();
  let runId = '';
  let asking = false;
  let refusedGate: string | undefined;

  const show = (run: RunRecord) => {
    if (run.id !== runId) return;
    run.steps.forEach((s, i) => {
      let p = printed.get(s.id);
      if (!p) printed.set(s.id, (p = { started: false, lines: 0, pct: -1, progressAt: 0, ended: false }));
      if (s.state === 'pending' || s.state === 'skipped') return;
      if (!p.started) {
        p.started = true;
        say(`[${i + 1}/${run.steps.length}] ${s.title}`);
        say(`  ${s.why}`);
        say(`  $ ${s.command}`);
      }
      if (p.lines > s.output.length) p.lines = 0; // older lines were dropped
      for (const line of s.output.slice(p.lines)) say(`  | ${line}`);
      p.lines = s.output.length;
      if (s.state === 'running' && s.progress) {
        // on a pipe a bar redrawn in place is noise: a line per 10% or every 2 s
        const pct = s.progress.total ? Math.floor((s.progress.done / s.progress.total) * 10) : -1;
        const now = Date.now();
        if (pct !== p.pct || now - p.progressAt >= 2000) {
          p.pct = pct;
          p.progressAt = now;
          say(`  progress: ${formatProgress(s.progress)}`);
        }
      }
      if (s.state === 'running') p.ended = false;
      if (!p.ended && (s.state === 'succeeded' || s.state === 'failed' || s.state === 'cancelled' || s.state === 'paused')) {
        p.ended = true;
        const took = elapsed(s.startedAt, s.endedAt);
        if (s.state === 'succeeded') say(`  ✓ ${s.verdict ?? 'done'}${took ? ` (${took})` : ''}`);
        else if (s.state === 'failed') say(`  ✗ failed: ${s.error ?? 'unknown error'}`);
        else say(`  ✗ ${s.state}`);
      }
    });
    if (run.state === 'waiting' && !asking) void gate(run);
  };

  const gate = async (run: RunRecord) => {
    asking = true;
    const step = run.steps.find((s) => s.state === 'pending');
    const title = step?.title ?? 'the next step';
    try {
      if (opts.yes) {
        say(`  confirmation for "${title}" given by --yes`);
        engine.confirm(run.id);
        return;
      }
      if (!input.isTTY) {
        refusedGate = title;
        opts.err.write(`pilothouse: "${title}" is destructive and needs a confirmation: pass --yes to run it without a terminal\n`);
        engine.cancel(run.id);
        return;
      }
      const rl = createInterface({ input, output: opts.err as NodeJS.WritableStream });
      const answer = await new Promise<string>((resolve) => rl.question(`"${title}" runs: ${step?.command ?? ''}\nType yes to go ahead: `, resolve));
      rl.close();
      if (answer.trim().toLowerCase() === 'yes') engine.confirm(run.id);
      else {
        refusedGate = title;
        opts.err.write(`pilothouse: not confirmed; "${title}" did not run\n`);
        engine.cancel(run.id);
      }
    } finally {
      asking = false;
    }
  };

  const unsubscribe = engine.subscribe(show);
  const onSigint = () => {
    if (!runId) return;
    opts.err.write('pilothouse: cancelling the walkthrough (its steps clean up first)\n');
    try {
      engine.cancel(runId);
    } catch {
      // it ended meanwhile
    }
  };
  if (opts.handleSigint !== false) process.on('SIGINT', onSigint);
  try {
    const started = await engine.start(kind, params);
    runId = started.id;
    say(`${started.title} (run ${started.id})`);
    show(engine.get(runId) ?? started);
    const final = await engine.wait(runId);
    show(final);
    if (opts.json) opts.out.write(`${JSON.stringify(final, null, 2)}\n`);
    else {
      say('');
      say(`${final.title}: ${final.state}${final.reason ? ` — ${final.reason}` : ''}`);
      for (const [k, v] of Object.entries(final.figures ?? {})) say(`  ${k}: ${v}`);
      if (final.report) say(`Report: ${final.report.markdown}`);
    }
    if (final.state !== 'succeeded' && !refusedGate && opts.json) opts.err.write(`pilothouse: ${final.reason ?? final.state}\n`);
    return final.state === 'succeeded' ? 0 : 1;
  } catch (err) {
    opts.err.write(`pilothouse: ${(err as Error).message}\n`);
    return 1;
  } finally {
    unsubscribe();
    if (opts.handleSigint !== false) process.off('SIGINT', onSigint);
  }
}

import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WalkthroughEngine } from '../../../main/walkthrough/engine';
import { MAX_OUTPUT_LINES } from '../../../main/walkthrough/stepAttempt';
import type { RunRecord, WalkthroughDefinition } from '../../../main/walkthrough/types';
import { eventually } from '../../support/waitFor';
import { controlled, testDefinition, type Controlled } from './steps';

let dir: string;
let engines: WalkthroughEngine[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ph-walkthrough-'));
  engines = [];
});
afterEach(() => {
  for (const e of engines) e.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function engine(defs: WalkthroughDefinition<any>[], changes?: RunRecord[]): WalkthroughEngine { // eslint-disable-line @typescript-eslint/no-explicit-any
  const e = new WalkthroughEngine({ dir, definitions: defs, ...(changes ? { onChange: (r: RunRecord) => changes.push(r) } : {}) });
  engines.push(e);
  return e;
}

function onDisk(id: string): { run: RunRecord; state: Record<string, unknown>; confirmed: string[]; pid?: number } {
  return JSON.parse(readFileSync(join(dir, id, 'run.json'), 'utf8'));
}

const states = (r: RunRecord | undefined) => r?.steps.map((s) => s.state).join(' ');

describe('WalkthroughEngine', () => {
  let c: Controlled;
  beforeEach(() => {
    c = controlled();
  });

  it('runs the steps in order, carries state between them, persists 0600 files and writes the report', async () => {
    const changes: RunRecord[] = [];
    const e = engine([testDefinition('t', [{ id: 'a' }, { id: 'b' }, { id: 'c' }], c)], changes);
    const started = await e.start('t', { label: 'first' });
    expect(started.state).toBe('running');
    const run = await e.wait(started.id);
    expect(run.state).toBe('succeeded');
    expect(states(run)).toBe('succeeded succeeded succeeded');
    expect(run.steps.map((s) => s.verdict)).toEqual(['a ok', 'b ok', 'c ok']);
    expect(run.steps[0]!.output).toEqual(['a attempt 1']);
    expect(run.steps[2]!.progress).toEqual({ done: 4, total: 4, unit: 'parts' });
    expect(run.figures).toEqual({ steps: 3, label: 'first' });
    const stored = onDisk(run.id);
    expect(stored.state).toMatchObject({ label: 'first', 'found-a': 'nothing', 'found-b': 'found-a', 'found-c': 'found-a,found-b' });
    expect(stored.run.state).toBe('succeeded');
    expect(statSync(join(dir, run.id, 'run.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, run.id)).mode & 0o777).toBe(0o700);
    expect(run.report).toEqual({ markdown: join(dir, run.id, 'report.md'), json: join(dir, run.id, 'report.json') });
    const md = readFileSync(run.report!.markdown, 'utf8');
    for (const want of ['# Test walkthrough t', 'Result: **succeeded**', '### 2. Step b — ✓ succeeded', 'Because b matters.', '`pilothouse test c --data-dir DIR`', 'a attempt 1', 'Verdict: c ok', '| label | first |', 'took']) {
      expect(md).toContain(want);
    }
    expect(statSync(run.report!.markdown).mode & 0o777).toBe(0o600);
    const json = JSON.parse(readFileSync(run.report!.json, 'utf8')) as RunRecord;
    expect(json.steps.map((s) => s.verdict)).toEqual(['a ok', 'b ok', 'c ok']);
    expect(json.figures).toEqual({ steps: 3, label: 'first' });
    // every change was pushed, the last one being the end
    expect(changes.at(-1)!.state).toBe('succeeded');
    expect(changes.some((r) => r.steps[1]!.state === 'running')).toBe(true);
    expect(e.list().map((r) => r.id)).toEqual([run.id]);
  });

  it('fails at the step that throws, keeps the rest pending, and retry re-runs that step and continues', async () => {
    c.failOnce.add('b');
    const e = engine([testDefinition('t', [{ id: 'a' }, { id: 'b' }, { id: 'c' }], c)]);
    const { id } = await e.start('t');
    const failed = await e.wait(id);
    expect(failed.state).toBe('failed');
    expect(failed.reason).toBe('step 2 (Step b) failed: b broke');
    expect(states(failed)).toBe('succeeded failed pending');
    expect(failed.steps[1]!.error).toBe('b broke');
    expect(readFileSync(failed.report!.markdown, 'utf8')).toContain('Error: b broke');
    expect(() => e.resume(id)).toThrow(/is failed: cannot resume/);
    e.retry(id);
    const done = await e.wait(id);
    expect(done.state).toBe('succeeded');
    expect(done.reason).toBeUndefined();
    expect(c.attempts).toEqual({ a: 1, b: 2, c: 1 });
    expect(done.steps[1]!.output).toEqual(['b attempt 1', '--- retry (previous attempt: b broke) ---', 'b attempt 2']);
  });

  it('pause aborts the running step and marks it paused; resume runs that step again', async () => {
    const e = engine([testDefinition('t', [{ id: 'a' }, { id: 'b', held: true }, { id: 'c' }], c)]);
    const { id } = await e.start('t');
    await eventually('step b running', () => e.get(id)?.steps[1]!.state === 'running');
    e.pause(id);
    expect(c.signals.b!.aborted).toBe(true);
    const paused = await eventually('run paused', () => (e.get(id)?.state === 'paused' ? e.get(id) : undefined));
    expect(states(paused)).toBe('succeeded paused pending');
    expect(onDisk(id).run.state).toBe('paused');
    e.resume(id);
    await eventually('step b running again', () => c.attempts.b === 2 && e.get(id)?.steps[1]!.state === 'running');
    expect(c.signals.b!.aborted).toBe(false);
    c.release('b');
    const done = await e.wait(id);
    expect(done.state).toBe('succeeded');
    expect(c.attempts).toEqual({ a: 1, b: 2, c: 1 });
  });

  it('a step that finishes despite a pause keeps its verdict and the run pauses before the next step', async () => {
    const def = testDefinition('t', [{ id: 'a' }, { id: 'b' }], c);
    const stubborn: WalkthroughDefinition = {
      ...def,
      steps: (p) => def.steps(p).map((s, i) => (i === 0 ? { ...s, run: async () => new Promise<string>((r) => setTimeout(() => r('finished anyway'), 50)) } : s)),
    };
    const e = engine([stubborn]);
    const { id } = await e.start('t');
    e.pause(id);
    const paused = await eventually('run paused', () => (e.get(id)?.state === 'paused' ? e.get(id) : undefined));
    expect(states(paused)).toBe('succeeded pending');
    expect(paused!.steps[0]!.verdict).toBe('finished anyway');
    e.resume(id);
    expect((await e.wait(id)).state).toBe('succeeded');
  });

  it('cancel aborts the running step, ends the run cancelled with the rest skipped, and leaves a report', async () => {
    const e = engine([testDefinition('t', [{ id: 'a', held: true }, { id: 'b' }], c)]);
    const { id } = await e.start('t');
    await eventually('step a running', () => e.get(id)?.steps[0]!.state === 'running');
    e.cancel(id);
    const run = await e.wait(id);
    expect(run.state).toBe('cancelled');
    expect(run.reason).toBe('cancelled during step 1 (Step a)');
    expect(states(run)).toBe('cancelled skipped');
    expect(c.signals.a!.aborted).toBe(true);
    expect(c.attempts.b).toBeUndefined();
    expect(readFileSync(run.report!.markdown, 'utf8')).toContain('Result: **cancelled** — cancelled during step 1 (Step a)');
    expect(() => e.cancel(id)).toThrow(/cannot cancel/);
  });

  it('waits at a confirm gate until confirmed, and a cancel there runs nothing more', async () => {
    const e = engine([testDefinition('t', [{ id: 'a' }, { id: 'b', gate: 'confirm' }], c), testDefinition('u', [{ id: 'x', gate: 'confirm' }], c)]);
    const first = await e.start('t');
    const waiting = await eventually('run waiting', () => (e.get(first.id)?.state === 'waiting' ? e.get(first.id) : undefined));
    expect(states(waiting)).toBe('succeeded pending');
    expect(waiting!.steps[1]!.gate).toBe('confirm');
    expect(c.attempts.b).toBeUndefined();
    expect(() => e.pause(first.id)).toThrow(/is waiting: cannot pause/);
    e.confirm(first.id);
    expect((await e.wait(first.id)).state).toBe('succeeded');
    expect(c.attempts.b).toBe(1);

    const second = await e.start('u');
    await eventually('run waiting', () => e.get(second.id)?.state === 'waiting');
    e.cancel(second.id);
    const cancelled = await e.wait(second.id);
    expect(cancelled.state).toBe('cancelled');
    expect(cancelled.reason).toBe('cancelled before step 1 (Step x)');
    expect(c.attempts.x).toBeUndefined();
  });

  it('refuses unknown kinds and ids that are not run folders', async () => {
    const e = engine([testDefinition('t', [{ id: 'a' }], c)]);
    await expect(e.start('nope')).rejects.toThrow('unknown walkthrough "nope" (known: t)');
    expect(() => e.get('../etc')).toThrow(/invalid walkthrough run id/);
    expect(() => e.confirm('20260101-000000z-t-abcdef')).toThrow('no walkthrough run 20260101-000000z-t-abcdef');
  });

  it('keeps the last MAX_OUTPUT_LINES lines of a chatty step and says earlier ones were dropped', async () => {
    const def: WalkthroughDefinition = {
      kind: 'chatty', title: 'Chatty', steps: () => [{
        id: 'talk', title: 'Talk', why: 'w', command: 'c', resumable: true,
        run: async (ctx) => {
          for (let i = 1; i <= MAX_OUTPUT_LINES + 500; i++) ctx.log(`line ${i}`);
          ctx.log('two\nlines');
          return 'said';
        },
      }],
    };
    const e = engine([def]);
    const out = (await e.wait((await e.start('chatty')).id)).steps[0]!.output;
    expect(out.length).toBe(MAX_OUTPUT_LINES + 1);
    expect(out[0]).toBe('… (earlier lines dropped)');
    expect(out.slice(-3)).toEqual([`line ${MAX_OUTPUT_LINES + 500}`, 'two', 'lines']);
  });

  it('ignores progress and output from a step after it settled', async () => {
    let late: (() => void) | undefined;
    const def: WalkthroughDefinition = {
      kind: 'late', title: 'Late', steps: () => [{
        id: 'only', title: 'Only', why: 'w', command: 'c', resumable: true,
        run: async (ctx) => {
          late = () => { ctx.log('too late'); ctx.progress({ done: 9 }); };
          return 'ok';
        },
      }],
    };
    const e = engine([def]);
    const { id } = await e.start('late');
    await e.wait(id);
    late!();
    expect(e.get(id)!.steps[0]!.output).toEqual([]);
    expect(e.get(id)!.steps[0]!.progress).toBeUndefined();
  });
});

describe('WalkthroughEngine after the app stopped (a fresh engine on the same folder)', () => {
  let c: Controlled;
  beforeEach(() => {
    c = controlled();
  });

  it('resumes a run whose running step is resumable', async () => {
    const a = engine([testDefinition('t', [{ id: 'a' }, { id: 'b', held: true }, { id: 'c' }], c)]);
    const { id } = await a.start('t', { label: 'crash' });
    await eventually('step b running', () => a.get(id)?.steps[1]!.state === 'running');
    a.dispose(); // the app closes: run.json still says running
    expect(c.signals.b!.aborted).toBe(true);
    expect(onDisk(id).run.state).toBe('running');
    expect(onDisk(id).run.steps[1]!.state).toBe('running');

    const b = engine([testDefinition('t', [{ id: 'a' }, { id: 'b', held: true }, { id: 'c' }], c)]);
    await b.recover();
    await eventually('step b re-run', () => c.attempts.b === 2 && b.get(id)?.steps[1]!.state === 'running');
    c.release('b');
    const run = await b.wait(id);
    expect(run.state).toBe('succeeded');
    expect(c.attempts).toEqual({ a: 1, b: 2, c: 1 });
    expect(run.steps[1]!.output).toContain('--- the app stopped while this step was running; running it again ---');
    expect(run.figures).toEqual({ steps: 3, label: 'crash' }); // the state survived the restart
  });

  it('ends a run failed with its reason when the interrupted step is not resumable, and says so in the report', async () => {
    const specs = [{ id: 'a' }, { id: 'b', held: true, resumable: false }, { id: 'c' }];
    const a = engine([testDefinition('t', specs, c)]);
    const { id } = await a.start('t');
    await eventually('step b running', () => a.get(id)?.steps[1]!.state === 'running');
    a.dispose();

    const b = engine([testDefinition('t', specs, c)]);
    await b.recover();
    const run = b.get(id)!;
    expect(run.state).toBe('failed');
    expect(run.reason).toBe('interrupted at step 2 (Step b): the app stopped while it was running');
    expect(states(run)).toBe('succeeded failed pending');
    expect(c.attempts.b).toBe(1);
    expect(readFileSync(run.report!.markdown, 'utf8')).toContain('interrupted at step 2 (Step b): the app stopped while it was running');
    expect(onDisk(id).run.state).toBe('failed');
    // the user may still retry it, in this process
    b.retry(id);
    await eventually('step b retried', () => c.attempts.b === 2);
    c.release('b');
    expect((await b.wait(id)).state).toBe('succeeded');
  });

  it('keeps a paused run paused, asks again at a gate, and leaves runs another live process owns alone', async () => {
    const specs = [{ id: 'a', held: true }, { id: 'g', gate: 'confirm' as const }];
    const a = engine([testDefinition('t', specs, c)]);
    const paused = await a.start('t');
    await eventually('step a running', () => a.get(paused.id)?.steps[0]!.state === 'running');
    a.pause(paused.id);
    await eventually('paused', () => a.get(paused.id)?.state === 'paused');
    const gated = await a.start('t');
    await eventually('step a running', () => a.get(gated.id)?.steps[0]!.state === 'running');
    c.release('a');
    await eventually('waiting', () => a.get(gated.id)?.state === 'waiting');
    const foreign = await a.start('t');
    await eventually('step a running', () => a.get(foreign.id)?.steps[0]!.state === 'running');
    a.dispose();
    // the third run belongs to a process that is still alive (our parent)
    const f = onDisk(foreign.id);
    writeFileSync(join(dir, foreign.id, 'run.json'), JSON.stringify({ ...f, pid: process.ppid }));
    const attemptsBefore = c.attempts.a;

    const b = engine([testDefinition('t', specs, c)]);
    await b.recover();
    expect(b.get(paused.id)!.state).toBe('paused');
    expect(b.get(paused.id)!.steps[0]!.state).toBe('paused');
    await eventually('gate asked again', () => b.get(gated.id)?.state === 'waiting');
    expect(b.get(foreign.id)!.state).toBe('running');
    expect(() => b.cancel(foreign.id)).toThrow(`run ${foreign.id} is being run by another process (pid ${process.ppid})`);
    expect(c.attempts.a).toBe(attemptsBefore);
    b.confirm(gated.id);
    expect((await b.wait(gated.id)).state).toBe('succeeded');
    b.resume(paused.id);
    await eventually('a re-run', () => b.get(paused.id)?.steps[0]!.state === 'running' && c.attempts.a === attemptsBefore! + 1);
    c.release('a');
    await eventually('waiting', () => b.get(paused.id)?.state === 'waiting');
    b.confirm(paused.id);
    expect((await b.wait(paused.id)).state).toBe('succeeded');
    expect(b.list().map((r) => r.id).sort()).toEqual([paused.id, gated.id, foreign.id].sort());
  });

  it('fails a run whose walkthrough this version no longer has', async () => {
    const a = engine([testDefinition('gone', [{ id: 'a', held: true }], c)]);
    const { id } = await a.start('gone');
    await eventually('step a running', () => a.get(id)?.steps[0]!.state === 'running');
    a.dispose();
    const b = engine([testDefinition('t', [{ id: 'a' }], c)]);
    await b.recover();
    expect(b.get(id)!.state).toBe('failed');
    expect(b.get(id)!.reason).toBe('cannot continue: this version has no walkthrough "gone" with the run\'s steps');
  });
});

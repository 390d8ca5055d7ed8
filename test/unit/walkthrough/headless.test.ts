import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WalkthroughEngine } from '../../../main/walkthrough/engine';
import { formatProgress, runHeadless } from '../../../main/walkthrough/headless';
import type { RunRecord, WalkthroughDefinition } from '../../../main/walkthrough/types';
import { controlled, testDefinition } from './steps';

class Collect extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}

let dir: string;
let engine: WalkthroughEngine;
const c = controlled();
const streamed: WalkthroughDefinition = {
  kind: 'stream',
  title: 'Streaming walkthrough',
  steps: () => [
    {
      id: 'copy', title: 'Copy the bytes', why: 'A long step with progress.', command: 'etcdctl snapshot save FILE', resumable: true,
      run: async (ctx) => {
        for (let i = 1; i <= 4; i++) ctx.progress({ done: i * 25 * 1024 * 1024, total: 100 * 1024 * 1024, unit: 'bytes' });
        ctx.log('Snapshot saved at FILE');
        ctx.state.bytes = 100 * 1024 * 1024;
        return '100.0 MiB copied';
      },
    },
  ],
  figures: (s) => ({ 'size (bytes)': Number(s.bytes) }),
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ph-headless-'));
  engine = new WalkthroughEngine({
    dir,
    definitions: [streamed, testDefinition('gated', [{ id: 'a' }, { id: 'wipe', gate: 'confirm' }], c), testDefinition('broken', [{ id: 'a' }], c)],
  });
});
afterEach(() => {
  engine.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function run(kind: string, extra: { json?: boolean; yes?: boolean; input?: PassThrough & { isTTY?: boolean } } = {}) {
  const out = new Collect();
  const err = new Collect();
  const code = await runHeadless(engine, kind, {}, { out, err, handleSigint: false, input: extra.input ?? Object.assign(new PassThrough(), { isTTY: false }), ...extra });
  return { code, out: out.text, err: err.text };
}

describe('runHeadless', () => {
  it('prints each step with its why, command, progress, output and verdict, then the figures and the report', async () => {
    const r = await run('stream');
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/^Streaming walkthrough \(run \d{8}-\d{6}z-stream-[0-9a-f]{6}\)$/);
    expect(lines.slice(1, 4)).toEqual(['[1/1] Copy the bytes', '  A long step with progress.', '  $ etcdctl snapshot save FILE']);
    expect(r.out).toContain('  | Snapshot saved at FILE');
    expect(r.out).toMatch(/ {2}✓ 100\.0 MiB copied \(\d+ ms\)/);
    expect(r.out).toContain('Streaming walkthrough: succeeded');
    expect(r.out).toContain('  size (bytes): 104857600');
    expect(r.out).toMatch(/Report: .*\/report\.md/);
  });

  it('passes a gate with yes', async () => {
    const r = await run('gated', { yes: true });
    expect(r.code).toBe(0);
    expect(r.out).toContain('confirmation for "Step wipe" given by --yes');
    expect(r.out).toContain('[2/2] Step wipe');
  });

  it('without yes and without a terminal, ends the run at the gate with a message naming --yes', async () => {
    const before = c.attempts.wipe ?? 0;
    const r = await run('gated');
    expect(r.code).toBe(1);
    expect(r.err).toContain('"Step wipe" is destructive and needs a confirmation: pass --yes to run it without a terminal');
    expect(r.out).toContain('Test walkthrough gated: cancelled — cancelled before step 2 (Step wipe)');
    expect(c.attempts.wipe ?? 0).toBe(before);
  });

  it('asks on a terminal and runs the step only on "yes"', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const pending = run('gated', { input });
    setImmediate(() => input.write('yes\n'));
    const r = await pending;
    expect(r.code).toBe(0);
    expect(r.err).toContain('Type yes to go ahead');
    expect(r.out).toContain('[2/2] Step wipe');

    const no = Object.assign(new PassThrough(), { isTTY: true });
    const refused = run('gated', { input: no });
    setImmediate(() => no.write('n\n'));
    const r2 = await refused;
    expect(r2.code).toBe(1);
    expect(r2.err).toContain('not confirmed; "Step wipe" did not run');
  });

  it('with json prints only the final RunRecord on stdout; a failure exits 1 with its reason on stderr', async () => {
    c.failOnce.add('a');
    const r = await run('broken', { json: true });
    expect(r.code).toBe(1);
    const rec = JSON.parse(r.out) as RunRecord;
    expect(rec.state).toBe('failed');
    expect(rec.steps[0]!.error).toBe('a broke');
    expect(r.err).toBe('pilothouse: step 1 (Step a) failed: a broke\n');

    const ok = await run('stream', { json: true });
    expect(ok.code).toBe(0);
    expect((JSON.parse(ok.out) as RunRecord).figures).toEqual({ 'size (bytes)': 104857600 });
  });

  it('a failed step is printed with its error', async () => {
    c.failOnce.add('a');
    const r = await run('broken');
    expect(r.code).toBe(1);
    expect(r.out).toContain('  ✗ failed: a broke');
    expect(r.out).toContain('Test walkthrough broken: failed — step 1 (Step a) failed: a broke');
  });

  it('formats progress', () => {
    const cases = [
      { p: { done: 12 * 1024 * 1024, total: 100 * 1024 * 1024, unit: 'bytes' }, want: '12.0 MiB / 100.0 MiB (12%)' },
      { p: { done: 3, total: 10, unit: 'objects' }, want: '3 / 10 objects (30%)' },
      { p: { done: 42, unit: 'keys' }, want: '42 keys' },
      { p: { done: 5 }, want: '5' },
    ];
    for (const { p, want } of cases) expect(formatProgress(p)).toBe(want);
  });
});

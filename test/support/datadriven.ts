// A datadriven test-file runner in the format of github.com/cockroachdb/datadriven:
//
//   # comment
//   cmd arg key=val key=(a,b) ...
//   optional input lines
//   ----
//   expected output
//   <blank line>
//
// Each case's handler returns its output; a mismatch fails with a diff that
// names the case's line. With rewrite on, the file is written back with the
// actual outputs instead (the equivalent of datadriven's -rewrite flag).
// Outputs containing blank lines are written in the double-separator form
// (`----` `----` ... `----` `----`), which datadriven also reads.

import { readFileSync, writeFileSync } from 'node:fs';

export interface CmdArg {
  key: string;
  vals: string[];
}

export interface TestCase {
  /** file:line of the command, for messages */
  pos: string;
  cmd: string;
  args: CmdArg[];
  input: string;
  expected: string;
}

export class TestCaseArgs {
  constructor(readonly tc: TestCase) {}
  has(key: string): boolean {
    return this.tc.args.some((a) => a.key === key);
  }
  /** The first value of key=..., or undefined. */
  get(key: string): string | undefined {
    return this.tc.args.find((a) => a.key === key)?.vals[0];
  }
  list(key: string): string[] {
    return this.tc.args.find((a) => a.key === key)?.vals ?? [];
  }
  /** Bare words (arguments without "="). */
  positional(): string[] {
    return this.tc.args.filter((a) => a.vals.length === 0).map((a) => a.key);
  }
}

function parseArgs(words: string[]): CmdArg[] {
  return words.map((w) => {
    const eq = w.indexOf('=');
    if (eq < 0) return { key: w, vals: [] };
    let v = w.slice(eq + 1);
    if (v.startsWith('(') && v.endsWith(')')) v = v.slice(1, -1);
    return { key: w.slice(0, eq), vals: v === '' ? [] : v.split(',').map((s) => s.trim()) };
  });
}

interface Chunk {
  /** Raw text of the file before this case's command line (comments, blank lines). */
  prefix: string[];
  /** Command line and input lines, verbatim. */
  head: string[];
  tc: TestCase;
}

export function parse(path: string, text: string): { chunks: Chunk[]; trailer: string[] } {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const chunks: Chunk[] = [];
  let prefix: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '' || line.trimStart().startsWith('#')) {
      prefix.push(line);
      i++;
      continue;
    }
    const start = i;
    const head = [line];
    i++;
    while (i < lines.length && lines[i] !== '----') head.push(lines[i++]!);
    if (i >= lines.length) throw new Error(`${path}:${start + 1}: missing ---- after command`);
    i++; // the separator
    const out: string[] = [];
    if (lines[i] === '----') {
      // double-separator form: ends at `----` `----`
      i++;
      while (i < lines.length && !(lines[i] === '----' && lines[i + 1] === '----')) out.push(lines[i++]!);
      if (i >= lines.length) throw new Error(`${path}:${start + 1}: unterminated ---- ---- block`);
      i += 2;
      if (out.length && out[out.length - 1] === '') out.pop();
    } else {
      while (i < lines.length && lines[i]!.trim() !== '') out.push(lines[i++]!);
    }
    const [cmd, ...words] = head[0]!.trim().split(/\s+/);
    chunks.push({
      prefix,
      head,
      tc: {
        pos: `${path}:${start + 1}`,
        cmd: cmd!,
        args: parseArgs(words),
        input: head.slice(1).join('\n'),
        expected: out.length ? out.join('\n') + '\n' : '',
      },
    });
    prefix = [];
  }
  return { chunks, trailer: prefix };
}

function render(head: string[], output: string): string[] {
  const body = output.endsWith('\n') ? output.slice(0, -1) : output;
  if (body === '') return [...head, '----'];
  const lines = body.split('\n');
  if (lines.some((l) => l.trim() === '')) return [...head, '----', '----', ...lines, '', '----', '----'];
  return [...head, '----', ...lines];
}

/**
 * Runs every case of the file through handler, in order. Returns the failures
 * (empty when all match); with rewrite, writes the actual outputs back instead.
 */
export function runFile(path: string, handler: (tc: TestCase) => string, rewrite: boolean): string[] {
  const { chunks, trailer } = parse(path, readFileSync(path, 'utf8'));
  const failures: string[] = [];
  const outLines: string[] = [];
  for (const c of chunks) {
    let actual: string;
    try {
      actual = handler(c.tc);
    } catch (e) {
      actual = `error: ${(e as Error).message}\n`;
    }
    if (actual !== '' && !actual.endsWith('\n')) actual += '\n';
    if (actual !== c.tc.expected) failures.push(`${c.tc.pos}: ${c.head[0]}\n${diff(c.tc.expected, actual)}`);
    outLines.push(...c.prefix, ...render(c.head, actual));
  }
  outLines.push(...trailer);
  if (rewrite) {
    writeFileSync(path, outLines.join('\n') + '\n');
    return [];
  }
  return failures;
}

/** A line diff (longest common subsequence): "-" expected only, "+" actual only. */
export function diff(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push(`  ${a[i]}`);
      i++;
      j++;
    } else if (j < m && (i === n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) out.push(`+ ${b[j++]}`);
    else out.push(`- ${a[i++]}`);
  }
  return out.join('\n');
}

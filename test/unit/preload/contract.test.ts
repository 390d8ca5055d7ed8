// The contract's runtime name lists must stay equal to its type map: a call or
// stream added to BridgeCalls / BridgeEvents without its name in BRIDGE_CALLS /
// BRIDGE_EVENTS, or a listed name the map lacks, must not compile. The first
// block checks keysOf itself: npm run typecheck compiles this file, and its
// expected-error lines fail that if keysOf stops rejecting. The second block
// compiles the real contract.ts with one such edit and expects the compiler to
// refuse it, which fails if the lists stop being built through the check.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { BRIDGE_CALLS, BRIDGE_EVENTS, type BridgeCallName, type BridgeEventName } from '../../../preload/contract';
import { keysOf } from '../../../preload/keysOf';

interface TwoCalls {
  a(): void;
  b(): void;
}

describe('keysOf', () => {
  it('lists the keys in the order written', () => {
    expect(keysOf<TwoCalls>({ b: true, a: true })).toEqual(['b', 'a']);
    expectTypeOf(keysOf<TwoCalls>({ a: true, b: true })).toEqualTypeOf<('a' | 'b')[]>();
  });

  it('rejects a missing key and an unknown one at compile time', () => {
    // @ts-expect-error b is missing
    keysOf<TwoCalls>({ a: true });
    // @ts-expect-error c is not a key of TwoCalls
    keysOf<TwoCalls>({ a: true, b: true, c: true });
  });

  it('gives the contract lists of its own call and stream names', () => {
    expectTypeOf(BRIDGE_CALLS).toEqualTypeOf<readonly BridgeCallName[]>();
    expectTypeOf(BRIDGE_EVENTS).toEqualTypeOf<readonly BridgeEventName[]>();
    expect(BRIDGE_CALLS).toContain('overview');
    expect(BRIDGE_EVENTS).toContain('overview');
  });
});

const contractPath = fileURLToPath(new URL('../../../preload/contract.ts', import.meta.url));
const compilerOptions: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2022.d.ts'],
  types: [],
  skipLibCheck: true,
  isolatedModules: true,
};
// Parsed lib and sibling files are shared between the compilations below.
const parsed = new Map<string, ts.SourceFile>();

/** The compiler's errors for preload/contract.ts with its text replaced by `source`. */
function contractErrors(source: string): string[] {
  const host = ts.createCompilerHost(compilerOptions);
  const readSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    if (path.resolve(fileName) === contractPath) return ts.createSourceFile(fileName, source, languageVersion);
    let file = parsed.get(fileName);
    if (!file) {
      file = readSourceFile(fileName, languageVersion, ...rest);
      if (file) parsed.set(fileName, file);
    }
    return file;
  };
  const program = ts.createProgram([contractPath], compilerOptions, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

/** Inserts `line` after the first line that starts with `anchor`. */
function insertAfter(source: string, anchor: string, line: string): string {
  const at = source.indexOf(`\n${anchor}`);
  if (at < 0) throw new Error(`contract.ts has no line starting with ${JSON.stringify(anchor)}`);
  const end = source.indexOf('\n', at + 1);
  return `${source.slice(0, end + 1)}${line}\n${source.slice(end + 1)}`;
}

function removeLine(source: string, line: string): string {
  if (!source.includes(`\n${line}\n`)) throw new Error(`contract.ts has no line ${JSON.stringify(line)}`);
  return source.replace(`\n${line}\n`, '\n');
}

describe('contract.ts', () => {
  const original = fs.readFileSync(contractPath, 'utf8');

  it('compiles as it is', () => {
    expect(contractErrors(original)).toEqual([]);
  });

  const cases = [
    { name: 'a cluster call but not in CLUSTER_CALLS', edit: (s: string) => insertAfter(s, 'export interface ClusterCalls {', '  extraCall(): void;'), names: 'extraCall' },
    { name: 'a session call but not in SESSION_CALLS', edit: (s: string) => insertAfter(s, 'export interface SessionCalls {', '  extraCall(): void;'), names: 'extraCall' },
    { name: 'a name in CLUSTER_CALLS but not in ClusterCalls', edit: (s: string) => insertAfter(s, 'export const CLUSTER_CALLS', '  extraCall: true,'), names: 'extraCall' },
    { name: 'a call dropped from BRIDGE_CALLS', edit: (s: string) => removeLine(s, '  logComponents: true,'), names: 'logComponents' },
    { name: 'a stream in BridgeEvents but not in BRIDGE_EVENTS', edit: (s: string) => insertAfter(s, 'export interface BridgeEvents {', '  extraStream: string;'), names: 'extraStream' },
    { name: 'a name in BRIDGE_EVENTS but not in BridgeEvents', edit: (s: string) => insertAfter(s, 'export const BRIDGE_EVENTS', '  extraStream: true,'), names: 'extraStream' },
    { name: 'a stream dropped from BRIDGE_EVENTS', edit: (s: string) => removeLine(s, '  logLines: true,'), names: 'logLines' },
  ];
  for (const { name, edit, names, count = 1 } of cases as { name: string; edit: (s: string) => string; names: string; count?: number }[]) {
    it(`does not compile with ${name}`, () => {
      const errors = contractErrors(edit(original));
      expect(errors).toHaveLength(count);
      for (const e of errors) expect(e).toContain(`'${names}'`);
    });
  }
});

// Compile a CEL expression once, evaluate it many times. Compilation parses,
// checks (./check.ts) and plans; its errors read as kube's do:
// "compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in
// container '')\n | foo\n | ^", or "must evaluate to bool but got string"
// when the output type is not one the caller accepts.
//
// @bufbuild/cel has no cost accounting, so the runtime bound is an upper
// estimate taken before evaluating: nodes × (largest input list or map)^(
// comprehension nesting). Over kube's per-call limit (1,000,000) the call
// fails with cel-go's "operation cancelled: actual cost limit exceeded"
// instead of running. Evaluation is synchronous and never throws.

import { CelScalar, celEnv, isCelError, parse, plan, type CelInput, type CelResult, type CelValue } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { checkExpression, staticTypeOf, type FunctionTable } from './check';
import { formatIssues } from './issues';
import { AUTHORIZER_TYPE, RESOURCE_CHECK, authzLibrary, authzSignatures } from './authz';
import { kubernetesLibrary } from './library';
import { quantityLibrary, quantitySignatures } from './quantity';
import { ADMISSION_REQUEST, DYN, NAMESPACE, objectOf, typeString, type CelStaticType } from './types';
import { maxCollectionOf, toCel } from './values';

/** The root variables kube's admission CEL environments may declare. */
export type CelVariableName = 'object' | 'oldObject' | 'request' | 'params' | 'namespaceObject' | 'variables' | 'authorizer';

/** kube's PerCallLimit: the cost one expression may spend. */
export const PER_CALL_COST_LIMIT = 1_000_000;
/** kube's RuntimeCELCostBudget: what all expressions of one policy evaluation may spend together. */
export const RUNTIME_COST_BUDGET = 10_000_000;

export interface CompileOptions {
  /** Root variables declared (kube declares `params` only with a paramKind, `authorizer` only for validations). */
  variables: readonly CelVariableName[];
  /** Fields of `variables` (composition) and their types: the output types of the variables' own expressions. */
  compositionVariables?: ReadonlyMap<string, CelStaticType> | Record<string, CelStaticType>;
  /** Accepted output types by name ('bool'; 'string'; 'string','null_type'); absent accepts any. */
  returnTypes?: readonly string[];
}

export interface CelProgram {
  expression: string;
  outputType: CelStaticType;
  /** Root variables the expression reads; the activation converts only these. */
  usedVariables: ReadonlySet<string>;
  /** Fields of `variables` it reads. */
  usedCompositionVariables: ReadonlySet<string>;
  /** Evaluates against an activation; errors are returned, not thrown. */
  evaluate(activation: CelActivation, costLimit?: number): CelEvalResult;
}

export type CelEvalResult = { ok: true; value: CelValue; cost: number } | { ok: false; error: string; cost: number };

export type CompileResult = { ok: true; program: CelProgram } | { ok: false; error: string };

/**
 * The inputs of one evaluation, as JSON (objects, the admission request,
 * params, the namespace). Each is converted to CEL once, on first use, and
 * shared by every program evaluated against the activation.
 */
export class CelActivation {
  private readonly converted = new Map<string, CelInput>();
  /** Largest collection per variable read so far (computed when an expression with comprehensions asks). */
  private readonly collections = new Map<string, number>();
  private readonly composition = new CompositionVariables();

  constructor(private readonly raw: Partial<Record<CelVariableName, unknown>>) {}

  /** Binds an already evaluated composition variable (`variables.<name>`). */
  setCompositionVariable(name: string, value: CelValue): void {
    this.composition.bound.set(name, value as CelInput);
  }

  /**
   * Binds composition variables evaluated on first read (kube's lazy
   * `variables` map): `resolve` returns the value or throws an Error whose
   * message becomes the reading expression's error.
   */
  setCompositionResolver(names: readonly string[], resolve: (name: string) => CelValue): void {
    this.composition.names = new Set(names);
    this.composition.resolve = resolve;
  }

  /** Largest list or map among the inputs read so far. */
  get maxCollection(): number {
    let max = 0;
    for (const name of this.converted.keys()) {
      let m = this.collections.get(name);
      if (m === undefined) this.collections.set(name, (m = maxCollectionOf(this.raw[name as CelVariableName])));
      if (m > max) max = m;
    }
    return max;
  }

  value(name: string): CelInput {
    if (name === 'variables') return this.composition as unknown as CelInput;
    let v = this.converted.get(name);
    if (v === undefined && !this.converted.has(name)) {
      v = toCel(this.raw[name as CelVariableName]);
      this.converted.set(name, v);
    }
    return v ?? null;
  }
}

/** The `variables` map: bound values first, then the resolver, each name resolved at most once. */
class CompositionVariables extends Map<string, CelInput> {
  readonly bound = new Map<string, CelInput>();
  names = new Set<string>();
  resolve?: (name: string) => CelValue;

  override get(name: string): CelInput | undefined {
    if (this.bound.has(name)) return this.bound.get(name);
    if (!this.resolve || !this.names.has(name)) return undefined;
    const v = this.resolve(name) as CelInput;
    this.bound.set(name, v);
    return v;
  }

  override has(name: string): boolean {
    return this.bound.has(name) || this.names.has(name);
  }

  override get size(): number {
    return new Set([...this.bound.keys(), ...this.names]).size;
  }

  override *keys(): MapIterator<string> {
    yield* new Set([...this.bound.keys(), ...this.names]);
  }

  override *entries(): MapIterator<[string, CelInput]> {
    for (const k of this.keys()) yield [k, this.get(k) as CelInput];
  }

  override [Symbol.iterator](): MapIterator<[string, CelInput]> {
    return this.entries();
  }
}

// Every name is declared dyn in the one planning environment; what an
// expression may actually reference is decided by the checker per compile.
const ALL_VARIABLES = {
  object: DYN,
  oldObject: DYN,
  request: DYN,
  params: DYN,
  namespaceObject: DYN,
  variables: DYN,
  authorizer: DYN,
} as const;

const planningEnv = celEnv({
  variables: Object.fromEntries(Object.keys(ALL_VARIABLES).map((k) => [k, CelScalar.DYN])),
  funcs: [...strings, ...kubernetesLibrary, ...authzLibrary, ...quantityLibrary],
});

const functionTable: FunctionTable = (() => {
  const table: FunctionTable = new Map();
  for (const f of planningEnv.funcs) {
    const list = table.get(f.name) ?? [];
    list.push({ target: f.target ? staticTypeOf(f.target) : undefined, args: f.arguments.map(staticTypeOf), result: staticTypeOf(f.result) });
    table.set(f.name, list);
  }
  // The authorizer library's values are maps to the evaluator; the checker knows their kube types.
  for (const [name, overloads] of [...authzSignatures, ...quantitySignatures]) table.set(name, overloads);
  return table;
})();

function declaredTypes(opts: CompileOptions): Map<string, CelStaticType> {
  const m = new Map<string, CelStaticType>();
  for (const v of opts.variables) {
    switch (v) {
      case 'request':
        m.set(v, ADMISSION_REQUEST);
        break;
      case 'namespaceObject':
        m.set(v, NAMESPACE);
        break;
      case 'authorizer':
        m.set(v, AUTHORIZER_TYPE);
        m.set('authorizer.requestResource', RESOURCE_CHECK);
        break;
      case 'variables': {
        const fields: Record<string, CelStaticType> = {};
        const cv = opts.compositionVariables;
        if (cv) for (const [k, t] of cv instanceof Map ? cv : Object.entries(cv)) fields[k] = t;
        m.set(v, objectOf('kubernetes.variables', fields));
        break;
      }
      default:
        m.set(v, DYN);
    }
  }
  return m;
}

/** Compiles an expression for the given declarations; the error string is kube's Detail (without the field path). */
export function compileExpression(expression: string, opts: CompileOptions): CompileResult {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(expression);
  } catch (e) {
    const err = e as { message?: string; location?: { start?: { offset?: number } } };
    const offset = err.location?.start?.offset ?? 0;
    const message = String(err.message ?? e).replace(/^<input>:\d+:\d+: /, '');
    return { ok: false, error: 'compilation failed: ' + formatIssues(expression, [{ offset, message: `Syntax error: ${message}` }]) };
  }
  const positions: Record<string, number> = {};
  for (const [id, pos] of Object.entries(parsed.sourceInfo?.positions ?? {})) positions[id] = Number(pos);
  const checked = checkExpression(expression, parsed.expr, positions, declaredTypes(opts), functionTable);
  if (checked.issues.length > 0) return { ok: false, error: 'compilation failed: ' + formatIssues(expression, checked.issues) };
  const want = opts.returnTypes;
  if (want && want.length > 0 && !want.includes('any') && !want.includes(checked.outputType.name)) {
    const got = typeString(checked.outputType);
    const reason = want.length === 1 ? `must evaluate to ${want[0]} but got ${got}` : `must evaluate to one of [${want.join(' ')}] but got ${got}`;
    return { ok: false, error: reason };
  }
  let run: (ctx: Record<string, CelInput>) => CelResult;
  try {
    run = plan(planningEnv, parsed) as unknown as (ctx: Record<string, CelInput>) => CelResult;
  } catch (e) {
    return { ok: false, error: 'program instantiation failed: ' + String((e as Error).message ?? e) };
  }
  // A dotted declaration (authorizer.requestResource) is read through its root variable.
  const used = [...new Set([...checked.usedVariables].map((n) => n.split('.')[0]!))];
  const { nodeCount, comprehensionDepth } = checked;
  const program: CelProgram = {
    expression,
    outputType: checked.outputType,
    usedVariables: checked.usedVariables,
    usedCompositionVariables: checked.usedCompositionVariables,
    evaluate(activation, costLimit = PER_CALL_COST_LIMIT) {
      const bindings: Record<string, CelInput> = {};
      for (const name of used) bindings[name] = activation.value(name);
      // Without comprehensions the bound is the node count; no need to measure the inputs.
      const cost = comprehensionDepth === 0 ? nodeCount : nodeCount * Math.max(1, activation.maxCollection) ** comprehensionDepth;
      if (cost > costLimit) return { ok: false, error: 'operation cancelled: actual cost limit exceeded', cost };
      let r: CelResult;
      try {
        r = run(bindings);
      } catch (e) {
        return { ok: false, error: runtimeMessage(String((e as Error).message ?? e)), cost };
      }
      if (isCelError(r)) return { ok: false, error: runtimeMessage(r.message), cost };
      return { ok: true, value: r, cost };
    },
  };
  return { ok: true, program };
}

/** @bufbuild/cel's runtime errors in cel-go's words, which kube's messages carry. */
function runtimeMessage(m: string): string {
  const field = /^field not found: (.*)$/.exec(m);
  if (field) return `no such key: ${field[1]}`;
  if (m === 'int divide by zero' || m === 'uint divide by zero') return 'division by zero';
  if (m === 'int modulus by zero' || m === 'uint modulus by zero') return 'modulus by zero';
  const overload = /^found no matching overload for '(.*)' applied to '(.*)'$/.exec(m);
  if (overload) return `no such overload: ${overload[1]} applied to ${overload[2]}`;
  return m;
}

/** kube's wording for an expression that failed at run time. */
export function evaluationErrorMessage(expression: string, error: string): string {
  return `expression '${expression}' resulted in error: ${error}`;
}

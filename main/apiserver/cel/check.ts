// A small CEL type checker over @bufbuild/cel's parsed AST (the library
// ships none that handles calls or selects). It finds what cel-go's checker
// reports for the expressions admission compiles — undeclared variables and
// functions, undefined fields of declared object types (request,
// namespaceObject, variables), calls with no matching overload when the
// argument types are known — and infers the output type, which kube compares
// with the expression's required result type ("must evaluate to bool").
// Everything reached through a dyn value (object, oldObject, params) stays
// dyn and is only checked when evaluated, as in kube.

import type { CelType, parse } from '@bufbuild/cel';
import type { CelIssue } from './issues';
import {
  BOOL,
  BYTES,
  DOUBLE,
  DYN,
  INT,
  NULL,
  STRING,
  TYPE,
  UINT,
  isDyn,
  listOf,
  mapOf,
  sameType,
  typeString,
  type CelStaticType,
} from './types';

/** The parsed expression node (@bufbuild/cel-spec's Expr, reached through parse() so it stays a transitive dependency). */
export type Expr = ReturnType<typeof parse>['expr'];

export interface Overload {
  target?: CelStaticType;
  args: CelStaticType[];
  result: CelStaticType;
}

/** Overloads by function name, built once per environment. */
export type FunctionTable = Map<string, Overload[]>;

export interface CheckResult {
  issues: CelIssue[];
  outputType: CelStaticType;
  /** Root variables the expression reads. */
  usedVariables: Set<string>;
  /** Fields of `variables` the expression reads (composition). */
  usedCompositionVariables: Set<string>;
  /** Deepest nesting of comprehensions (all, exists, map, filter, ...): the cost bound's exponent. */
  comprehensionDepth: number;
  nodeCount: number;
}

const TYPE_NAMES = new Set(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type', 'dyn']);

/** Operators the evaluator implements itself rather than as functions. */
const BUILTIN_OPERATORS = new Set(['_&&_', '_||_', '_?_:_', '_[_]', '@not_strictly_false', 'not_strictly_false']);

export function staticTypeOf(t: CelType): CelStaticType {
  switch (t.kind) {
    case 'list':
      return listOf(staticTypeOf(t.element));
    case 'map':
      return mapOf(staticTypeOf(t.key), staticTypeOf(t.value));
    case 'scalar':
      return { name: t.name };
    default:
      return { name: t.name };
  }
}

/** True when a value of static type `actual` may be passed where `param` is declared. */
function assignable(actual: CelStaticType, param: CelStaticType): boolean {
  if (isDyn(actual) || isDyn(param)) return true;
  if (actual.name !== param.name) return false;
  if (actual.name === 'list') return assignable(actual.elem ?? DYN, param.elem ?? DYN);
  if (actual.name === 'map') return assignable(actual.key ?? DYN, param.key ?? DYN) && assignable(actual.value ?? DYN, param.value ?? DYN);
  return true;
}

function constantType(kind: string | undefined): CelStaticType {
  switch (kind) {
    case 'boolValue':
      return BOOL;
    case 'int64Value':
      return INT;
    case 'uint64Value':
      return UINT;
    case 'doubleValue':
      return DOUBLE;
    case 'stringValue':
      return STRING;
    case 'bytesValue':
      return BYTES;
    case 'nullValue':
      return NULL;
    default:
      return DYN;
  }
}

function join(a: CelStaticType, b: CelStaticType): CelStaticType {
  if (sameType(a, b)) return a;
  if (a.name === 'null_type') return b;
  if (b.name === 'null_type') return a;
  return DYN;
}

export function checkExpression(
  expression: string,
  root: Expr,
  positions: Record<string, number>,
  declared: Map<string, CelStaticType>,
  functions: FunctionTable,
): CheckResult {
  const issues: CelIssue[] = [];
  const usedVariables = new Set<string>();
  const usedCompositionVariables = new Set<string>();
  let nodeCount = 0;
  let maxDepth = 0;
  const at = (e: Expr): number => positions[String(e.id)] ?? 0;
  const source = expression;
  // cel-go places a call at its '(' and an operator at its token; the parser
  // here records where the callee or the left operand ends.
  const callAt = (e: Expr, fn: string): number => {
    let i = at(e);
    const skipSpace = (): void => {
      while (i < source.length && /\s/.test(source[i]!)) i++;
    };
    skipSpace();
    if (/^(_.*_|!_|-_|@in)$/.test(fn)) return i;
    const start = i;
    if (source[i] === '.') i++;
    skipSpace();
    while (i < source.length && /[A-Za-z0-9_.]/.test(source[i]!)) i++;
    skipSpace();
    return source[i] === '(' ? i : start;
  };

  function visit(e: Expr, scope: Map<string, CelStaticType>, depth: number): CelStaticType {
    nodeCount++;
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        return constantType(k.value.constantKind.case);
      case 'identExpr': {
        const local = scope.get(k.value.name);
        if (local) return local;
        const t = declared.get(k.value.name);
        if (t) {
          usedVariables.add(k.value.name);
          return t;
        }
        // Type names are identifiers too: type(x) == int.
        if (TYPE_NAMES.has(k.value.name)) return TYPE;
        issues.push({ offset: at(e), message: `undeclared reference to '${k.value.name}' (in container '')` });
        return DYN;
      }
      case 'selectExpr': {
        const { operand, field, testOnly } = k.value;
        // A declared dotted name (authorizer.requestResource) is one variable, not a field.
        if (operand?.exprKind.case === 'identExpr' && !scope.has(operand.exprKind.value.name)) {
          const dotted = `${operand.exprKind.value.name}.${field}`;
          const t = declared.get(dotted);
          if (t) {
            usedVariables.add(dotted);
            nodeCount++;
            return testOnly ? BOOL : t;
          }
        }
        const ot = operand ? visit(operand, scope, depth) : DYN;
        if (operand?.exprKind.case === 'identExpr' && operand.exprKind.value.name === 'variables' && !scope.has('variables')) {
          usedCompositionVariables.add(field);
        }
        let ft: CelStaticType = DYN;
        if (ot.fields) {
          const declaredField = ot.fields[field];
          if (!declaredField) issues.push({ offset: at(e), message: `undefined field '${field}'` });
          else ft = declaredField;
        } else if (ot.name === 'map') {
          ft = ot.value ?? DYN;
        } else if (!isDyn(ot)) {
          issues.push({ offset: at(e), message: `type '${typeString(ot)}' does not support field selection` });
        }
        return testOnly ? BOOL : ft;
      }
      case 'callExpr':
        return visitCall(e, scope, depth);
      case 'listExpr': {
        let elem: CelStaticType | undefined;
        for (const x of k.value.elements) {
          const t = visit(x, scope, depth);
          elem = elem === undefined ? t : join(elem, t);
        }
        return listOf(elem ?? DYN);
      }
      case 'structExpr': {
        let key: CelStaticType | undefined;
        let value: CelStaticType | undefined;
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === 'mapKey') {
            const kt = visit(entry.keyKind.value, scope, depth);
            key = key === undefined ? kt : join(key, kt);
          }
          if (entry.value) {
            const vt = visit(entry.value, scope, depth);
            value = value === undefined ? vt : join(value, vt);
          }
        }
        if (k.value.messageName) return { name: k.value.messageName };
        return mapOf(key ?? DYN, value ?? DYN);
      }
      case 'comprehensionExpr': {
        const c = k.value;
        const inner = depth + 1;
        if (inner > maxDepth) maxDepth = inner;
        const rangeType = c.iterRange ? visit(c.iterRange, scope, depth) : DYN;
        const accuType = c.accuInit ? visit(c.accuInit, scope, depth) : DYN;
        const loopScope = new Map(scope);
        let iterType: CelStaticType = DYN;
        let iter2Type: CelStaticType = DYN;
        if (rangeType.name === 'list') {
          iterType = c.iterVar2 ? INT : (rangeType.elem ?? DYN);
          iter2Type = rangeType.elem ?? DYN;
        } else if (rangeType.name === 'map') {
          iterType = rangeType.key ?? DYN;
          iter2Type = rangeType.value ?? DYN;
        } else if (!isDyn(rangeType)) {
          issues.push({ offset: at(c.iterRange!), message: `expression of type '${typeString(rangeType)}' cannot be range of a comprehension (must be list, map, or dynamic)` });
        }
        loopScope.set(c.iterVar, iterType);
        if (c.iterVar2) loopScope.set(c.iterVar2, iter2Type);
        loopScope.set(c.accuVar, accuType);
        if (c.loopCondition) visit(c.loopCondition, loopScope, inner);
        const stepType = c.loopStep ? visit(c.loopStep, loopScope, inner) : accuType;
        const resultScope = new Map(scope);
        resultScope.set(c.accuVar, join(accuType, stepType));
        return c.result ? visit(c.result, resultScope, depth) : DYN;
      }
      default:
        return DYN;
    }
  }

  function visitCall(e: Expr, scope: Map<string, CelStaticType>, depth: number): CelStaticType {
    if (e.exprKind.case !== 'callExpr') return DYN;
    const call = e.exprKind.value;
    const targetType = call.target ? visit(call.target, scope, depth) : undefined;
    const argTypes = call.args.map((a) => visit(a, scope, depth));
    const fn = call.function;
    switch (fn) {
      case '_&&_':
      case '_||_':
      case '@not_strictly_false':
      case 'not_strictly_false':
        return BOOL;
      case '_?_:_':
        return join(argTypes[1] ?? DYN, argTypes[2] ?? DYN);
      case '_[_]': {
        const container = argTypes[0] ?? DYN;
        if (container.name === 'list') return container.elem ?? DYN;
        if (container.name === 'map') return container.value ?? DYN;
        return DYN;
      }
    }
    if (BUILTIN_OPERATORS.has(fn)) return DYN;
    const overloads = functions.get(fn)?.filter((o) => (o.target !== undefined) === (call.target !== undefined) && o.args.length === argTypes.length);
    if (!overloads || overloads.length === 0) {
      if (!functions.has(fn)) {
        issues.push({ offset: callAt(e, fn), message: `undeclared reference to '${fn}' (in container '')` });
        return DYN;
      }
    }
    const candidates = (overloads ?? []).filter(
      (o) => (!o.target || assignable(targetType!, o.target)) && o.args.every((p, i) => assignable(argTypes[i]!, p)),
    );
    if (candidates.length === 0) {
      const args = argTypes.map(typeString).join(', ');
      const applied = targetType ? `${typeString(targetType)}.(${args})` : `(${args})`;
      issues.push({ offset: callAt(e, fn), message: `found no matching overload for '${fn}' applied to '${applied}'` });
      return DYN;
    }
    let result = candidates[0]!.result;
    for (const c of candidates.slice(1)) if (!sameType(result, c.result)) result = DYN;
    // size(), int() and friends declared over dyn return a concrete type; a
    // comparison always returns bool — nothing more to narrow.
    if (result.name === 'type') return TYPE;
    return result;
  }

  const outputType = visit(root, new Map(), 0);
  return { issues, outputType, usedVariables, usedCompositionVariables, comprehensionDepth: maxDepth, nodeCount };
}

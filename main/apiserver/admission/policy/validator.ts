// One evaluation of a compiled policy against one request and one param
// (plugin/policy/validating validator.go): matchConditions first (a false
// one skips the policy; an error goes to the failure policy), then every
// validation with its message, then the audit annotations. The decisions
// carry kube's messages; the dispatcher turns them into a denial, warnings
// or audit annotations according to the binding's validationActions.

import type { CelValue } from '@bufbuild/cel';
import { CelActivation, celTypeName, evaluationErrorMessage, RUNTIME_COST_BUDGET, type CelEvalResult } from '../../cel';
import type { CompiledExpression, CompiledPolicy } from './compilePolicy';

export type DecisionAction = 'admit' | 'deny';

export interface PolicyDecision {
  action: DecisionAction;
  /** Set when the decision comes from an evaluation error (or a failed config), not a false validation. */
  error: boolean;
  message: string;
  /** The StatusReason of a denial ('' = Invalid). */
  reason: string;
}

export type AuditAnnotationResult = { action: 'publish'; key: string; value: string } | { action: 'error'; message: string } | { action: 'exclude' };

export interface ValidateResult {
  decisions: PolicyDecision[];
  auditAnnotations: AuditAnnotationResult[];
}

/** kube's MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_MESSAGE_BYTES = 5 * 1024;

const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

export interface ValidateInput {
  object: unknown;
  oldObject: unknown;
  request: Record<string, unknown>;
  params: unknown;
  namespaceObject: unknown;
  /** The `authorizer` variable (cel/authz.ts authorizerValue), when the request has one. */
  authorizer?: Map<string, unknown>;
}

export function validate(policy: CompiledPolicy, failurePolicy: string, input: ValidateInput): ValidateResult {
  const ignore = failurePolicy === 'Ignore';
  const onError = (message: string): PolicyDecision => ({ action: ignore ? 'admit' : 'deny', error: true, message, reason: '' });
  // Getters: the input's own getters (the request, namespace and authorizer are built on first read) stay lazy.
  const activation = new CelActivation({
    get object() {
      return input.object ?? null;
    },
    get oldObject() {
      return input.oldObject ?? null;
    },
    get request() {
      return input.request;
    },
    get params() {
      return input.params ?? null;
    },
    get namespaceObject() {
      return input.namespaceObject ?? null;
    },
    get authorizer() {
      return input.authorizer ?? null;
    },
  });
  let budget = RUNTIME_COST_BUDGET;
  let outOfBudget = false;
  const run = (c: CompiledExpression): CelEvalResult => {
    if (!c.program) return { ok: false, error: `compilation error: ${c.error ?? 'unexpected internal error compiling expression'}`, cost: 0 };
    const r = c.program.evaluate(activation, Math.min(budget, 1_000_000));
    budget -= r.cost;
    if (budget < 0) outOfBudget = true;
    if (!r.ok && !c.error && !r.error.startsWith('compilation error')) return { ...r, error: evaluationErrorMessage(c.expression, r.error) };
    return r;
  };

  // Composition: each variable is evaluated on first read and at most once.
  const vars = new Map(policy.variables.map((v) => [v.name, v]));
  activation.setCompositionResolver([...vars.keys()], (name) => {
    const v = vars.get(name)!;
    if (!v.program) throw new Error(`composited variable "${name}" fails to compile: ${v.error ?? ''}`);
    const r = v.program.evaluate(activation);
    budget -= r.cost;
    if (!r.ok) throw new Error(`composited variable "${name}" fails to evaluate: ${r.error}`);
    return r.value;
  });

  if (policy.matchConditions.length > 0) {
    const errors: string[] = [];
    for (const mc of policy.matchConditions) {
      const r = run(mc);
      if (!r.ok) errors.push(r.error);
      else if (r.value === false) return { decisions: [], auditAnnotations: [] };
    }
    if (errors.length > 0) return { decisions: [onError(errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`)], auditAnnotations: [] };
  }

  const decisions: PolicyDecision[] = [];
  for (const v of policy.validations) {
    const r = run(v);
    if (outOfBudget) return { decisions: [onError(OUT_OF_BUDGET)], auditAnnotations: [] };
    if (!r.ok) {
      decisions.push(onError(r.error));
      continue;
    }
    if (r.value === true) {
      decisions.push({ action: 'admit', error: false, message: '', reason: '' });
      continue;
    }
    decisions.push({ action: 'deny', error: false, message: failureMessage(v, v.messageExpression ? run(v.messageExpression) : undefined), reason: v.reason || 'Invalid' });
  }

  const auditAnnotations: AuditAnnotationResult[] = policy.auditAnnotations.map((a) => {
    const r = run(a);
    if (!r.ok) return ignore ? { action: 'exclude' } : { action: 'error', message: r.error };
    if (typeof r.value === 'string') {
      const value = r.value.trim();
      return value === '' ? { action: 'exclude' } : { action: 'publish', key: a.key, value };
    }
    if (r.value === null) return { action: 'exclude' };
    return {
      action: 'error',
      message: `valueExpression '${a.expression}' resulted in unsupported return type: ${celTypeName(r.value as CelValue)}. Return type must be either string or null.`,
    };
  });
  return { decisions, auditAnnotations };
}

/** The denial's message: messageExpression's string if usable, else message, else "failed expression: <expr>". */
function failureMessage(v: { expression: string; message: string }, messageResult: CelEvalResult | undefined): string {
  let message = '';
  if (messageResult?.ok && typeof messageResult.value === 'string') {
    message = messageResult.value.trim();
    if (Buffer.byteLength(message) > MAX_MESSAGE_BYTES || message.includes('\n')) message = '';
  }
  if (message === '' && v.message.length > 0) message = v.message.trim();
  if (message === '') message = `failed expression: ${v.expression.trim()}`;
  return message;
}

// A webhook's matchConditions (CEL, must evaluate to bool), as kube's
// matchconditions.matcher decides: any condition false → the webhook is not
// called (false wins over errors); otherwise any evaluation error → with
// failurePolicy Ignore the webhook is skipped, with Fail the request is
// refused (403 `<resource> "<name>" is forbidden: failed calling webhook
// "<hook>": expression '<expr>' resulted in error: <why>`); all true → called.
// Variables: object, oldObject, request and authorizer (kube's authz
// library: `authorizer.group('').resource('pods').check('delete').allowed()`;
// checks are answered by the server's authorizer chain between evaluation
// rounds). Programs are compiled once per expression and cached.

import { admissionRequest } from '../celInputs';
import { AUTHZ_ROUNDS, CelActivation, authorizerValue, compileExpression, evaluationErrorMessage, newAuthzContext, resolvePendingChecks, type CelProgram } from '../../cel/index';
import type { AdmissionAttributes } from '../interfaces';
import type { ServerEnv } from '../../serverEnv';
import type { MatchCondition } from './hooks';

const VARIABLES = ['object', 'oldObject', 'request', 'authorizer'] as const;

const cache = new Map<string, { program?: CelProgram; error?: string }>();
const CACHE_LIMIT = 1000;

function compiled(expression: string): { program?: CelProgram; error?: string } {
  let c = cache.get(expression);
  if (!c) {
    const r = compileExpression(expression, { variables: VARIABLES, returnTypes: ['bool'] });
    c = r.ok ? { program: r.program } : { error: r.error };
    // Bounded: configurations come and go; the oldest entry is dropped first.
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(expression, c);
  }
  return c;
}

/** The create-time check: undefined when the expression compiles, else kube's detail (`compilation failed: ...`). */
export function compileMatchCondition(expression: string): string | undefined {
  return compiled(expression).error;
}

export type MatchConditionResult = { matches: true } | { matches: false; failedCondition?: string } | { matches: false; error: string };

/**
 * Evaluates the conditions against the request; `failurePolicy` decides what
 * errors mean. Without `authorize`, authorizer checks evaluate with no
 * decision known (as if the chain had no opinion).
 */
export async function evaluateMatchConditions(
  conditions: MatchCondition[],
  attrs: AdmissionAttributes,
  failurePolicy: 'Fail' | 'Ignore',
  authorize?: ServerEnv['authorize'],
): Promise<MatchConditionResult> {
  if (conditions.length === 0) return { matches: true };
  const authz = newAuthzContext(attrs.user);
  const az = authorizerValue(authz, { group: attrs.group, version: attrs.version, resource: attrs.resource, subresource: attrs.subresource, namespace: attrs.namespace, name: attrs.name });
  try {
    // Expressions are pure: each round takes the same path with more decisions known.
    for (let round = 1; ; round++) {
      const result = evaluateOnce(conditions, attrs, failurePolicy, az.value);
      if (!authorize || authz.pending.size === 0 || round >= AUTHZ_ROUNDS) return result;
      await resolvePendingChecks(authz, authorize);
    }
  } finally {
    az.release();
  }
}

function evaluateOnce(conditions: MatchCondition[], attrs: AdmissionAttributes, failurePolicy: 'Fail' | 'Ignore', authorizer: Map<string, unknown>): MatchConditionResult {
  const activation = new CelActivation({ object: attrs.object ?? null, oldObject: attrs.oldObject ?? null, request: admissionRequest(attrs), authorizer });
  const errors: string[] = [];
  for (const cond of conditions) {
    const c = compiled(cond.expression);
    if (!c.program) {
      errors.push(c.error ?? 'compilation failed');
      continue;
    }
    const r = c.program.evaluate(activation);
    if (!r.ok) {
      errors.push(evaluationErrorMessage(cond.expression, r.error));
      continue;
    }
    if (r.value === false) return { matches: false, failedCondition: cond.name };
  }
  if (errors.length === 0) return { matches: true };
  if (failurePolicy === 'Ignore') return { matches: false };
  // utilerrors.NewAggregate: one error reads as itself, several as [a, b].
  return { matches: false, error: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` };
}

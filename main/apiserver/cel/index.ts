// The CEL layer admission uses (ValidatingAdmissionPolicy, webhook
// matchConditions): compile once against declared variables, evaluate many
// times against JSON inputs converted as kube converts unstructured objects.
//
//   const c = compileExpression("request.userInfo.username != 'admin'", { variables: ['object', 'oldObject', 'request'], returnTypes: ['bool'] });
//   if (!c.ok) throw ...c.error;                      // "compilation failed: ERROR: <input>:1:..."
//   const act = new CelActivation({ object, oldObject, request: admissionRequest(attrs) });
//   const r = c.program.evaluate(act);                 // { ok: true, value: true } | { ok: false, error: 'no such key: x' }

export {
  CelActivation,
  compileExpression,
  evaluationErrorMessage,
  PER_CALL_COST_LIMIT,
  RUNTIME_COST_BUDGET,
  type CelEvalResult,
  type CelProgram,
  type CelVariableName,
  type CompileOptions,
  type CompileResult,
} from './compile';
export { AUTHZ_ROUNDS, authorizerValue, newAuthzContext, resolvePendingChecks, type AuthzContext, type RequestResource } from './authz';
export { celTypeName, fromCel, toCel } from './values';
export { typeString, type CelStaticType } from './types';

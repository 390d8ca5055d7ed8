// Compiles every CEL expression of a ValidatingAdmissionPolicy spec with the
// declarations kube gives each kind of expression
// (pkg/apis/admissionregistration/validation, plugin/policy/validating):
//
//   expression kind              params*  authorizer  variables  result
//   validations[].expression       ✓         ✓          ✓**      bool
//   validations[].messageExpression ✓        –          ✓**      string
//   matchConditions[].expression   ✓         ✓          –        bool
//   variables[].expression         ✓         ✓          earlier  any
//   auditAnnotations[].valueExpression ✓     ✓          ✓**      string or null
//
//   * only when spec.paramKind is set   ** only when spec.variables is not empty
//
// The same result serves the registry (compile errors are field errors, so
// an invalid expression is refused at create) and the admission plugin
// (which caches it per policy generation).

import { type ErrorList, invalid } from '../../api/validation/field';
import { type CelProgram, type CelStaticType, type CelVariableName, compileExpression } from '../../cel';
import { type Rec, arr, isRec, str } from '../../registry/common/obj';

export interface CompiledExpression {
  expression: string;
  program?: CelProgram;
  /** kube's Detail: "compilation failed: ERROR: ..." or "must evaluate to bool but got string". */
  error?: string;
}

export interface CompiledValidation extends CompiledExpression {
  message: string;
  messageExpression?: CompiledExpression;
  reason: string;
}

export interface CompiledVariable extends CompiledExpression {
  name: string;
}

export interface CompiledMatchCondition extends CompiledExpression {
  name: string;
}

export interface CompiledAuditAnnotation extends CompiledExpression {
  key: string;
}

export interface CompiledPolicy {
  hasParams: boolean;
  variables: CompiledVariable[];
  matchConditions: CompiledMatchCondition[];
  validations: CompiledValidation[];
  auditAnnotations: CompiledAuditAnnotation[];
  /** Compile errors as field errors under spec (spec.validations[0].expression: Invalid value: ...). */
  errors: ErrorList;
}

const BASE: CelVariableName[] = ['object', 'oldObject', 'request', 'namespaceObject'];

function declare(hasParams: boolean, authorizer: boolean, composition: boolean): CelVariableName[] {
  const v = [...BASE];
  if (hasParams) v.push('params');
  if (authorizer) v.push('authorizer');
  if (composition) v.push('variables');
  return v;
}

/** kube's convertCelTypeToDeclType: scalars, lists and maps keep their type; object types become dyn. */
function declType(t: CelStaticType | undefined): CelStaticType {
  if (!t) return { name: 'dyn' };
  if (t.name === 'list') return { name: 'list', elem: declType(t.elem) };
  if (t.name === 'map') return { name: 'map', key: declType(t.key), value: declType(t.value) };
  return t.fields ? { name: 'dyn' } : t;
}

export function compilePolicy(spec: Rec | undefined): CompiledPolicy {
  const s = spec ?? {};
  const hasParams = isRec(s.paramKind);
  const composition = arr(s, 'variables').length > 0;
  const errors: ErrorList = [];
  const compile = (
    path: string,
    raw: string,
    variables: CelVariableName[],
    returnTypes: string[] | undefined,
    types?: Map<string, CelStaticType>,
  ): CompiledExpression => {
    const r = compileExpression(raw, { variables, returnTypes, compositionVariables: types });
    if (r.ok) return { expression: raw, program: r.program };
    errors.push(invalid(path, raw, r.error));
    return { expression: raw, error: r.error };
  };

  // Variables see only those declared before them; each is typed by its own output type.
  const types = new Map<string, CelStaticType>();
  const variables: CompiledVariable[] = arr(s, 'variables').map((v, i) => {
    const name = str(v, 'name');
    const expression = str(v, 'expression');
    const c: CompiledVariable = { name, expression };
    if (expression.trim() !== '') Object.assign(c, compile(`spec.variables[${i}].expression`, expression, declare(hasParams, true, true), undefined, new Map(types)));
    if (name) types.set(name, declType(c.program?.outputType));
    return c;
  });

  const matchConditions: CompiledMatchCondition[] = arr(s, 'matchConditions').map((m, i) => {
    const name = str(m, 'name');
    const expression = str(m, 'expression').trim();
    if (expression === '') return { name, expression };
    return { name, ...compile(`spec.matchConditions[${i}].expression`, expression, declare(hasParams, true, false), ['bool']) };
  });

  const validations: CompiledValidation[] = arr(s, 'validations').map((v, i) => {
    const expression = str(v, 'expression');
    const c: CompiledValidation = { expression, message: str(v, 'message'), reason: str(v, 'reason') };
    if (expression.trim() !== '') Object.assign(c, compile(`spec.validations[${i}].expression`, expression, declare(hasParams, true, composition), ['bool'], types));
    const me = str(v, 'messageExpression');
    if (me.trim() !== '') c.messageExpression = compile(`spec.validations[${i}].messageExpression`, me, declare(hasParams, false, composition), ['string'], types);
    return c;
  });

  const auditAnnotations: CompiledAuditAnnotation[] = arr(s, 'auditAnnotations').map((a, i) => {
    const key = str(a, 'key');
    const expression = str(a, 'valueExpression').trim();
    if (expression === '' || expression.length > 5 * 1024) return { key, expression };
    const c = compile(`spec.auditAnnotations[${i}].valueExpression`, expression, declare(hasParams, true, composition), ['string', 'null_type'], types);
    // kube reports the untrimmed value in the error.
    if (c.error) errors[errors.length - 1] = invalid(`spec.auditAnnotations[${i}].valueExpression`, str(a, 'valueExpression'), c.error);
    return { key, ...c };
  });

  return { hasParams, variables, matchConditions, validations, auditAnnotations, errors };
}

// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (+status) and
// ValidatingAdmissionPolicyBinding: cluster-scoped. Defaults are v1's
// SetDefaults_* (failurePolicy Fail; matchPolicy Equivalent and empty
// selectors on every MatchResources; rule scope "*"); validation follows
// pkg/apis/admissionregistration/validation with kube's field paths and
// texts (including the binding's "matchResouces" typo), and compiles every
// CEL expression so an invalid one is refused at create:
//   spec.validations[0].expression: Invalid value: "...": compilation failed: ERROR: ...
// status.typeChecking stays empty (kube's type-checking controller, which
// fills it from OpenAPI schemas, is not run here).

import type { KObject } from '../../../kube/object';
import { type ErrorList, duplicate, forbidden, invalid, notSupported, required } from '../../api/validation/field';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName, nameIsDNSSubdomain, validatePathSegmentName } from '../../api/validation/names';
import { compilePolicy } from '../../admission/policy/compilePolicy';
import { validateLabelSelector } from '../apps/workload';
import { type Rec, arr, isRec, recOpt, str } from '../common/obj';
import { ALL_VERBS, STATUS_VERBS, metaFields, simpleStrategy, statusStrategy } from '../common/define';
import type { ResourceDef, TableConvertor } from '../rest/resourceDef';
import { ageColumn, col, nameColumn } from '../tables/columns';
import { translateTimestampSince } from '../tables/duration';
import { validateResources } from './ruleResources';

const GROUP = 'admissionregistration.k8s.io';
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const ACTIONS = ['Audit', 'Deny', 'Warn'];
const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge', 'Unauthorized'];
const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

const strings = (o: Rec | undefined, k: string): string[] => (o && Array.isArray(o[k]) ? (o[k] as unknown[]).map(String) : []);

/** SetDefaults_MatchResources and SetDefaults_Rule on every rule it holds. */
function defaultMatchResources(m: Rec | undefined): void {
  if (!m) return;
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const r of [...arr(m, 'resourceRules'), ...arr(m, 'excludeResourceRules')]) r.scope ??= '*';
}

function defaultPolicy(obj: KObject): void {
  const spec = recOpt(obj as Rec, 'spec');
  if (!spec) return;
  spec.failurePolicy ??= 'Fail';
  defaultMatchResources(recOpt(spec, 'matchConstraints'));
}

function defaultBinding(obj: KObject): void {
  defaultMatchResources(recOpt(recOpt(obj as Rec, 'spec'), 'matchResources'));
}

/** validateResources: `x/*`, `*\/x`, `*\/*` and `*` combinations. */
/** validateNamedRuleWithOperations: resourceNames, then the rule itself. */
function validateNamedRule(rule: Rec, path: string): ErrorList {
  const errs: ErrorList = [];
  const seen = new Set<string>();
  strings(rule, 'resourceNames').forEach((n, i) => {
    for (const m of validatePathSegmentName(n, false)) errs.push(invalid(`${path}.resourceNames[${i}]`, n, m));
    if (seen.has(n)) errs.push(duplicate(`${path}.resourceNames[${i}]`, n));
    else seen.add(n);
  });
  const ops = strings(rule, 'operations');
  if (ops.length === 0) errs.push(required(`${path}.operations`));
  if (ops.length > 1 && ops.includes('*')) errs.push(invalid(`${path}.operations`, ops, "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(notSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  const groups = strings(rule, 'apiGroups');
  if (groups.length === 0) errs.push(required(`${path}.apiGroups`));
  if (groups.length > 1 && groups.includes('*')) errs.push(invalid(`${path}.apiGroups`, groups, "if '*' is present, must not specify other API groups"));
  const versions = strings(rule, 'apiVersions');
  if (versions.length === 0) errs.push(required(`${path}.apiVersions`));
  if (versions.length > 1 && versions.includes('*')) errs.push(invalid(`${path}.apiVersions`, versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(required(`${path}.apiVersions[${i}]`));
  });
  errs.push(...validateResources(strings(rule, 'resources'), `${path}.resources`));
  if (typeof rule.scope === 'string' && !SCOPES.includes(rule.scope)) errs.push(notSupported(`${path}.scope`, rule.scope, SCOPES));
  return errs;
}

function validateMatchResources(m: Rec | undefined, path: string): ErrorList {
  if (!m) return [];
  const errs: ErrorList = [];
  if (typeof m.matchPolicy !== 'string') errs.push(required(`${path}.matchPolicy`));
  else if (!MATCH_POLICIES.includes(m.matchPolicy)) errs.push(notSupported(`${path}.matchPolicy`, m.matchPolicy, MATCH_POLICIES));
  for (const sel of ['namespaceSelector', 'objectSelector']) {
    const s = recOpt(m, sel);
    if (!s) errs.push(required(`${path}.${sel}`));
    else errs.push(...validateLabelSelector(s, `${path}.${sel}`));
  }
  arr(m, 'resourceRules').forEach((r, i) => errs.push(...validateNamedRule(r, `${path}.resourceRules[${i}]`)));
  arr(m, 'excludeResourceRules').forEach((r, i) => errs.push(...validateNamedRule(r, `${path}.excludeResourceRules[${i}]`)));
  return errs;
}

function validateParamKind(pk: Rec, path: string): ErrorList {
  const errs: ErrorList = [];
  const apiVersion = str(pk, 'apiVersion');
  if (!apiVersion) errs.push(required(`${path}.apiVersion`));
  else if (apiVersion !== '/') {
    const parts = apiVersion.split('/');
    if (parts.length > 2) errs.push(invalid(`${path}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    else {
      const [group, version] = parts.length === 2 ? parts : ['', parts[0]!];
      if (group) {
        const e = isDNS1123Subdomain(group!);
        if (e.length) errs.push(invalid(`${path}.apiVersion`, group, e.join(',')));
      }
      if (!version) errs.push(invalid(`${path}.apiVersion`, apiVersion, 'version must be specified'));
      else {
        const e = isDNS1035Label(version);
        if (e.length) errs.push(invalid(`${path}.apiVersion`, version, e.join(',')));
      }
    }
  }
  const kind = str(pk, 'kind');
  if (!kind) errs.push(required(`${path}.kind`));
  else {
    const e = isDNS1035Label(kind.toLowerCase());
    if (e.length) errs.push(invalid(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${e.join(',')}`));
  }
  return errs;
}

/** validateValidatingAdmissionPolicySpec, in kube's order, with each expression's compile error in place. */
export function validatePolicySpec(obj: KObject): ErrorList {
  const spec = recOpt(obj as Rec, 'spec') ?? {};
  const compiled = compilePolicy(spec);
  const compileErr = new Map(compiled.errors.map((e) => [e.field, e]));
  const withCompile = (path: string): ErrorList => (compileErr.has(path) ? [compileErr.get(path)!] : []);
  const errs: ErrorList = [];
  if (typeof spec.failurePolicy !== 'string') errs.push(required('spec.failurePolicy'));
  else if (!FAILURE_POLICIES.includes(spec.failurePolicy)) errs.push(notSupported('spec.failurePolicy', spec.failurePolicy, FAILURE_POLICIES));
  const pk = recOpt(spec, 'paramKind');
  if (pk) errs.push(...validateParamKind(pk, 'spec.paramKind'));
  const mc = recOpt(spec, 'matchConstraints');
  if (!mc) errs.push(required('spec.matchConstraints'));
  else {
    errs.push(...validateMatchResources(mc, 'spec.matchConstraints'));
    if (arr(mc, 'resourceRules').length === 0) errs.push(required('spec.matchConstraints.resourceRules'));
  }
  const conds = arr(spec, 'matchConditions');
  if (conds.length > 64) errs.push({ type: 'FieldValueTooMany', field: 'spec.matchConditions', badValue: conds.length, detail: 'must have at most 64 items' });
  const condNames = new Set<string>();
  conds.forEach((c, i) => {
    const p = `spec.matchConditions[${i}]`;
    if (str(c, 'expression').trim() === '') errs.push(required(`${p}.expression`));
    else errs.push(...withCompile(`${p}.expression`));
    const name = str(c, 'name');
    if (!name) errs.push(required(`${p}.name`));
    else for (const m of isQualifiedName(name)) errs.push(invalid(`${p}.name`, name, m));
    if (name) {
      if (condNames.has(name)) errs.push(duplicate(`${p}.name`, name));
      else condNames.add(name);
    }
  });
  arr(spec, 'variables').forEach((v, i) => {
    const p = `spec.variables[${i}]`;
    const name = str(v, 'name');
    if (name.trim() === '') errs.push(required(`${p}.name`, 'name is not specified'));
    else if (!/^[_a-zA-Z][_a-zA-Z0-9]*$/.test(name) || CEL_RESERVED.has(name)) errs.push(invalid(`${p}.name`, name, 'name is not a valid CEL identifier'));
    if (str(v, 'expression').trim() === '') errs.push(required(`${p}.expression`, 'expression is not specified'));
    else errs.push(...withCompile(`${p}.expression`));
  });
  const validations = arr(spec, 'validations');
  const annotations = arr(spec, 'auditAnnotations');
  if (validations.length === 0 && annotations.length === 0) {
    errs.push(required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    errs.push(required('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  validations.forEach((v, i) => {
    const p = `spec.validations[${i}]`;
    if (str(v, 'expression').trim() === '') errs.push(required(`${p}.expression`, 'expression is not specified'));
    else errs.push(...withCompile(`${p}.expression`));
    const me = str(v, 'messageExpression');
    if (me.length > 0 && me.trim() === '') errs.push(invalid(`${p}.messageExpression`, me, 'must be non-empty if specified'));
    else errs.push(...withCompile(`${p}.messageExpression`));
    const msg = str(v, 'message');
    if (msg.length > 0 && msg.trim() === '') errs.push(invalid(`${p}.message`, msg, 'message must be non-empty if specified'));
    else if (/[\n\r]/.test(msg.trim())) errs.push(invalid(`${p}.message`, msg, 'message must not contain line breaks'));
    if (typeof v.reason === 'string' && !REASONS.includes(v.reason)) errs.push(notSupported(`${p}.reason`, v.reason, REASONS));
  });
  if (annotations.length > 20) errs.push(invalid('spec.auditAnnotations', annotations, 'must not have more than 20 auditAnnotations'));
  const keys = new Set<string>();
  const policyName = obj.metadata?.name ?? '';
  annotations.forEach((a, i) => {
    const p = `spec.auditAnnotations[${i}]`;
    const key = str(a, 'key');
    if (policyName) for (const m of isQualifiedName(`${policyName}/${key}`)) errs.push(invalid(`${p}.key`, `${policyName}/${key}`, m));
    else errs.push(invalid(`${p}.key`, key, 'requires metadata.name be non-empty'));
    const ve = str(a, 'valueExpression').trim();
    if (ve === '') errs.push(required(`${p}.valueExpression`, 'valueExpression is not specified'));
    else if (ve.length > 5 * 1024) errs.push(required(`${p}.valueExpression`, `must not exceed ${5 * 1024} bytes in length`));
    else errs.push(...withCompile(`${p}.valueExpression`));
    if (keys.has(key)) errs.push(duplicate(`${p}.key`, key));
    keys.add(key);
  });
  return errs;
}

function validateParamRef(pr: Rec | undefined, path: string): ErrorList {
  if (!pr) return [];
  const errs: ErrorList = [];
  const name = str(pr, 'name');
  const selector = recOpt(pr, 'selector');
  if (name) {
    for (const m of validatePathSegmentName(name, false)) errs.push(invalid(`${path}.name`, name, m));
    if (selector) errs.push(forbidden(`${path}.name`, 'name and selector are mutually exclusive'));
  }
  if (selector) {
    errs.push(...validateLabelSelector(selector, `${path}.selector`));
    if (name) errs.push(forbidden(`${path}.selector`, 'name and selector are mutually exclusive'));
  }
  if (!name && !selector) errs.push(required(path, 'one of name or selector must be specified'));
  const action = pr.parameterNotFoundAction;
  if (typeof action !== 'string' || action === '') errs.push(required(`${path}.parameterNotFoundAction`));
  else if (action !== 'Deny' && action !== 'Allow') errs.push(notSupported(`${path}.parameterNotFoundAction`, action, ['Deny', 'Allow']));
  return errs;
}

function validateActions(actions: string[], path: string): ErrorList {
  const errs: ErrorList = [];
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!ACTIONS.includes(a)) errs.push(notSupported(`${path}[${i}]`, a, ACTIONS));
    if (seen.has(a)) errs.push(duplicate(`${path}[${i}]`, a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(invalid(path, actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (seen.size === 0) errs.push(required(path, 'at least one validation action is required'));
  return errs;
}

export function validateBindingSpec(obj: KObject): ErrorList {
  const spec = recOpt(obj as Rec, 'spec') ?? {};
  const errs: ErrorList = [];
  const policyName = str(spec, 'policyName');
  if (!policyName) errs.push(required('spec.policyName'));
  else for (const m of nameIsDNSSubdomain(policyName, false)) errs.push(invalid('spec.policyName', policyName, m));
  errs.push(...validateParamRef(recOpt(spec, 'paramRef'), 'spec.paramRef'));
  // kube's field path has this spelling.
  errs.push(...validateMatchResources(recOpt(spec, 'matchResources'), 'spec.matchResouces'));
  errs.push(...validateActions(strings(spec, 'validationActions'), 'spec.validationActions'));
  return errs;
}

/** The generated protobuf String() of a LabelSelector, which kube's binding printer shows for a selector paramRef. */
function protoSelectorString(s: Rec): string {
  const ml = isRec(s.matchLabels) ? (s.matchLabels as Record<string, string>) : {};
  const labels = Object.keys(ml)
    .sort()
    .map((k) => `${k}: ${ml[k]},`)
    .join('');
  const exprs = arr(s, 'matchExpressions')
    .map((e) => `LabelSelectorRequirement{Key:${str(e, 'key')},Operator:${str(e, 'operator')},Values:[${strings(e, 'values').join(' ')}],},`)
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

/** kube's printers: NAME VALIDATIONS PARAMKIND AGE. */
const policyTable: TableConvertor = {
  columns: [
    nameColumn,
    col('Validations', 'integer', 'Validations indicates the number of validation rules defined in this configuration'),
    col('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy'),
    ageColumn,
  ],
  cells(o, now) {
    const spec = recOpt(o as Rec, 'spec');
    const pk = recOpt(spec, 'paramKind');
    return [o.metadata.name, arr(spec, 'validations').length, pk ? `${str(pk, 'apiVersion')}/${str(pk, 'kind')}` : '<unset>', translateTimestampSince(o.metadata.creationTimestamp, now)];
  },
};

/** kube's printers: NAME POLICYNAME PARAMREF AGE. */
const bindingTable: TableConvertor = {
  columns: [
    nameColumn,
    col('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to'),
    col('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param'),
    ageColumn,
  ],
  cells(o, now) {
    const spec = recOpt(o as Rec, 'spec');
    const pr = recOpt(spec, 'paramRef');
    let param = '<unset>';
    if (pr && str(pr, 'name')) param = str(pr, 'namespace') ? `${str(pr, 'namespace')}/${str(pr, 'name')}` : `*/${str(pr, 'name')}`;
    else if (pr && recOpt(pr, 'selector')) param = protoSelectorString(recOpt(pr, 'selector')!);
    return [o.metadata.name, str(spec, 'policyName'), param, translateTimestampSince(o.metadata.creationTimestamp, now)];
  },
};

const policyStrategy = simpleStrategy({
  namespaced: false,
  nameFn: nameIsDNSSubdomain,
  defaults: defaultPolicy,
  validate: validatePolicySpec,
  generation: true,
  hasStatus: true,
});

export const validatingAdmissionPolicies: ResourceDef = {
  group: GROUP,
  version: 'v1',
  kind: 'ValidatingAdmissionPolicy',
  listKind: 'ValidatingAdmissionPolicyList',
  resource: 'validatingadmissionpolicies',
  singular: 'validatingadmissionpolicy',
  namespaced: false,
  shortNames: [],
  categories: ['api-extensions'],
  verbs: ALL_VERBS,
  storagePrefix: 'validatingadmissionpolicies',
  protoType: 'k8s.io.api.admissionregistration.v1.ValidatingAdmissionPolicy',
  subresources: [{ name: 'status', kind: { group: GROUP, version: 'v1', kind: 'ValidatingAdmissionPolicy' }, verbs: STATUS_VERBS }],
  strategy: policyStrategy,
  // ValidateValidatingAdmissionPolicyStatusUpdate checks only typeChecking and conditions.
  statusStrategy: statusStrategy(policyStrategy, {
    validateStatus: (obj) => {
      const tc = recOpt(recOpt(obj as Rec, 'status'), 'typeChecking');
      const errs: ErrorList = [];
      arr(tc, 'expressionWarnings').forEach((w, i) => {
        if (!str(w, 'warning')) errs.push(required(`status.typeChecking.expressionWarnings[${i}].warning`));
        if (str(w, 'fieldRef').trim() === '') errs.push(required(`status.typeChecking.expressionWarnings[${i}].fieldRef`));
      });
      return errs;
    },
  }),
  table: policyTable,
  selectableFields: (obj) => metaFields(obj, false),
};

export const validatingAdmissionPolicyBindings: ResourceDef = {
  group: GROUP,
  version: 'v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  listKind: 'ValidatingAdmissionPolicyBindingList',
  resource: 'validatingadmissionpolicybindings',
  singular: 'validatingadmissionpolicybinding',
  namespaced: false,
  shortNames: [],
  categories: ['api-extensions'],
  verbs: ALL_VERBS,
  storagePrefix: 'validatingadmissionpolicybindings',
  protoType: 'k8s.io.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding',
  subresources: [],
  strategy: simpleStrategy({ namespaced: false, nameFn: nameIsDNSSubdomain, defaults: defaultBinding, validate: validateBindingSpec, generation: true }),
  table: bindingTable,
  selectableFields: (obj) => metaFields(obj, false),
};

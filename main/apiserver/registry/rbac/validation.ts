// kube's pkg/apis/rbac/validation and the rbac/v1 defaults, on our JSON
// records: policy rules need verbs and either resources or non-resource URLs
// (the latter only in cluster roles), bindings point at a Role/ClusterRole of
// rbac.authorization.k8s.io and may never change that roleRef, subjects are
// Users/Groups (apiGroup rbac.authorization.k8s.io) or ServiceAccounts
// (apiGroup ""). Escalation checks are not here: they need the authorizer.

import type { KObject } from '../../../kube/object';
import { GoLiteral } from '../../api/status';
import { type ErrorList, invalid, notSupported, required } from '../../api/validation/field';
import { nameIsDNSSubdomain, type NameFn } from '../../api/validation/names';
import { type Rec, arr, isRec, recOpt, str } from '../common/obj';
import { validateLabelSelector } from '../apps/workload';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/**
 * ValidateRBACName = path.IsValidPathSegmentName: role and binding names may
 * hold ':' (system:node, system:controller:...) and only may not be '.' or
 * '..' or contain '/' or '%'. The generateName prefix flag is ignored, as kube does.
 */
export const validateRBACName: NameFn = (name) => {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
};

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** SetDefaults_RoleBinding / _ClusterRoleBinding and SetDefaults_Subject. */
export function defaultBinding(obj: KObject): void {
  const o = obj as Rec;
  if (!isRec(o.roleRef)) o.roleRef = {};
  const ref = o.roleRef as Rec;
  if (!ref.apiGroup) ref.apiGroup = RBAC_GROUP;
  // ServiceAccount subjects default to "", the zero value: nothing to write.
  for (const s of arr(o, 'subjects')) if (!s.apiGroup && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = RBAC_GROUP;
}

/** ValidatePolicyRule. */
export function validatePolicyRule(rule: Rec, namespaced: boolean, path: string): ErrorList {
  const errs: ErrorList = [];
  if (strings(rule.verbs).length === 0) errs.push(required(`${path}.verbs`, 'verbs must contain at least one value'));
  const urls = strings(rule.nonResourceURLs);
  if (urls.length > 0) {
    if (namespaced) errs.push(invalid(`${path}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
    if (strings(rule.apiGroups).length > 0 || strings(rule.resources).length > 0 || strings(rule.resourceNames).length > 0) {
      errs.push(invalid(`${path}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (strings(rule.apiGroups).length === 0) errs.push(required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (strings(rule.resources).length === 0) errs.push(required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

/** The rules of a Role (namespaced) or ClusterRole. */
export function validateRules(obj: KObject, namespaced: boolean): ErrorList {
  return arr(obj as Rec, 'rules').flatMap((r, i) => validatePolicyRule(r, namespaced, `rules[${i}]`));
}

/** ValidateClusterRole's aggregationRule part. */
export function validateAggregationRule(obj: KObject): ErrorList {
  const rule = recOpt(obj as Rec, 'aggregationRule');
  if (!rule) return [];
  const errs: ErrorList = [];
  const selectors = arr(rule, 'clusterRoleSelectors');
  if (selectors.length === 0) {
    errs.push(required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
  }
  selectors.forEach((sel, i) => errs.push(...validateLabelSelector(sel, `aggregationRule.clusterRoleSelectors[${i}]`)));
  return errs;
}

/** ValidateRoleBindingSubject. */
export function validateSubject(subject: Rec, namespaced: boolean, path: string): ErrorList {
  const errs: ErrorList = [];
  const name = str(subject, 'name');
  const apiGroup = str(subject, 'apiGroup');
  if (name === '') errs.push(required(`${path}.name`));
  switch (subject.kind) {
    case 'ServiceAccount':
      if (name !== '') for (const msg of nameIsDNSSubdomain(name, false)) errs.push(invalid(`${path}.name`, name, msg));
      if (apiGroup !== '') errs.push(notSupported(`${path}.apiGroup`, apiGroup, ['']));
      if (!namespaced && str(subject, 'namespace') === '') errs.push(required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) errs.push(notSupported(`${path}.apiGroup`, apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(notSupported(`${path}.kind`, typeof subject.kind === 'string' ? subject.kind : '', ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

/** ValidateRoleBinding / ValidateClusterRoleBinding past ObjectMeta. */
export function validateBinding(obj: KObject, namespaced: boolean): ErrorList {
  const errs: ErrorList = [];
  const ref = recOpt(obj as Rec, 'roleRef') ?? {};
  const apiGroup = str(ref, 'apiGroup');
  const kind = str(ref, 'kind');
  const name = str(ref, 'name');
  if (apiGroup !== RBAC_GROUP) errs.push(notSupported('roleRef.apiGroup', apiGroup, [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(kind)) errs.push(notSupported('roleRef.kind', kind, kinds));
  if (name === '') errs.push(required('roleRef.name'));
  else for (const msg of validateRBACName(name, false)) errs.push(invalid('roleRef.name', name, msg));
  arr(obj as Rec, 'subjects').forEach((s, i) => errs.push(...validateSubject(s, namespaced, `subjects[${i}]`)));
  return errs;
}

/** rbac.RoleRef as %#v prints it. */
function goRoleRef(ref: Rec): GoLiteral {
  return new GoLiteral(`rbac.RoleRef{APIGroup:${JSON.stringify(str(ref, 'apiGroup'))}, Kind:${JSON.stringify(str(ref, 'kind'))}, Name:${JSON.stringify(str(ref, 'name'))}}`);
}

/** ValidateRoleBindingUpdate's extra rule: the roleRef is fixed for the binding's lifetime. */
export function validateRoleRefUnchanged(obj: KObject, old: KObject): ErrorList {
  const ref = recOpt(obj as Rec, 'roleRef') ?? {};
  const oldRef = recOpt(old as Rec, 'roleRef') ?? {};
  const same = (['apiGroup', 'kind', 'name'] as const).every((k) => str(ref, k) === str(oldRef, k));
  return same ? [] : [invalid('roleRef', goRoleRef(ref), 'cannot change roleRef')];
}

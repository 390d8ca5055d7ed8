// core/v1 resourcequotas (`quota`): spec.hard names and quantities as
// kube's ValidateResourceQuota checks them (standard or fully qualified
// names, non-negative, whole numbers for object counts), scopes and the
// scope selector, scopes immutable after create, status written only through
// /status. Also the resource-name rules LimitRange validation shares.

import type { KObject } from '../../../kube/object';
import { GoLiteral } from '../../api/status';
import { type ErrorList, invalid, required } from '../../api/validation/field';
import { isQualifiedName, nameIsDNSSubdomain } from '../../api/validation/names';
import { canonicalQuantityOrSame, goQuantityLiteral } from '../../../kube/schema/quantity';
import { ALL_VERBS, STATUS_VERBS, metaFields, simpleStrategy, statusStrategy } from '../common/define';
import { type Rec, arr, isRec, recOpt, str } from '../common/obj';
import type { ResourceDef } from '../rest/resourceDef';
import { resourceQuotaTable } from '../tables/quota';

const set = (...xs: string[]) => new Set(xs);

const standardResources = set(
  'cpu', 'memory', 'ephemeral-storage',
  'requests.cpu', 'requests.memory', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage',
  'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims',
  'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers',
); // prettier-ignore

const standardQuotaResources = set(
  'cpu', 'memory', 'ephemeral-storage',
  'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage',
  'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'persistentvolumeclaims', 'configmaps',
  'services.nodeports', 'services.loadbalancers',
); // prettier-ignore

const integerResources = set('pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers');

const isHugePage = (name: string) => name.startsWith('hugepages-');
const isQuotaHugePage = (name: string) => name.startsWith('hugepages-') || name.startsWith('requests.hugepages-');
/** Unprefixed names and those under kubernetes.io/ are the system's own. */
export const isNativeResource = (name: string) => !name.includes('/') || name.includes('kubernetes.io/');
export const isExtendedResourceName = (name: string) =>
  !isNativeResource(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
/** helper.IsOvercommitAllowed: requests may be below limits (not for hugepages or extended resources). */
export const isOvercommitAllowed = (name: string) => isNativeResource(name) && !isHugePage(name);
const isIntegerResource = (name: string) => integerResources.has(name) || isExtendedResourceName(name);

/** validateResourceName: qualified, and standard unless it has a prefix. */
export function validateResourceName(name: string, path: string): ErrorList {
  const errs = isQualifiedName(name).map((m) => invalid(path, name, m));
  if (errs.length) return errs;
  if (!name.includes('/') && !standardResources.has(name) && !isQuotaHugePage(name)) {
    errs.push(invalid(path, name, 'must be a standard resource type or fully qualified'));
  }
  return errs;
}

/** validateContainerResourceName: cpu, memory, ephemeral-storage, hugepages-* or an extended resource. */
export function validateContainerResourceName(name: string, path: string): ErrorList {
  const errs = validateResourceName(name, path);
  if (!name.includes('/')) {
    if (!['cpu', 'memory', 'ephemeral-storage'].includes(name) && !isHugePage(name)) return [...errs, invalid(path, name, 'must be a standard resource for containers')];
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    return [...errs, invalid(path, name, "doesn't follow extended resource name standard")];
  }
  return errs;
}

function validateQuotaResourceName(name: string, path: string): ErrorList {
  const errs = validateResourceName(name, path);
  if (!name.includes('/') && !standardQuotaResources.has(name) && !isQuotaHugePage(name)) {
    return [...errs, invalid(path, name, 'must be a standard resource for quota')];
  }
  return errs;
}

/** Whether Quantity.MilliValue() is a multiple of 1000: the canonical form has no sub-unit suffix or negative exponent. */
function isWholeQuantity(q: string): boolean {
  return !/(?:[mun]|e-\d+)$/.test(canonicalQuantityOrSame(q));
}

/** ValidateResourceQuantityValue: non-negative, whole numbers for countable resources. */
export function validateQuantityValue(name: string, value: unknown, path: string): ErrorList {
  const q = canonicalQuantityOrSame(value);
  const errs: ErrorList = [];
  if (q.startsWith('-')) errs.push(invalid(path, q, 'must be greater than or equal to 0'));
  if (isIntegerResource(name) && !isWholeQuantity(q)) errs.push(invalid(path, new GoLiteral(goQuantityLiteral(String(value))), 'must be an integer'));
  return errs;
}

function validateResourceList(list: unknown, path: string): ErrorList {
  if (!isRec(list)) return [];
  return Object.keys(list)
    .sort()
    .flatMap((k) => [...validateQuotaResourceName(k, `${path}[${k}]`), ...validateQuantityValue(k, list[k], `${path}[${k}]`)]);
}

const standardScopes = set('Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity');
const podCount = set('pods');
const podCompute = set('cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory');

/** helper.IsResourceQuotaScopeValidForResource. */
function scopeAppliesTo(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating':
    case 'NotTerminating':
    case 'NotBestEffort':
    case 'PriorityClass':
    case 'CrossNamespacePodAffinity':
      return podCount.has(resource) || podCompute.has(resource);
    case 'BestEffort':
      return podCount.has(resource);
    default:
      return true;
  }
}

const conflictingScopes = [
  ['BestEffort', 'NotBestEffort'],
  ['Terminating', 'NotTerminating'],
];

const goScopes = (scopes: string[] | undefined) =>
  new GoLiteral(scopes ? `[]core.ResourceQuotaScope{${scopes.map((s) => JSON.stringify(s)).join(', ')}}` : '[]core.ResourceQuotaScope(nil)');

function goScopeSelector(sel: Rec): GoLiteral {
  const reqs = arr(sel, 'matchExpressions').map((r) => {
    const values = Array.isArray(r.values) ? `[]string{${(r.values as unknown[]).map((v) => JSON.stringify(String(v))).join(', ')}}` : '[]string(nil)';
    return `core.ScopedResourceSelectorRequirement{ScopeName:${JSON.stringify(str(r, 'scopeName'))}, Operator:${JSON.stringify(str(r, 'operator'))}, Values:${values}}`;
  });
  const list = Array.isArray(sel.matchExpressions) ? `[]core.ScopedResourceSelectorRequirement{${reqs.join(', ')}}` : '[]core.ScopedResourceSelectorRequirement(nil)';
  return new GoLiteral(`core.ScopeSelector{MatchExpressions:${list}}`);
}

function scopesOf(spec: Rec): string[] | undefined {
  return Array.isArray(spec.scopes) ? spec.scopes.map(String) : undefined;
}

/** validateResourceQuotaScopes and validateScopedResourceSelectorRequirement. */
function validateScopes(spec: Rec): ErrorList {
  const errs: ErrorList = [];
  const hard = Object.keys(isRec(spec.hard) ? spec.hard : {}).sort();
  const scopes = scopesOf(spec);
  if (scopes && scopes.length > 0) {
    for (const scope of scopes) {
      if (!standardScopes.has(scope)) errs.push(invalid('spec.scopes', goScopes(scopes), 'unsupported scope'));
      for (const k of hard) if (standardQuotaResources.has(k) && !scopeAppliesTo(scope, k)) errs.push(invalid('spec.scopes', goScopes(scopes), 'unsupported scope applied to resource'));
    }
    for (const pair of conflictingScopes) if (pair.every((p) => scopes.includes(p))) errs.push(invalid('spec.scopes', goScopes(scopes), 'conflicting scopes'));
  }
  const selector = recOpt(spec, 'scopeSelector');
  if (!selector) return errs;
  const path = 'spec.scopeSelector.matchExpressions';
  const seen = new Set<string>();
  for (const req of arr(selector, 'matchExpressions')) {
    const scope = str(req, 'scopeName');
    const op = str(req, 'operator');
    const values = Array.isArray(req.values) ? (req.values as unknown[]).map(String) : [];
    if (!standardScopes.has(scope)) errs.push(invalid(`${path}.scopeName`, scope, 'unsupported scope'));
    for (const k of hard) if (standardQuotaResources.has(k) && !scopeAppliesTo(scope, k)) errs.push(invalid(path, goScopeSelector(selector), 'unsupported scope applied to resource'));
    if (['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating'].includes(scope) && op !== 'Exists') {
      errs.push(invalid(`${path}.operator`, op, "must be 'Exist' only operator when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort and ResourceQuotaScopeNotBestEffort"));
    }
    if (op === 'In' || op === 'NotIn') {
      if (values.length === 0) errs.push(required(`${path}.values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length !== 0) errs.push(invalid(`${path}.values`, values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
    } else {
      errs.push(invalid(`${path}.operator`, op, 'not a valid selector operator'));
    }
    seen.add(scope);
  }
  for (const pair of conflictingScopes) if (pair.every((p) => seen.has(p))) errs.push(invalid(path, goScopes(scopesOf(spec)), 'conflicting scopes'));
  return errs;
}

const specOf = (obj: KObject): Rec => (isRec(obj.spec) ? (obj.spec as Rec) : {});
const statusOf = (obj: KObject): Rec => (isRec(obj.status) ? (obj.status as Rec) : {});

function validateQuotaStatus(obj: KObject): ErrorList {
  return [...validateResourceList(statusOf(obj).hard, 'status.hard'), ...validateResourceList(statusOf(obj).used, 'status.used')];
}

/** ValidateResourceQuotaUpdate's scope rule: the set of scopes cannot change. */
function validateScopesUnchanged(obj: KObject, old: KObject): ErrorList {
  const now = new Set(scopesOf(specOf(obj)) ?? []);
  const before = new Set(scopesOf(specOf(old)) ?? []);
  const same = now.size === before.size && [...now].every((s) => before.has(s));
  return same ? [] : [invalid('spec.scopes', goScopes(scopesOf(specOf(obj))), 'field is immutable')];
}

const quotaStrategy = simpleStrategy({
  namespaced: true,
  nameFn: nameIsDNSSubdomain,
  hasStatus: true,
  validate: (obj) => [...validateResourceList(specOf(obj).hard, 'spec.hard'), ...validateScopes(specOf(obj)), ...validateQuotaStatus(obj)],
  validateUpdate: validateScopesUnchanged,
});

export const resourcequotas: ResourceDef = {
  group: '',
  version: 'v1',
  kind: 'ResourceQuota',
  listKind: 'ResourceQuotaList',
  resource: 'resourcequotas',
  singular: 'resourcequota',
  namespaced: true,
  shortNames: ['quota'],
  categories: [],
  verbs: ALL_VERBS,
  storagePrefix: 'resourcequotas',
  protoType: 'k8s.io.api.core.v1.ResourceQuota',
  subresources: [{ name: 'status', kind: { group: '', version: 'v1', kind: 'ResourceQuota' }, verbs: STATUS_VERBS }],
  strategy: quotaStrategy,
  statusStrategy: statusStrategy(quotaStrategy, {
    // ValidateResourceQuotaStatusUpdate: a status write must name the version it read.
    validateStatus: (obj) => [...(obj.metadata.resourceVersion ? [] : [required('resourceVersion')]), ...validateQuotaStatus(obj)],
  }),
  table: resourceQuotaTable,
  selectableFields: (obj) => metaFields(obj, true),
};

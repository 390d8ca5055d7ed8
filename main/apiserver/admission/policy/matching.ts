// Which requests a policy's matchConstraints or a binding's matchResources
// select (k8s.io/apiserver plugin/policy/matching, webhook/predicates/rules
// and namespace/object matchers): namespaceSelector, objectSelector,
// excludeResourceRules, then resourceRules (operations, groups, versions,
// resources with subresources, scope, resourceNames). matchPolicy Equivalent
// would also try the request's other versions of the same resource; this
// server serves one version per resource, so it decides as Exact does.

import { labelSelectorAsSelector, type MetaLabelSelector } from '../../api/labelSelector';
import type { KObject } from '../../../kube/object';
import { type Rec, arr, recOpt, str } from '../../registry/common/obj';
import type { AdmissionAttributes } from '../interfaces';

const strings = (o: Rec, k: string): string[] => (Array.isArray(o[k]) ? (o[k] as unknown[]).map(String) : []);
const exactOrWildcard = (items: string[], want: string): boolean => items.some((i) => i === '*' || i === want);
const isNamespaceRequest = (a: AdmissionAttributes): boolean => a.group === '' && a.resource === 'namespaces';

/** rules.Matcher: scope, operation, group, version and resource (with subresource) all match. */
export function ruleMatches(rule: Rec, a: AdmissionAttributes): boolean {
  const scope = str(rule, 'scope') || '*';
  if (scope === 'Namespaced' && (isNamespaceRequest(a) || a.namespace === '')) return false;
  if (scope === 'Cluster' && !(isNamespaceRequest(a) || a.namespace === '')) return false;
  if (scope !== '*' && scope !== 'Namespaced' && scope !== 'Cluster') return false;
  const ops = strings(rule, 'operations');
  if (!ops.some((o) => o === '*' || o === a.operation)) return false;
  if (!exactOrWildcard(strings(rule, 'apiGroups'), a.group)) return false;
  if (!exactOrWildcard(strings(rule, 'apiVersions'), a.version)) return false;
  return strings(rule, 'resources').some((r) => {
    const slash = r.indexOf('/');
    const res = slash < 0 ? r : r.slice(0, slash);
    const sub = slash < 0 ? '' : r.slice(slash + 1);
    return (res === '*' || res === a.resource) && (sub === '*' || sub === a.subresource);
  });
}

/** matchesResourceRules: a rule matches and, when it names resources, the request's name is one of them. */
function matchesNamedRules(rules: Rec[], a: AdmissionAttributes): boolean {
  for (const rule of rules) {
    if (!ruleMatches(rule, a)) continue;
    const names = strings(rule, 'resourceNames');
    if (names.length === 0 || names.includes(a.name)) return true;
  }
  return false;
}

const isEmptySelector = (s: Rec | undefined): boolean => !s || (Object.keys((s.matchLabels as Rec) ?? {}).length === 0 && arr(s, 'matchExpressions').length === 0);

function labelsOf(o: KObject | undefined): Record<string, string> | undefined {
  return o?.metadata?.labels;
}

/** Where a selector needs the request's namespace: returns the namespace or throws kube's error (404 when it does not exist). */
export type NamespaceLookup = (name: string) => Promise<KObject>;

/**
 * Matcher.Matches over one MatchResources. `emptyRulesMatchAll`: a binding's
 * matchResources without resourceRules matches every resource the policy
 * does. Throws on a selector error only once the rules match (as kube does).
 */
export async function matchResources(m: Rec | undefined, a: AdmissionAttributes, namespace: NamespaceLookup): Promise<boolean> {
  if (!m) return false;
  const nsSel = recOpt(m, 'namespaceSelector');
  let nsError: unknown;
  let nsMatches = true;
  if (!isEmptySelector(nsSel) && (a.namespace !== '' || isNamespaceRequest(a))) {
    try {
      let labels: Record<string, string> | undefined;
      // A namespace being created or updated: its own labels (the cache may not have it yet).
      if (isNamespaceRequest(a) && a.operation !== 'DELETE') labels = labelsOf(a.object);
      else labels = labelsOf(await namespace(isNamespaceRequest(a) ? a.name : a.namespace));
      nsMatches = labelSelectorAsSelector(nsSel as MetaLabelSelector).matches(labels ?? {});
    } catch (e) {
      nsError = e;
      nsMatches = false;
    }
  }
  if (!nsMatches && nsError === undefined) return false;

  const objSel = recOpt(m, 'objectSelector');
  let objError: unknown;
  let objMatches = true;
  if (!isEmptySelector(objSel)) {
    try {
      const sel = labelSelectorAsSelector(objSel as MetaLabelSelector);
      objMatches = (a.object !== undefined && sel.matches(labelsOf(a.object) ?? {})) || (a.oldObject !== undefined && sel.matches(labelsOf(a.oldObject) ?? {}));
    } catch (e) {
      objError = e;
      objMatches = false;
    }
  }
  if (!objMatches && objError === undefined) return false;

  if (matchesNamedRules(arr(m, 'excludeResourceRules'), a)) return false;
  const rules = arr(m, 'resourceRules');
  if (rules.length > 0 && !matchesNamedRules(rules, a)) return false;
  if (nsError !== undefined) throw nsError;
  if (objError !== undefined) throw objError;
  return true;
}

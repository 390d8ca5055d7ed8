// metav1.LabelSelector and how kube matches labels against it: the
// structured selectors of Deployments, ReplicaSets and aggregated
// ClusterRoles, and the plain map selectors of Services.

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** metav1.LabelSelectorAsSelector(...).Matches: every matchLabels and matchExpressions term holds. An empty selector matches everything. */
export function selectorMatches(sel: LabelSelector | undefined, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const [k, v] of Object.entries(sel?.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of sel?.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const vals = e.values ?? [];
    if (e.operator === 'In' && !(has && vals.includes(l[e.key]))) return false;
    if (e.operator === 'NotIn' && has && vals.includes(l[e.key])) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/** A map selector (Service.spec.selector): labels.SelectorFromSet; an empty one selects nothing for services, so callers check emptiness. */
export function setMatches(set: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  for (const [k, v] of Object.entries(set)) if (labels?.[k] !== v) return false;
  return true;
}

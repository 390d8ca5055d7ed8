// RBAC's PolicyRule and the three things done with it: does a rule allow a
// request (kube's rbacv1helpers VerbMatches/APIGroupMatches/ResourceMatches/
// ResourceNameMatches/NonResourceURLMatches, used by the authorizer), does
// one set of rules cover another (component-helpers' Covers, used by
// escalation prevention), and the compact text kube prints for a rule in
// escalation errors. Pure functions over plain JSON, so they test in isolation.

import type { AuthorizationAttributes } from '../authz/authorizer';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** A rule as it comes out of stored JSON (missing lists become empty). */
export function normalizeRule(raw: unknown): PolicyRule {
  const r = (raw ?? {}) as Record<string, unknown>;
  const list = (k: string): string[] => (Array.isArray(r[k]) ? (r[k] as unknown[]).map(String) : []);
  return { verbs: list('verbs'), apiGroups: list('apiGroups'), resources: list('resources'), resourceNames: list('resourceNames'), nonResourceURLs: list('nonResourceURLs') };
}

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === '*' || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === '*' || g === group);
}

/** combined is `resource` or `resource/subresource`; a rule's `*\/sub` matches that subresource of any resource. */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** `*` matches every path; a trailing `*` matches every path with that prefix. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

type RequestShape = Pick<AuthorizationAttributes, 'verb' | 'isResourceRequest' | 'path' | 'apiGroup' | 'resource' | 'subresource' | 'name'>;

/** rbac.RuleAllows. */
export function ruleAllows(a: RequestShape, rule: PolicyRule): boolean {
  if (a.isResourceRequest) {
    const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    return verbMatches(rule, a.verb) && apiGroupMatches(rule, a.apiGroup) && resourceMatches(rule, combined, a.subresource) && resourceNameMatches(rule, a.name);
  }
  return verbMatches(rule, a.verb) && nonResourceURLMatches(rule, a.path);
}

export function rulesAllow(a: RequestShape, rules: readonly PolicyRule[]): boolean {
  return rules.some((r) => ruleAllows(a, r));
}

// ---- Covers (escalation prevention)

/** Splits a rule into rules of one group, resource, verb and resource name (or one URL and verb). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length > 0) for (const n of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [n] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const hasAll = (set: readonly string[], wanted: readonly string[]): boolean => wanted.every((w) => set.includes(w));

function resourceCoversAll(owner: readonly string[], wanted: readonly string[]): boolean {
  if (owner.includes('*') || hasAll(owner, wanted)) return true;
  for (const path of wanted) {
    if (owner.includes(path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0) return false;
    if (!owner.includes(`*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, path: string): boolean {
  return owner === path || (owner.endsWith('*') && path.startsWith(owner.replace(/\*+$/, '')));
}

/** Does owner (any shape) cover sub (one verb, resource and name — a breakdownRule piece)? */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = owner.verbs.includes('*') || hasAll(owner.verbs, sub.verbs);
  const groups = (owner.apiGroups ?? []).includes('*') || hasAll(owner.apiGroups ?? [], sub.apiGroups ?? []);
  const resources = resourceCoversAll(owner.resources ?? [], sub.resources ?? []);
  const urls = (sub.nonResourceURLs ?? []).every((p) => (owner.nonResourceURLs ?? []).some((o) => nonResourceURLCovers(o, p)));
  const ownerNames = owner.resourceNames ?? [];
  const subNames = sub.resourceNames ?? [];
  const names = subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return verbs && groups && resources && names && urls;
}

/** component-helpers validation.Covers: whether owner covers servant, and the uncovered pieces. */
export function covers(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const sub of servant.flatMap(breakdownRule)) if (!owner.some((o) => ruleCovers(o, sub))) missing.push(sub);
  return { covered: missing.length === 0, missing };
}

/** CompactRules: simple one-group one-resource rules that differ only by verb are merged (first-seen order of verbs). */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple = (r.resourceNames ?? []).length === 0 && (r.nonResourceURLs ?? []).length === 0 && (r.apiGroups ?? []).length === 1 && (r.resources ?? []).length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = `${r.apiGroups![0]}\u0000${r.resources![0]}`;
    const seen = simple.get(key);
    if (seen) seen.verbs.push(...r.verbs);
    else simple.set(key, { apiGroups: [...r.apiGroups!], resources: [...r.resources!], verbs: [...r.verbs] });
  }
  return [...out, ...simple.values()];
}

/** Go's %q of a []string: ["a" "b"]. */
export function goQuotedList(xs: readonly string[]): string {
  return `[${xs.map((x) => JSON.stringify(x)).join(' ')}]`;
}

/** rbacv1helpers.CompactString: {APIGroups:[""], Resources:["pods"], Verbs:["get"]}. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if ((r.apiGroups ?? []).length) parts.push(`APIGroups:${goQuotedList(r.apiGroups!)}`);
  if ((r.resources ?? []).length) parts.push(`Resources:${goQuotedList(r.resources!)}`);
  if ((r.nonResourceURLs ?? []).length) parts.push(`NonResourceURLs:${goQuotedList(r.nonResourceURLs!)}`);
  if ((r.resourceNames ?? []).length) parts.push(`ResourceNames:${goQuotedList(r.resourceNames!)}`);
  if (r.verbs.length) parts.push(`Verbs:${goQuotedList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

// kube's RBAC reconciliation (pkg/registry/rbac/reconciliation), the
// non-destructive half the bootstrap hook uses: an existing role keeps its
// rules and gains the missing ones (as broken-down single rules), keeps its
// labels and annotations over ours, gains missing aggregation selectors; a
// binding keeps its subjects and gains missing ones. A role or binding
// annotated autoupdate=false is left alone. A binding whose roleRef differs
// must be recreated (roleRef is immutable).

import type { KObject } from '../../../kube/object';
import { deepEqual } from '../../api/validation/field';
import { covers, normalizeRule, type PolicyRule } from '../policyRule';
import { AUTOUPDATE_ANNOTATION } from './objects';

export type ReconcileResult = { op: 'none' } | { op: 'update'; obj: KObject } | { op: 'recreate' };

const merged = (ours: Record<string, string> | undefined, theirs: Record<string, string> | undefined): Record<string, string> => ({ ...(ours ?? {}), ...(theirs ?? {}) });

function storedRule(r: PolicyRule): Record<string, unknown> {
  const out: Record<string, unknown> = { verbs: r.verbs };
  if (r.apiGroups?.length) out.apiGroups = r.apiGroups;
  if (r.resources?.length) out.resources = r.resources;
  if (r.resourceNames?.length) out.resourceNames = r.resourceNames;
  if (r.nonResourceURLs?.length) out.nonResourceURLs = r.nonResourceURLs;
  return out;
}

function withMergedMeta(existing: KObject, expected: KObject): KObject {
  const out = structuredClone(existing);
  out.metadata.labels = merged(expected.metadata.labels, existing.metadata.labels);
  out.metadata.annotations = merged(expected.metadata.annotations, existing.metadata.annotations);
  return out;
}

export function skipsAutoupdate(existing: KObject): boolean {
  return existing.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false';
}

export function reconcileRole(existing: KObject, expected: KObject): ReconcileResult {
  if (skipsAutoupdate(existing)) return { op: 'none' };
  const out = withMergedMeta(existing, expected);
  const have = Array.isArray(existing.rules) ? (existing.rules as unknown[]).map(normalizeRule) : [];
  const want = Array.isArray(expected.rules) ? (expected.rules as unknown[]).map(normalizeRule) : [];
  const { missing } = covers(have, want);
  if (missing.length) out.rules = [...((existing.rules as unknown[]) ?? []), ...missing.map(storedRule)];
  const wantAgg = (expected.aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined)?.clusterRoleSelectors;
  if (wantAgg) {
    const haveAgg = ((existing.aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined)?.clusterRoleSelectors ?? []) as unknown[];
    const add = wantAgg.filter((w) => !haveAgg.some((h) => deepEqual(h, w)));
    if (add.length) out.aggregationRule = { ...((existing.aggregationRule as object) ?? {}), clusterRoleSelectors: [...haveAgg, ...add] };
  }
  return deepEqual(out, existing) ? { op: 'none' } : { op: 'update', obj: out };
}

export function reconcileBinding(existing: KObject, expected: KObject): ReconcileResult {
  if (skipsAutoupdate(existing)) return { op: 'none' };
  if (!deepEqual(existing.roleRef, expected.roleRef)) return { op: 'recreate' };
  const out = withMergedMeta(existing, expected);
  const have = (Array.isArray(existing.subjects) ? existing.subjects : []) as Record<string, unknown>[];
  const want = (Array.isArray(expected.subjects) ? expected.subjects : []) as Record<string, unknown>[];
  const same = (a: Record<string, unknown>, b: Record<string, unknown>) => a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '') && (a.apiGroup ?? '') === (b.apiGroup ?? '');
  const add = want.filter((w) => !have.some((h) => same(h, w)));
  if (add.length) out.subjects = [...have, ...add];
  return deepEqual(out, existing) ? { op: 'none' } : { op: 'update', obj: out };
}


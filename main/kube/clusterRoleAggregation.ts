// How an aggregated ClusterRole's rules follow from the roles its
// aggregationRule selects: the clusterrole-aggregation controller writes
// them, and the control plane's readiness check waits until admin, edit and
// view hold them.

import type { KObject } from './object';
import { selectorMatches, type LabelSelector } from './labelSelectors';

export interface ClusterRole extends KObject {
  rules?: unknown[] | null;
  aggregationRule?: { clusterRoleSelectors?: LabelSelector[] } | null;
}

/** Structural equality of two JSON values (rules are plain JSON). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b as object).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** The rules an aggregated role should have, given every ClusterRole (pure: the controller's core). */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[]): unknown[] {
  const selectors = role.aggregationRule?.clusterRoleSelectors ?? [];
  const out: unknown[] = [];
  for (const sel of selectors) {
    const matching = all.filter((r) => r.metadata.name !== role.metadata.name && selectorMatches(sel, r.metadata.labels)).sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));
    for (const r of matching) for (const rule of r.rules ?? []) if (!out.some((x) => sameJson(x, rule))) out.push(rule);
  }
  return out;
}

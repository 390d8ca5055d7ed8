// The clusterrole-aggregation controller (kube's
// pkg/controller/clusterroleaggregation): a ClusterRole with an
// aggregationRule gets as rules the union of the rules of every ClusterRole
// its selectors match (matching roles by name order, each rule once, the
// role itself skipped). Any ClusterRole change may change some aggregate, so
// every change requeues all aggregated roles, as kube does. This is what
// gives the bootstrap admin/edit/view roles their rules, and lets a role
// labelled rbac.authorization.k8s.io/aggregate-to-edit=true extend `edit`.

import { isNotFound, type ControllerContext, type ResourceRef } from '../client';
import { objectPath } from '../client';
import { runQueue, selectorMatches } from './common';
import type { KObject, LabelSelector } from './types';

export const CLUSTERROLES: ResourceRef = { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', kind: 'ClusterRole', namespaced: false };

export interface ClusterRole extends KObject {
  rules?: unknown[] | null;
  aggregationRule?: { clusterRoleSelectors?: LabelSelector[] } | null;
}

/** Structural equality of two JSON values (rules are plain JSON). */
function sameJson(a: unknown, b: unknown): boolean {
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

export function startClusterRoleAggregationController(ctx: ControllerContext): void {
  const rest = ctx.clients.rest;
  const inf = ctx.informers.informer<ClusterRole>(CLUSTERROLES);
  const queue = runQueue(ctx, 'clusterrole-aggregation', sync, 1);
  const enqueueAll = () => {
    for (const r of inf.list()) if (r.aggregationRule) queue.add(r.metadata.name!);
  };
  inf.addEventHandler({ add: enqueueAll, update: enqueueAll, delete: enqueueAll });

  async function sync(name: string): Promise<void> {
    const role = inf.get(name);
    if (!role?.aggregationRule) return;
    const rules = aggregatedRules(role, inf.list());
    if (sameJson(rules, role.rules ?? [])) return;
    // A merge patch of rules alone, like kube's server-side apply of them: no
    // resourceVersion, so concurrent aggregate updates (edit, view and admin
    // feed each other) never conflict and back off.
    try {
      await rest.patch(objectPath(CLUSTERROLES, undefined, name), 'merge', { rules });
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
  }
}

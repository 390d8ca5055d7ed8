// What a ResourceQuota's status should say (kube's quota.CalculateUsage and
// syncResourceQuota), computed from the objects of its namespace:
//   status.hard = spec.hard;
//   status.used = for every hard name some evaluator measures, the sum over
//     the namespace's objects that match the quota's scopes (0 when none),
//     keeping earlier observations for names nothing here measures.
// Pure: the controller hands it the objects of each resource it asks for.

import type { KObject } from '../../kube/object';
import { evaluatorFor, objectCountName, podEvaluator, quotaScopes, serviceEvaluator, type QuotaEvaluator, type ResourceQuotaObject } from '../../kube/quota/evaluators';
import { addLists, formatList, listsEqual, maskList, parseList, parseQuantity, type Quantity } from '../../kube/quota/quantity';

/** A group/resource whose objects count against a quota. */
export interface QuotaTarget {
  group: string;
  resource: string;
}

const LEGACY_NAMES = ['configmaps', 'secrets', 'resourcequotas', 'replicationcontrollers', 'persistentvolumeclaims'];

/** The evaluators a quota's hard names call for: pods, services, and one object count per other resource named. */
export function evaluatorsFor(hardNames: string[]): QuotaEvaluator[] {
  const out: QuotaEvaluator[] = [];
  if (podEvaluator.matchingResources(hardNames).length > 0) out.push(podEvaluator);
  if (serviceEvaluator.matchingResources(hardNames).length > 0) out.push(serviceEvaluator);
  const seen = new Set(['/pods', '/services']);
  for (const n of hardNames) {
    let target: QuotaTarget | undefined;
    if (n.startsWith('count/')) {
      const gr = n.slice('count/'.length);
      const dot = gr.indexOf('.');
      target = dot < 0 ? { group: '', resource: gr } : { group: gr.slice(dot + 1), resource: gr.slice(0, dot) };
    } else if (LEGACY_NAMES.includes(n)) {
      target = { group: '', resource: n };
    }
    if (!target || seen.has(`${target.group}/${target.resource}`)) continue;
    seen.add(`${target.group}/${target.resource}`);
    out.push(evaluatorFor(target.group, target.resource));
  }
  return out;
}

/** The quota's new status, and whether it differs from the stored one. */
export async function quotaStatus(
  q: ResourceQuotaObject,
  objectsOf: (t: QuotaTarget) => Promise<KObject[]> | KObject[],
  now: Date,
): Promise<{ status: { hard: Record<string, string>; used: Record<string, string> }; dirty: boolean }> {
  const hard = q.spec?.hard ?? {};
  const hardNames = Object.keys(hard);
  const scopes = quotaScopes(q);
  let observed = new Map<string, Quantity>();
  for (const ev of evaluatorsFor(hardNames)) {
    const names = ev.matchingResources(hardNames);
    let used = new Map<string, Quantity>(names.map((n) => [n, parseQuantity('0')]));
    for (const obj of await objectsOf({ group: ev.group, resource: ev.resource })) {
      if (!scopes.every((s) => ev.matchesScope(s, obj))) continue;
      used = addLists(used, maskList(ev.usage(obj, now), names));
    }
    observed = addLists(observed, used);
  }
  // Earlier observations stay for names nothing here measures; all is masked to the hard names.
  const previous = parseList(q.status?.used);
  const merged = maskList(new Map([...previous, ...observed]), hardNames);
  const status = { hard: { ...hard }, used: formatList(merged) };
  const hardChanged = !q.status?.hard || !listsEqual(parseList(q.status.hard), parseList(hard));
  const dirty = hardChanged || !q.status?.used || !listsEqual(merged, previous);
  return { status, dirty };
}

export { objectCountName };

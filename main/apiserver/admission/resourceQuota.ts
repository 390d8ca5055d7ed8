// The ResourceQuota admission plugin (k8s.io/apiserver admission/plugin/
// resourcequota): a validating plugin that charges a namespaced write against
// every ResourceQuota in its namespace and records the charge in each
// quota's status.used before the object is stored, refusing with kube's 403
//   pods "p3" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2
// A quota takes part once the resource quota controller has filled its
// status.hard (kube matches on status, not spec); one that tracks a resource
// but has no used value for it yet refuses with `status unknown for quota`.
//
// Concurrency: the charge is a guaranteed update of the quota's etcd key,
// and the check is repeated against the value being replaced, so two creates
// racing for the last slot cannot both win. Uncharging (deletes) is the
// controller's job (main/controllers/manager/resourceQuota.ts), as in kube.
// A dry run is checked but charges nothing.

import type { KObject } from '../../kube/object';
import type { AdmissionAttributes, AdmissionPlugin } from './interfaces';
import type { ServerEnv } from '../serverEnv';
import { StorageError } from '../storage/interface';
import { admissionForbidden } from './errors/forbidden';
import type { AdmissionPluginContext } from './interfaces';
import { evaluatorFor, quotaMatches, type QuotaEvaluator, type ResourceQuotaObject } from '../../kube/quota/evaluators';
import { addLists, formatList, listsEqual, maskList, parseList, prettyPrint, compare, type Quantity } from '../../kube/quota/quantity';

/** ResourceQuotaConfiguration (apiserver.config.k8s.io/v1): resources that may only be consumed under a covering quota. */
export interface LimitedResource {
  apiGroup?: string;
  resource: string;
  matchContains?: string[];
}

export interface QuotaCharge {
  quota: ResourceQuotaObject;
  /** status.used after the charge. */
  used: Map<string, Quantity>;
}

/** quota.SubtractWithNonNegativeResult: a − b per key of a, never below zero. */
function subtractNonNegative(a: Map<string, Quantity>, b: Map<string, Quantity>): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  for (const [k, v] of a) {
    const prev = b.get(k);
    const d = prev ? v.nanos - prev.nanos : v.nanos;
    out.set(k, { nanos: d > 0n ? d : 0n, binary: v.binary });
  }
  return out;
}

function removeZeros(a: Map<string, Quantity>): Map<string, Quantity> {
  return new Map([...a].filter(([, v]) => v.nanos !== 0n));
}

/**
 * CheckRequest: the quotas this request changes and their new usage, or a
 * 403 StatusError. Pure: quotas are read, never written.
 */
export function checkQuotaRequest(quotas: ResourceQuotaObject[], a: AdmissionAttributes, ev: QuotaEvaluator, now: Date, limited: LimitedResource[] = []): QuotaCharge[] {
  const obj = a.object as KObject;
  const inputUsage = ev.usage(obj, now);

  const limitedNames = new Set<string>();
  for (const l of limited) {
    if ((l.apiGroup ?? '') !== a.group || l.resource !== a.resource) continue;
    for (const [k, v] of inputUsage) if (v.nanos > 0n && (l.matchContains ?? []).some((m) => k.includes(m))) limitedNames.add(k);
  }

  const interesting: { quota: ResourceQuotaObject; restricted: string[] }[] = [];
  const restrictedAll = new Set<string>();
  for (const q of quotas) {
    if (!quotaMatches(q, obj, ev)) continue;
    const hard = q.status?.hard ?? {};
    const restricted = ev.matchingResources(Object.keys(hard));
    const constraint = ev.constraints(restricted, obj);
    if (constraint) throw admissionForbidden(a, `failed quota: ${q.metadata.name}: ${constraint}`);
    const used = q.status?.used ?? {};
    const unknown = restricted.filter((r) => used[r] === undefined);
    if (unknown.length > 0) throw admissionForbidden(a, `status unknown for quota: ${q.metadata.name}, resources: ${[...restricted].sort().join(',')}`);
    interesting.push({ quota: q, restricted });
    for (const r of restricted) restrictedAll.add(r);
  }

  const negative = [...inputUsage].filter(([, v]) => v.nanos < 0n).map(([k]) => k);
  if (negative.length > 0) throw admissionForbidden(a, `quota usage is negative for resource(s): ${negative.sort().join(',')}`);

  // On update, charge only the growth, for quotas the old object already counted against.
  let prevUsage: Map<string, Quantity> | undefined;
  if (a.operation === 'UPDATE' && a.oldObject?.metadata.resourceVersion) prevUsage = ev.usage(a.oldObject, now);
  const deltaFor = (q: ResourceQuotaObject): Map<string, Quantity> =>
    removeZeros(prevUsage && quotaMatches(q, a.oldObject!, ev) ? subtractNonNegative(inputUsage, prevUsage) : inputUsage);

  if (interesting.length > 0) {
    if (interesting.every(({ quota }) => deltaFor(quota).size === 0)) return [];
  } else if (removeZeros(prevUsage ? subtractNonNegative(inputUsage, prevUsage) : inputUsage).size === 0) {
    return [];
  }

  const uncovered = [...limitedNames].filter((n) => !restrictedAll.has(n)).sort();
  if (uncovered.length > 0) throw admissionForbidden(a, `insufficient quota to consume: ${uncovered.join(',')}`);

  const charges: QuotaCharge[] = [];
  for (const { quota } of interesting) {
    const delta = deltaFor(quota);
    if (delta.size === 0) continue;
    const hard = parseList(quota.status?.hard);
    const used = parseList(quota.status?.used);
    const requested = maskList(delta, hard.keys());
    const newUsage = addLists(used, requested);
    const exceeded = [...requested.keys()].filter((k) => compare(newUsage.get(k)!, hard.get(k)!) > 0);
    if (exceeded.length > 0) {
      throw admissionForbidden(
        a,
        `exceeded quota: ${quota.metadata.name}, requested: ${prettyPrint(maskList(requested, exceeded))}, used: ${prettyPrint(maskList(used, exceeded))}, limited: ${prettyPrint(maskList(hard, exceeded))}`,
      );
    }
    charges.push({ quota, used: newUsage });
  }
  return charges;
}

function limitedFromConfig(config: unknown): LimitedResource[] {
  const lr = (config as { limitedResources?: unknown } | undefined)?.limitedResources;
  return Array.isArray(lr) ? (lr.filter((l) => typeof (l as LimitedResource)?.resource === 'string') as LimitedResource[]) : [];
}

export function resourceQuotaPlugin(env: ServerEnv, ctx?: Pick<AdmissionPluginContext, 'config'>): AdmissionPlugin {
  const limited = limitedFromConfig(ctx?.config);
  let warned = false;

  async function quotasIn(namespace: string): Promise<ResourceQuotaObject[]> {
    let prefix: string;
    try {
      prefix = env.keyFor('resourcequotas', '', namespace, '');
    } catch {
      if (!warned) env.log('apiserver: ResourceQuota: resourcequotas are not served; the plugin has nothing to enforce');
      warned = true;
      return [];
    }
    return (await env.storageFor('resourcequotas').getList(prefix, { resourceVersion: '0', shareItems: true })).items as ResourceQuotaObject[];
  }

  return {
    name: 'ResourceQuota',
    handles: (a) =>
      a.subresource === '' &&
      a.namespace !== '' &&
      a.object !== undefined &&
      (a.operation === 'CREATE' || a.operation === 'UPDATE') &&
      !(a.group === '' && a.resource === 'namespaces'),
    async validate(a) {
      const ev = evaluatorFor(a.group, a.resource);
      if (!ev.handles(a.operation)) return;
      const quotas = await quotasIn(a.namespace);
      if (quotas.length === 0 && limited.length === 0) return;
      const now = env.now();
      const charges = checkQuotaRequest(quotas, a, ev, now, limited);
      if (a.dryRun) return;
      for (const { quota } of charges) {
        const key = env.keyFor('resourcequotas', '', a.namespace, quota.metadata.name!);
        // Re-check against the quota as stored now: another request may have charged it since the cached read.
        try {
          await env.storageFor('resourcequotas').guaranteedUpdate(key, undefined, (current) => {
            const cur = current as ResourceQuotaObject;
            const [charge] = checkQuotaRequest([cur], a, ev, now, []);
            if (!charge || listsEqual(charge.used, parseList(cur.status?.used))) return cur;
            return { ...cur, status: { ...cur.status, used: formatList(charge.used) } } as KObject;
          });
        } catch (err) {
          // Deleted since it was listed: nothing left to charge.
          if (err instanceof StorageError && err.code === 'KeyNotFound') continue;
          throw err;
        }
      }
    },
  };
}

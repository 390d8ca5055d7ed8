// The LimitRanger admission plugin (kube's plugin/pkg/admission/limitranger)
// for pods; LimitRanges of type PersistentVolumeClaim are ignored (no PVCs
// here). On pod create, for every LimitRange in the namespace:
//   - mutating: each container and init container without a request / limit
//     for a resource gets the Container-type item's defaultRequest / default,
//     and the pod is annotated `kubernetes.io/limit-ranger: LimitRanger
//     plugin set: cpu, memory request for container nginx; ...`;
//   - validating: Container items' min / max / maxLimitRequestRatio per
//     container, Pod items' against the pod's aggregate requests and limits;
//     every violation is collected and the pod refused with one 403
//     (`pods "x" is forbidden: [minimum cpu usage per Container is 100m, but
//     request is 50m, ...]`).
// Pod updates are not checked (containers' resources are immutable), nor are
// subresources. A LimitRange item is defaulted here as the API defaults it
// (default ← max, defaultRequest ← default, then ← min) so an item stored
// without those still behaves as kube's would.

import type { KObject } from '../../kube/object';
import type { AdmissionAttributes, AdmissionPlugin } from './interfaces';
import type { ServerEnv } from '../serverEnv';
import { admissionForbidden } from './errors/forbidden';
import { podLimits, podRequests, type ContainerSpec, type PodSpecResources } from '../../kube/quota/podResources';
import { formatQuantity, milliValue, parseList, value, type Quantity } from '../../kube/quota/quantity';

export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';
/** Past this many milli units a MilliValue would overflow int64, and kube compares whole units. */
const MAX_MILLI_VALUE = 9223372036854775807n / 1000n;

export interface LimitRangeItem {
  type?: string;
  max?: Record<string, string>;
  min?: Record<string, string>;
  default?: Record<string, string>;
  defaultRequest?: Record<string, string>;
  maxLimitRequestRatio?: Record<string, string>;
}

export interface LimitRange extends KObject {
  spec?: { limits?: LimitRangeItem[] };
}

/** SetDefaults_LimitRangeItem for Container items. */
export function defaultedItem(item: LimitRangeItem): LimitRangeItem {
  if (item.type !== 'Container') return item;
  const def = { ...(item.default ?? {}) };
  const defReq = { ...(item.defaultRequest ?? {}) };
  for (const [k, v] of Object.entries(item.max ?? {})) if (!(k in def)) def[k] = v;
  for (const [k, v] of Object.entries(def)) if (!(k in defReq)) defReq[k] = v;
  for (const [k, v] of Object.entries(item.min ?? {})) if (!(k in defReq)) defReq[k] = v;
  return { ...item, default: def, defaultRequest: defReq };
}

function isPodCreate(a: AdmissionAttributes): boolean {
  return a.operation === 'CREATE' && a.group === '' && a.resource === 'pods' && a.subresource === '' && a.object !== undefined;
}

/** PodMutateLimitFunc: fills missing requests/limits from the Container items; returns the annotation parts. */
export function applyContainerDefaults(spec: PodSpecResources, limitRange: LimitRange): string[] {
  const requests: Record<string, string> = {};
  const limits: Record<string, string> = {};
  for (const raw of limitRange.spec?.limits ?? []) {
    const item = defaultedItem(raw);
    if (item.type !== 'Container') continue;
    Object.assign(requests, item.defaultRequest ?? {});
    Object.assign(limits, item.default ?? {});
  }
  const notes: string[] = [];
  const merge = (c: ContainerSpec, kind: string): void => {
    const res = (c.resources ??= {});
    const setLimits: string[] = [];
    const setRequests: string[] = [];
    for (const [k, v] of Object.entries(limits)) {
      if ((res.limits ??= {})[k] === undefined) {
        res.limits[k] = v;
        setLimits.push(k);
      }
    }
    for (const [k, v] of Object.entries(requests)) {
      if ((res.requests ??= {})[k] === undefined) {
        res.requests[k] = v;
        setRequests.push(k);
      }
    }
    // kube leaves empty maps in place; they serialize away.
    if (res.limits && Object.keys(res.limits).length === 0) delete res.limits;
    if (res.requests && Object.keys(res.requests).length === 0) delete res.requests;
    if (setRequests.length > 0) notes.push(`${setRequests.sort().join(', ')} request for ${kind} ${c.name ?? ''}`);
    if (setLimits.length > 0) notes.push(`${setLimits.sort().join(', ')} limit for ${kind} ${c.name ?? ''}`);
  };
  for (const c of spec.containers ?? []) merge(c, 'container');
  for (const c of spec.initContainers ?? []) merge(c, 'init container');
  return notes;
}

/** requestLimitEnforcedValues: milli units when nothing overflows, else whole units. */
function comparable(req: Quantity | undefined, lim: Quantity | undefined, enforced: Quantity): [bigint, bigint, bigint] {
  const units = [req, lim, enforced].map((q) => (q ? value(q) : 0n));
  if (units.every((u) => u <= MAX_MILLI_VALUE)) return [req ? milliValue(req) : 0n, lim ? milliValue(lim) : 0n, milliValue(enforced)];
  return units as [bigint, bigint, bigint];
}

function minConstraint(type: string, name: string, enforced: Quantity, requests: Map<string, Quantity>, limits: Map<string, Quantity>): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req, lim, enforced);
  const want = formatQuantity(enforced);
  if (!req) return `minimum ${name} usage per ${type} is ${want}.  No request is specified`;
  if (r < e) return `minimum ${name} usage per ${type} is ${want}, but request is ${formatQuantity(req)}`;
  if (lim && l < e) return `minimum ${name} usage per ${type} is ${want}, but limit is ${formatQuantity(lim)}`;
  return undefined;
}

function maxConstraint(type: string, name: string, enforced: Quantity, requests: Map<string, Quantity>, limits: Map<string, Quantity>): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req, lim, enforced);
  const want = formatQuantity(enforced);
  if (!lim) return `maximum ${name} usage per ${type} is ${want}.  No limit is specified`;
  if (l > e) return `maximum ${name} usage per ${type} is ${want}, but limit is ${formatQuantity(lim)}`;
  if (req && r > e) return `maximum ${name} usage per ${type} is ${want}, but request is ${formatQuantity(req)}`;
  return undefined;
}

function ratioConstraint(type: string, name: string, enforced: Quantity, requests: Map<string, Quantity>, limits: Map<string, Quantity>): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l] = comparable(req, lim, enforced);
  const want = formatQuantity(enforced);
  if (!req || r === 0n) return `${name} max limit to request ratio per ${type} is ${want}, but no request is specified or request is 0`;
  if (!lim || l === 0n) return `${name} max limit to request ratio per ${type} is ${want}, but no limit is specified or limit is 0`;
  const observed = Number(l) / Number(r);
  let observedCmp = observed;
  let max = Number(value(enforced));
  if (value(enforced) <= MAX_MILLI_VALUE) {
    observedCmp = observed * 1000;
    max = Number(milliValue(enforced));
  }
  // Go's %f: six decimals.
  if (observedCmp > max) return `${name} max limit to request ratio per ${type} is ${want}, but provided ratio is ${observed.toFixed(6)}`;
  return undefined;
}

function checkItem(type: string, item: LimitRangeItem, requests: Map<string, Quantity>, limits: Map<string, Quantity>, errs: string[]): void {
  const run = (bounds: Record<string, string> | undefined, fn: typeof minConstraint) => {
    const parsed = parseList(bounds);
    for (const k of [...parsed.keys()].sort()) {
      const e = fn(type, k, parsed.get(k)!, requests, limits);
      if (e) errs.push(e);
    }
  };
  run(item.min, minConstraint);
  run(item.max, maxConstraint);
  run(item.maxLimitRequestRatio, ratioConstraint);
}

/** PodValidateLimitFunc: every violation of one LimitRange, in kube's order. */
export function validatePodLimits(spec: PodSpecResources, limitRange: LimitRange): string[] {
  const errs: string[] = [];
  for (const item of limitRange.spec?.limits ?? []) {
    if (item.type === 'Container') {
      for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
        checkItem('Container', item, parseList(c.resources?.requests), parseList(c.resources?.limits), errs);
      }
    } else if (item.type === 'Pod') {
      checkItem('Pod', item, podRequests(spec), podLimits(spec), errs);
    }
  }
  // utilerrors.NewAggregate drops duplicates.
  return [...new Set(errs)];
}

export function limitRangerPlugin(env: ServerEnv): AdmissionPlugin {
  let warned = false;
  async function limitRanges(namespace: string): Promise<LimitRange[]> {
    let prefix: string;
    try {
      prefix = env.keyFor('limitranges', '', namespace, '');
    } catch {
      // LimitRange is not served (yet): nothing to apply.
      if (!warned) env.log('apiserver: LimitRanger: limitranges are not served; the plugin has nothing to enforce');
      warned = true;
      return [];
    }
    const list = await env.storageFor('limitranges').getList(prefix, { resourceVersion: '0', shareItems: true });
    return list.items as LimitRange[];
  }

  return {
    name: 'LimitRanger',
    handles: isPodCreate,
    async admit(a) {
      const ranges = await limitRanges(a.namespace);
      if (ranges.length === 0) return 'unchanged';
      const pod = a.object!;
      const spec = ((pod as { spec?: PodSpecResources }).spec ??= {});
      for (const lr of ranges) {
        const notes = applyContainerDefaults(spec, lr);
        if (notes.length > 0) (pod.metadata.annotations ??= {})[LIMIT_RANGER_ANNOTATION] = `LimitRanger plugin set: ${notes.join('; ')}`;
      }
    },
    async validate(a) {
      const spec = (a.object as { spec?: PodSpecResources }).spec ?? {};
      for (const lr of await limitRanges(a.namespace)) {
        const errs = validatePodLimits(spec, lr);
        if (errs.length > 0) throw admissionForbidden(a, errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
      }
    },
  };
}

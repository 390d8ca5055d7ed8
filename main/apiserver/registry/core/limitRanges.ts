// core/v1 limitranges (`limits`): SetDefaults_LimitRangeItem (container
// items get default limits from max, default requests from the default limit
// or min) and ValidateLimitRange: known or qualified types, each at most
// once, resource names by type, no defaults for Pod items, a storage bound for
// PVC items, and min <= defaultRequest <= default <= max with ratios >= 1.

import type { KObject } from '../../../kube/object';
import { type ErrorList, duplicate, forbidden, invalid, required } from '../../api/validation/field';
import { isQualifiedName, nameIsDNSSubdomain } from '../../api/validation/names';
import { GoLiteral } from '../../api/status';
import { canonicalQuantityOrSame, compareQuantities, goQuantityLiteral } from '../../../kube/schema/quantity';
import { ALL_VERBS, metaFields, simpleStrategy } from '../common/define';
import { type Rec, arr, isRec, recOpt } from '../common/obj';
import type { ResourceDef } from '../rest/resourceDef';
import { defaultTable } from '../tables/rbac';
import { isOvercommitAllowed, validateContainerResourceName, validateResourceName } from './resourceQuotas';

type Quantities = Record<string, string>;

const quantities = (item: Rec, key: string): Quantities => {
  const m = recOpt(item, key);
  return m ? Object.fromEntries(Object.entries(m).map(([k, v]) => [k, typeof v === 'number' ? String(v) : String(v ?? '')])) : {};
};

export function defaultLimitRange(obj: KObject): void {
  const spec = isRec(obj.spec) ? (obj.spec as Rec) : undefined;
  for (const item of arr(spec, 'limits')) {
    if (item.type !== 'Container') continue;
    const def: Rec = { ...(recOpt(item, 'default') ?? {}) };
    const defReq: Rec = { ...(recOpt(item, 'defaultRequest') ?? {}) };
    for (const [k, v] of Object.entries(recOpt(item, 'max') ?? {})) if (!(k in def)) def[k] = v;
    for (const [k, v] of Object.entries(def)) if (!(k in defReq)) defReq[k] = v;
    for (const [k, v] of Object.entries(recOpt(item, 'min') ?? {})) if (!(k in defReq)) defReq[k] = v;
    // kube makes the maps even when they stay empty; encoding/json drops empty maps (omitempty), so only filled ones are kept.
    if (Object.keys(def).length) item.default = def;
    if (Object.keys(defReq).length) item.defaultRequest = defReq;
  }
}

function validateTypeName(type: string, path: string): ErrorList {
  const errs = isQualifiedName(type).map((m) => invalid(path, type, m));
  if (errs.length) return errs;
  if (!type.includes('/') && !['Pod', 'Container', 'PersistentVolumeClaim'].includes(type)) {
    errs.push(invalid(path, type, 'must be a standard limit type or fully qualified'));
  }
  return errs;
}

const validateName = (type: string, name: string, path: string) =>
  type === 'Pod' || type === 'Container' ? validateContainerResourceName(name, path) : validateResourceName(name, path);

/** Go's %f: six decimals. */
const goFloat = (x: number) => (Number.isFinite(x) ? x.toFixed(6) : x > 0 ? '+Inf' : x < 0 ? '-Inf' : 'NaN');

/** The cross-field rules of one item, for one resource name (kube passes the Quantity structs as bad values). */
function validateBounds(path: string, k: string, raw: { min?: string; max?: string; def?: string; defReq?: string; ratio?: string }): ErrorList {
  const errs: ErrorList = [];
  const gt = (a: string, b: string) => compareQuantities(a, b) > 0;
  const bad = (q: string) => new GoLiteral(goQuantityLiteral(q));
  const c = (q: string | undefined) => (q === undefined ? undefined : canonicalQuantityOrSame(q));
  const [min, max, def, defReq, ratio] = [c(raw.min), c(raw.max), c(raw.def), c(raw.defReq), c(raw.ratio)];
  if (min && max && gt(min, max)) errs.push(invalid(`${path}.min[${k}]`, bad(raw.min!), `min value ${min} is greater than max value ${max}`));
  if (defReq && min && gt(min, defReq)) errs.push(invalid(`${path}.defaultRequest[${k}]`, bad(raw.defReq!), `min value ${min} is greater than default request value ${defReq}`));
  if (defReq && max && gt(defReq, max)) errs.push(invalid(`${path}.defaultRequest[${k}]`, bad(raw.defReq!), `default request value ${defReq} is greater than max value ${max}`));
  if (defReq && def && gt(defReq, def)) errs.push(invalid(`${path}.defaultRequest[${k}]`, bad(raw.defReq!), `default request value ${defReq} is greater than default limit value ${def}`));
  if (def && min && gt(min, def)) errs.push(invalid(`${path}.default[${k}]`, bad(raw.min!), `min value ${min} is greater than default value ${def}`));
  if (def && max && gt(def, max)) errs.push(invalid(`${path}.default[${k}]`, bad(raw.max!), `default value ${def} is greater than max value ${max}`));
  if (ratio && compareQuantities(ratio, '1') < 0) errs.push(invalid(`${path}.maxLimitRequestRatio[${k}]`, bad(raw.ratio!), `ratio ${ratio} is less than 1`));
  if (ratio && min && max) {
    const limit = quantityNumber(max) / quantityNumber(min);
    if (quantityNumber(ratio) > limit) errs.push(invalid(`${path}.maxLimitRequestRatio[${k}]`, bad(raw.ratio!), `ratio ${ratio} is greater than max/min = ${goFloat(limit)}`));
  }
  if (!isOvercommitAllowed(k) && def && defReq && compareQuantities(def, defReq) !== 0) {
    errs.push(invalid(`${path}.defaultRequest[${k}]`, bad(raw.defReq!), `default value ${def} must equal to defaultRequest value ${defReq} in ${k}`));
  }
  return errs;
}

/** A quantity as a float (kube compares the ratio with max/min in milli units, as float64). */
function quantityNumber(q: string): number {
  const m = /^([+-]?[0-9.]+)(.*)$/.exec(q);
  if (!m) return NaN;
  const suffixes: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
  const factor = m[2] in suffixes ? suffixes[m[2]] : /^[eE][-+]?\d+$/.test(m[2]) ? 10 ** Number(m[2].slice(1)) : NaN;
  return Number(m[1]) * factor;
}

export function validateLimitRangeSpec(obj: KObject): ErrorList {
  const errs: ErrorList = [];
  const seenTypes = new Set<string>();
  const spec = isRec(obj.spec) ? (obj.spec as Rec) : undefined;
  arr(spec, 'limits').forEach((item, i) => {
    const path = `spec.limits[${i}]`;
    const type = typeof item.type === 'string' ? item.type : '';
    errs.push(...validateTypeName(type, `${path}.type`));
    if (seenTypes.has(type)) errs.push(duplicate(`${path}.type`, type));
    seenTypes.add(type);
    const max = quantities(item, 'max');
    const min = quantities(item, 'min');
    const def = type === 'Pod' ? {} : quantities(item, 'default');
    const defReq = type === 'Pod' ? {} : quantities(item, 'defaultRequest');
    const ratio = quantities(item, 'maxLimitRequestRatio');
    for (const k of Object.keys(max).sort()) errs.push(...validateName(type, k, `${path}.max[${k}]`));
    for (const k of Object.keys(min).sort()) errs.push(...validateName(type, k, `${path}.min[${k}]`));
    if (type === 'Pod') {
      if (Object.keys(quantities(item, 'default')).length) errs.push(forbidden(`${path}.default`, "may not be specified when `type` is 'Pod'"));
      if (Object.keys(quantities(item, 'defaultRequest')).length) errs.push(forbidden(`${path}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
    } else {
      for (const k of Object.keys(def).sort()) errs.push(...validateName(type, k, `${path}.default[${k}]`));
      for (const k of Object.keys(defReq).sort()) errs.push(...validateName(type, k, `${path}.defaultRequest[${k}]`));
    }
    if (type === 'PersistentVolumeClaim' && !('storage' in min) && !('storage' in max)) {
      errs.push(required(`${path}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
    }
    for (const k of Object.keys(ratio).sort()) errs.push(...validateName(type, k, `${path}.maxLimitRequestRatio[${k}]`));
    const keys = [...new Set([...Object.keys(max), ...Object.keys(min), ...Object.keys(def), ...Object.keys(defReq), ...Object.keys(ratio)])].sort();
    for (const k of keys) errs.push(...validateBounds(path, k, { min: min[k], max: max[k], def: def[k], defReq: defReq[k], ratio: ratio[k] }));
  });
  return errs;
}

export const limitranges: ResourceDef = {
  group: '',
  version: 'v1',
  kind: 'LimitRange',
  listKind: 'LimitRangeList',
  resource: 'limitranges',
  singular: 'limitrange',
  namespaced: true,
  shortNames: ['limits'],
  categories: [],
  verbs: ALL_VERBS,
  storagePrefix: 'limitranges',
  protoType: 'k8s.io.api.core.v1.LimitRange',
  subresources: [],
  strategy: simpleStrategy({ namespaced: true, nameFn: nameIsDNSSubdomain, defaults: defaultLimitRange, validate: validateLimitRangeSpec }),
  table: defaultTable,
  selectableFields: (obj) => metaFields(obj, true),
};

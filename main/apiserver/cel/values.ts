// JSON values in and out of CEL the way kube's unstructured conversion does
// it: a JSON number without a fraction is a CEL int (int64, a BigInt here;
// a JS number would be a CEL double, and `object.spec.replicas % 2` has no
// double overload), other numbers are doubles, objects are maps (a missing
// key is a `no such key` error, `has()` tests presence), arrays are lists.

import { isCelList, isCelMap, isCelUint, type CelInput, type CelValue } from '@bufbuild/cel';

/** Largest list or map seen while converting: the runtime cost bound scales with it. */
export interface ConversionStats {
  maxCollection: number;
}

export function toCel(v: unknown, stats?: ConversionStats): CelInput {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'boolean':
    case 'string':
    case 'bigint':
      return v;
    case 'number':
      return Number.isInteger(v) ? BigInt(v) : v;
    case 'object': {
      if (Array.isArray(v)) {
        if (stats && v.length > stats.maxCollection) stats.maxCollection = v.length;
        return v.map((e) => toCel(e, stats));
      }
      if (v instanceof Uint8Array) return v;
      // Already a CEL map (the authorizer library's values).
      if (v instanceof Map) return v as CelInput;
      // A Map, not a record: the evaluator wraps a Map as is, while it copies
      // a record's entries into a new Map on every field access.
      const out = new Map<string, CelInput>();
      const rec = v as Record<string, unknown>;
      for (const k in rec) {
        const e = rec[k];
        if (e !== undefined && Object.prototype.hasOwnProperty.call(rec, k)) out.set(k, toCel(e, stats));
      }
      if (stats && out.size > stats.maxCollection) stats.maxCollection = out.size;
      return out;
    }
    default:
      return null;
  }
}

/**
 * A CEL result as plain JSON-like JS: ints and uints become numbers when
 * they fit (bigint otherwise), maps become objects, lists arrays; types and
 * messages become their string form.
 */
export function fromCel(v: CelValue): unknown {
  if (v === null || typeof v === 'boolean' || typeof v === 'string' || typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v;
  if (isCelUint(v)) return Number.isSafeInteger(Number(v.value)) ? Number(v.value) : v.value;
  if (v instanceof Uint8Array) return v;
  if (isCelList(v)) return [...v].map(fromCel);
  if (isCelMap(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, e] of v.entries()) out[String(fromCel(k as CelValue))] = fromCel(e);
    return out;
  }
  return String(v);
}

/** cel-go's name of a runtime value's type, for messages ("unsupported return type: int"). */
export function celTypeName(v: CelValue): string {
  if (v === null) return 'null_type';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
    case 'number':
      return 'double';
    case 'bigint':
      return 'int';
  }
  if (isCelUint(v)) return 'uint';
  if (v instanceof Uint8Array) return 'bytes';
  if (isCelList(v)) return 'list';
  if (isCelMap(v)) return 'map';
  const typeName = (v as { desc?: { typeName?: string } }).desc?.typeName;
  return typeName ?? 'type';
}

// JSON values in and out of CEL the way kube's unstructured conversion does
// it: a JSON number without a fraction is a CEL int (int64, a BigInt here;
// a JS number would be a CEL double, and `object.spec.replicas % 2` has no
// double overload), other numbers are doubles, objects are maps (a missing
// key is a `no such key` error, `has()` tests presence), arrays are lists.

import { isCelList, isCelMap, isCelUint, type CelInput, type CelValue } from '@bufbuild/cel';

/**
 * A JSON value as CEL input. Objects become CelRecord maps that convert a
 * field the first time CEL reads it: a policy reading
 * `object.spec.containers` converts that path, not the whole pod (the whole
 * pod, eagerly, was a tenth of what a pod create allocated).
 */
export function toCel(v: unknown): CelInput {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'boolean':
    case 'string':
    case 'bigint':
      return v;
    case 'number':
      return Number.isInteger(v) ? BigInt(v) : v;
    case 'object':
      if (Array.isArray(v)) return v.map(toCel);
      if (v instanceof Uint8Array) return v;
      // Already a CEL map (the authorizer library's values).
      if (v instanceof Map) return v as CelInput;
      return new CelRecord(v as Record<string, unknown>);
    default:
      return null;
  }
}

/**
 * A JSON object as a CEL map. A Map (not a record): @bufbuild/cel wraps a Map
 * as is and reads it through get/has/size/keys/entries/forEach, while it
 * copies a record's entries into a new Map on every field access. Fields
 * whose value is undefined do not exist, as after a JSON round trip. The
 * Map's own storage memoizes the converted fields.
 */
class CelRecord extends Map<string, CelInput> {
  private count = -1;

  constructor(private readonly rec: Record<string, unknown>) {
    super();
  }

  override get(key: string): CelInput | undefined {
    const done = super.get(key);
    if (done !== undefined || super.has(key)) return done;
    if (typeof key !== 'string' || !Object.prototype.hasOwnProperty.call(this.rec, key)) return undefined;
    const raw = this.rec[key];
    if (raw === undefined) return undefined;
    const v = toCel(raw);
    super.set(key, v);
    return v;
  }

  override has(key: string): boolean {
    return typeof key === 'string' && Object.prototype.hasOwnProperty.call(this.rec, key) && this.rec[key] !== undefined;
  }

  override get size(): number {
    if (this.count < 0) {
      this.count = 0;
      for (const _ of this.keys()) this.count++;
    }
    return this.count;
  }

  override *keys(): MapIterator<string> {
    for (const k in this.rec) if (this.has(k)) yield k;
  }

  override *values(): MapIterator<CelInput> {
    for (const k of this.keys()) yield this.get(k)!;
  }

  override *entries(): MapIterator<[string, CelInput]> {
    for (const k of this.keys()) yield [k, this.get(k)!];
  }

  override [Symbol.iterator](): MapIterator<[string, CelInput]> {
    return this.entries();
  }

  override forEach(fn: (value: CelInput, key: string, map: Map<string, CelInput>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }

  override set(): this {
    throw new TypeError('CEL input maps are read-only');
  }

  override delete(): boolean {
    throw new TypeError('CEL input maps are read-only');
  }

  override clear(): void {
    throw new TypeError('CEL input maps are read-only');
  }
}

/**
 * The largest list or map (by defined entries) in a JSON value: the runtime
 * cost bound of an expression with comprehensions scales with it. A walk
 * that allocates nothing, made only when such an expression runs.
 */
export function maxCollectionOf(v: unknown): number {
  if (typeof v !== 'object' || v === null || v instanceof Uint8Array) return 0;
  let max = 0;
  if (Array.isArray(v)) {
    max = v.length;
    for (const e of v) {
      const m = maxCollectionOf(e);
      if (m > max) max = m;
    }
    return max;
  }
  if (v instanceof Map) return v.size;
  let n = 0;
  const rec = v as Record<string, unknown>;
  for (const k in rec) {
    const e = rec[k];
    if (e === undefined || !Object.prototype.hasOwnProperty.call(rec, k)) continue;
    n++;
    const m = maxCollectionOf(e);
    if (m > max) max = m;
  }
  return n > max ? n : max;
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

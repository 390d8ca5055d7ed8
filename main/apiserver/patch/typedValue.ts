// Schema-aware walks over JSON objects, as structured-merge-diff's typed
// package does them for server-side apply and managedFields:
//  - fieldsOf(value)        TypedValue.ToFieldSet: the fields an applied config sets;
//  - compareValues(l, r)    TypedValue.Compare: added / modified / removed paths;
//  - mergeValues(l, r)      TypedValue.Merge: the applied config laid over the live object;
//  - removeItems(v, set)    TypedValue.RemoveItems: drop the subtrees at the set's members;
//  - normalizeTyped(v)      what a round trip through the Go type adds: `{}` for
//                           by-value structs and `null` for non-omitempty nil fields.
// Types come from patchMeta.ts: granular structs and maps (f:), associative
// lists (k: by listMapKeys, v: for sets), and atomic lists/structs/maps,
// which are leaves. Fields we have no metadata for are granular structs if
// they hold an object and leaves otherwise.

import { fieldElement, FieldSet, keyElement, pathString, valueElement, type FieldPath, type PathElement } from './fieldSet';
import { clone, deepEqual, isObject, type JsonObject, type JsonValue } from './jsonValue';
import { fieldMeta, messageFields, type FieldMeta } from './patchMeta';
import { schemaField, schemaFields, zeroJson, type SchemaField } from './schemaTypes';

/** The type of one node. */
export type TypeRef =
  | { kind: 'struct'; message?: string; atomic?: boolean }
  | { kind: 'map'; valueMessage?: string; atomic?: boolean }
  | { kind: 'list'; meta?: FieldMeta }
  | { kind: 'scalar' };

export function rootType(message: string | undefined): TypeRef {
  return { kind: 'struct', message };
}

/** Defaults of list-map key fields, as the OpenAPI schema declares them (+default). */
const KEY_DEFAULTS: Record<string, JsonValue> = { protocol: 'TCP' };

function typeFromMeta(meta: FieldMeta | undefined, v: JsonValue | undefined): TypeRef {
  if (!meta) return byValue(undefined, v);
  if (meta.kind === 'struct') return { kind: 'struct', message: meta.type, atomic: meta.atomic };
  if (meta.kind === 'map') return { kind: 'map', valueMessage: meta.type, atomic: meta.atomic };
  if (meta.kind === 'scalar') return { kind: 'scalar' };
  return { kind: 'list', meta };
}

function byValue(message: string | undefined, v: JsonValue | undefined): TypeRef {
  if (isObject(v)) return { kind: 'struct', message };
  if (Array.isArray(v)) return { kind: 'list' };
  return message ? { kind: 'struct', message } : { kind: 'scalar' };
}

/** A field patchMeta does not list, typed from the Go schema: lists without tags are atomic. */
function typeFromSchema(f: SchemaField, v: JsonValue | undefined): TypeRef {
  const ty = f.type;
  if (ty.kind === 'object') return { kind: 'struct', message: ty.message };
  if (ty.kind === 'map') return { kind: 'map', valueMessage: ty.value.kind === 'object' ? ty.value.message : undefined };
  if (ty.kind === 'array') return { kind: 'list', meta: { kind: 'list', type: ty.items.kind === 'object' ? ty.items.message : undefined, listType: 'atomic' } };
  if (ty.kind === 'rawExtension') return isObject(v) ? { kind: 'struct', atomic: true } : { kind: 'scalar' };
  return { kind: 'scalar' };
}

/** The type of `parent[key]` (struct field or map value). */
function childType(t: TypeRef, key: string, v: JsonValue | undefined): TypeRef {
  if (t.kind === 'struct') {
    const meta = fieldMeta(t.message, key);
    if (meta) return typeFromMeta(meta, v);
    const f = schemaField(t.message, key);
    if (f) return typeFromSchema(f, v);
    return byValue(undefined, v);
  }
  if (t.kind === 'map') return byValue(t.valueMessage, v);
  return byValue(undefined, v);
}

function elementType(t: TypeRef & { kind: 'list' }, v: JsonValue | undefined): TypeRef {
  return byValue(t.meta?.type, v);
}

/** Whether a list's items are addressed individually (map or set), as opposed to atomic. */
function associative(t: TypeRef & { kind: 'list' }): 'map' | 'set' | undefined {
  const lt = t.meta?.listType;
  return lt === 'map' || lt === 'set' ? lt : undefined;
}

/** The path element of one item of an associative list. */
export function listItemElement(t: TypeRef & { kind: 'list' }, item: JsonValue): PathElement {
  if (associative(t) === 'set') return valueElement(item);
  const key: Record<string, JsonValue> = {};
  for (const k of t.meta?.listMapKeys ?? []) {
    if (isObject(item) && item[k] !== undefined) key[k] = item[k];
    else if (KEY_DEFAULTS[k] !== undefined) key[k] = KEY_DEFAULTS[k];
  }
  return keyElement(key);
}

function isLeaf(t: TypeRef, v: JsonValue | undefined): boolean {
  if (t.kind === 'scalar') return true;
  if (t.kind === 'list') return !associative(t) || (v !== undefined && v !== null && !Array.isArray(v));
  return t.atomic === true || (v !== undefined && v !== null && !isObject(v));
}

function isEmptyish(v: JsonValue | undefined): boolean {
  return v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
}

// ---- validation of an applied config -----------------------------------------------

/**
 * The list-item errors SMD's validating walk reports for an object that must
 * not hold duplicates (an applied config), each as `<path>: <message>`:
 * missing list-map keys, null or non-map items, duplicate keys.
 */
export function listItemErrors(value: JsonValue, t: TypeRef): string[] {
  const errs: string[] = [];
  const walk = (v: JsonValue, ty: TypeRef, path: FieldPath) => {
    if (isLeaf(ty, v) || v === null) return;
    if (ty.kind === 'list') {
      const kind = associative(ty);
      const seen = new Set<PathElement>();
      const at = pathString(path);
      for (const [i, item] of (v as JsonValue[]).entries()) {
        const bad = itemError(ty, kind!, item);
        if (bad) {
          errs.push(`${at}: element ${i}: ${bad}`);
          return;
        }
        const pe = listItemElement(ty, item);
        if (seen.has(pe)) errs.push(`${at}: duplicate entries for key ${pathString([pe])}`);
        seen.add(pe);
        walk(item, elementType(ty, item), [...path, pe]);
      }
      return;
    }
    for (const k of Object.keys(v as JsonObject).sort()) {
      const x = (v as JsonObject)[k];
      walk(x, childType(ty, k, x), [...path, fieldElement(k)]);
    }
  };
  walk(value, t, []);
  return errs;
}

function itemError(t: TypeRef & { kind: 'list' }, kind: 'map' | 'set', item: JsonValue): string | undefined {
  if (kind === 'set') {
    if (isObject(item)) return "associative list without keys has an element that's a map type";
    if (Array.isArray(item)) return "associative list without keys has an element that's a list type";
    return undefined;
  }
  if (item === null) return 'associative list with keys may not have a null element';
  if (!isObject(item)) return 'associative list with keys may not have non-map elements';
  for (const k of t.meta?.listMapKeys ?? []) {
    if (item[k] === undefined && KEY_DEFAULTS[k] === undefined) return `associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`;
  }
  return undefined;
}

// ---- ToFieldSet --------------------------------------------------------------

/** The set of fields `value` sets (members: leaves, list items, map entries). */
export function fieldsOf(value: JsonValue, t: TypeRef): FieldSet {
  const set = new FieldSet();
  const walk = (v: JsonValue, ty: TypeRef, path: FieldPath) => {
    if (isLeaf(ty, v)) {
      if (path.length > 0) set.insert(path);
      return;
    }
    if (v === null) return; // a null map/struct/list sets nothing
    if (ty.kind === 'list') {
      for (const item of v as JsonValue[]) {
        const p = [...path, listItemElement(ty, item)];
        walk(item, elementType(ty, item), p);
        set.insert(p);
      }
      return;
    }
    for (const [k, x] of Object.entries(v as JsonObject)) {
      const p = [...path, fieldElement(k)];
      walk(x, childType(ty, k, x), p);
      if (ty.kind === 'map') set.insert(p);
    }
  };
  walk(value, t, []);
  return set;
}

// ---- Compare -------------------------------------------------------------------

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** What changed from `lhs` to `rhs` (both normalized by the caller when they stand for typed objects). */
export function compareValues(lhs: JsonValue, rhs: JsonValue, t: TypeRef): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  const rule = (l: JsonValue | undefined, r: JsonValue | undefined, path: FieldPath) => {
    if (path.length === 0) return;
    if (l === undefined) c.added.insert(path);
    else if (r === undefined) c.removed.insert(path);
    else if (!deepEqual(l, r)) c.modified.insert(path);
  };
  const walk = (l: JsonValue | undefined, r: JsonValue | undefined, ty: TypeRef, path: FieldPath) => {
    if (isLeaf(ty, l) || isLeaf(ty, r) || (isEmptyish(l) && isEmptyish(r))) {
      rule(l, r, path);
      return;
    }
    if (ty.kind === 'list') {
      const li = indexItems(ty, l);
      const ri = indexItems(ty, r);
      for (const pe of unionKeys(li, ri)) {
        const lv = li.get(pe);
        const rv = ri.get(pe);
        walk(lv, rv, elementType(ty, rv ?? lv), [...path, pe]);
      }
    } else {
      const lo = isObject(l) ? l : {};
      const ro = isObject(r) ? r : {};
      for (const k of unionKeys(new Map(Object.entries(lo)), new Map(Object.entries(ro)))) {
        walk(lo[k], ro[k], childType(ty, k, ro[k] ?? lo[k]), [...path, fieldElement(k)]);
      }
    }
    if (path.length > 0) {
      if (l === undefined) c.added.insert(path);
      else if (r === undefined) c.removed.insert(path);
    }
  };
  walk(lhs, rhs, t, []);
  return c;
}

function indexItems(t: TypeRef & { kind: 'list' }, v: JsonValue | undefined): Map<PathElement, JsonValue> {
  const m = new Map<PathElement, JsonValue>();
  if (Array.isArray(v)) for (const item of v) if (!m.has(listItemElement(t, item))) m.set(listItemElement(t, item), item);
  return m;
}

function unionKeys<K>(a: Map<K, unknown>, b: Map<K, unknown>): K[] {
  const out = [...a.keys()];
  for (const k of b.keys()) if (!a.has(k)) out.push(k);
  return out;
}

// ---- Merge ---------------------------------------------------------------------

/** `rhs` (an applied config) laid over `lhs` (the live object): a new value. */
export function mergeValues(lhs: JsonValue | undefined, rhs: JsonValue | undefined, t: TypeRef): JsonValue | undefined {
  if (rhs === undefined) return clone(lhs);
  if (lhs === undefined) return clone(rhs);
  if (isLeaf(t, lhs) || isLeaf(t, rhs) || (isEmptyish(lhs) && isEmptyish(rhs))) return clone(rhs);
  if (t.kind === 'list') return mergeLists(Array.isArray(lhs) ? lhs : [], Array.isArray(rhs) ? rhs : [], t);
  const lo = isObject(lhs) ? lhs : {};
  const ro = isObject(rhs) ? rhs : {};
  const out: JsonObject = {};
  for (const k of unionKeys(new Map(Object.entries(lo)), new Map(Object.entries(ro)))) {
    const v = mergeValues(lo[k], ro[k], childType(t, k, ro[k] ?? lo[k]));
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/**
 * Associative lists: items matched by key; the config's order wins for the
 * items it names, live-only items keep their place (SMD visitListItems).
 */
function mergeLists(lhs: JsonValue[], rhs: JsonValue[], t: TypeRef & { kind: 'list' }): JsonValue[] {
  const lOrder = uniqueElements(lhs, t);
  const rOrder = uniqueElements(rhs, t);
  const lBy = new Map(lOrder);
  const rBy = new Map(rOrder);
  const shared = rOrder.map(([pe]) => pe).filter((pe) => lBy.has(pe));
  let s = 0; // shared[s] is the next shared item, in the config's order
  const out: JsonValue[] = [];
  const emit = (pe: PathElement) => {
    const v = mergeValues(lBy.get(pe), rBy.get(pe), elementType(t, rBy.get(pe) ?? lBy.get(pe)));
    if (v !== undefined) out.push(v);
  };
  let li = 0;
  let ri = 0;
  while (li < lOrder.length || ri < rOrder.length) {
    if (li < lOrder.length && ri < rOrder.length) {
      const pe = lOrder[li][0];
      if (pe === rOrder[ri][0]) {
        emit(pe);
        li++;
        ri++;
        s++;
        continue;
      }
      if (rBy.has(pe) && s < shared.length && shared[s] !== pe) {
        li++; // shared, but not the one due now: the config's order places it
        continue;
      }
    }
    if (li < lOrder.length && !rBy.has(lOrder[li][0])) {
      emit(lOrder[li][0]); // live-only item keeps its place
      li++;
      continue;
    }
    if (ri < rOrder.length) {
      const pe = rOrder[ri][0];
      emit(pe);
      ri++;
      if (shared[s] === pe) s++;
    } else {
      li++; // only shared live items remain, all already emitted
    }
  }
  return out;
}

/** Items by path element, first occurrence wins (duplicates dropped, as indexListPathElements). */
function uniqueElements(list: JsonValue[], t: TypeRef & { kind: 'list' }): [PathElement, JsonValue][] {
  const seen = new Set<PathElement>();
  const out: [PathElement, JsonValue][] = [];
  for (const item of list) {
    const pe = listItemElement(t, item);
    if (seen.has(pe)) continue;
    seen.add(pe);
    out.push([pe, item]);
  }
  return out;
}

// ---- RemoveItems ---------------------------------------------------------------

/** A copy of `v` without the subtrees whose paths are members of `set`. */
export function removeItems(v: JsonValue, set: FieldSet, t: TypeRef): JsonValue {
  const walk = (x: JsonValue, node: FieldSet, ty: TypeRef): JsonValue => {
    if (isLeaf(ty, x) || x === null) return x;
    if (ty.kind === 'list') {
      const out: JsonValue[] = [];
      for (const item of x as JsonValue[]) {
        const child = node.node([listItemElement(ty, item)]);
        if (child?.member) continue;
        out.push(child ? walk(item, child, elementType(ty, item)) : item);
      }
      return out;
    }
    const out: JsonObject = {};
    for (const [k, val] of Object.entries(x as JsonObject)) {
      const child = node.node([fieldElement(k)]);
      if (child?.member) continue;
      out[k] = child ? walk(val, child, childType(ty, k, val)) : val;
    }
    return out;
  };
  return walk(clone(v), set, t);
}

// ---- typed round trip ----------------------------------------------------------

/** Adds what decoding into the Go type and encoding again would add: `{}` by-value structs, `null` non-omitempty fields. */
export function normalizeTyped(v: JsonValue, t: TypeRef): JsonValue {
  const walk = (x: JsonValue, ty: TypeRef): JsonValue => {
    if (ty.kind === 'list' && Array.isArray(x)) return x.map((item) => walk(item, elementType(ty, item)));
    if (!isObject(x) || ty.kind === 'scalar' || ty.kind === 'list') return x;
    const out: JsonObject = {};
    for (const [k, val] of Object.entries(x)) out[k] = walk(val, childType(ty, k, val));
    if (ty.kind === 'struct' && ty.message) {
      const fields = schemaFields(ty.message);
      if (fields) {
        for (const [k, f] of fields) {
          if (out[k] !== undefined) continue;
          const zero = zeroJson(f);
          if (zero !== undefined) out[k] = zero === null ? null : walk({}, childType(ty, k, {}));
        }
      } else {
        for (const [k, meta] of Object.entries(messageFields(ty.message) ?? {})) {
          if (out[k] !== undefined) continue;
          if (meta.value) out[k] = walk({}, typeFromMeta(meta, {}));
          else if (meta.zeroNull) out[k] = null;
        }
      }
    }
    return out;
  };
  return walk(clone(v), t);
}

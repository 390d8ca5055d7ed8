// Strategic merge patch (Content-Type application/strategic-merge-patch+json)
// applied to an object of a known type, as kube-apiserver does with
// k8s.io/apimachinery/pkg/util/strategicpatch (mergeMap with
// MergeParallelList and IgnoreUnmatchedNulls, the server-side options):
//  - objects merge key by key; `null` deletes the key;
//  - lists whose field has patchStrategy=merge merge by patchMergeKey
//    (containers by name, ports by containerPort, ...); merge lists of
//    scalars (finalizers) merge as sets; all other lists are replaced whole;
//  - directives: `$patch: replace|delete` in a map, `$patch: delete|replace`
//    as a list element, `$retainKeys`, `$setElementOrder/<field>`,
//    `$deleteFromPrimitiveList/<field>`;
//  - values copied in from the patch lose their `$patch` maps and nulls.
// Field metadata comes from patchMeta.ts, keyed by protobuf message name.
//
// How the PATCH handler (endpoints/patch.ts) calls it:
//   const patched = strategicMergePatch(current, body, messageForKind('apps/v1', 'Deployment'), { strict });
// Errors (patch.go strategicPatchObject + interpretStrategicMergePatchError):
//  - body not a JSON object → 400 BadRequest with Go's decode text;
//  - malformed directives → 400 BadRequest ("invalid patch format of
//    retainKeys", "invalid patch format of setElementOrder list",
//    "invalid patch format of primitive list");
//  - lists of lists → 422 generic ("the server rejected our request due to an
//    error in our request");
//  - anything else the library rejects (an element without its merge key,
//    an unknown $patch value, mixed element types) → 500 with an empty reason
//    and the library's text as the message, e.g.
//    `map: map[image:nginx] does not contain declared merge key: name`.
// The caller then decodes the result into the type; unknown fields there are
// the decoder's business (kube: 422 on field "patch" when strict).

import { failure } from '../api/status';
import { clone, goFormat, goJsonKind, isObject, parseJsonBody, type JsonObject, type JsonValue } from './jsonValue';
import { fieldMeta, mergeStrategy, type FieldMeta } from './patchMeta';
import {
  dedupeScalars,
  DIRECTIVE,
  extractToDeleteItems,
  goType,
  noMergeKey,
  normalizeElementOrder,
  partitionMaps,
  partitionPrimitives,
  sliceElementType,
  SMP_ERRORS,
  StrategicMergeError,
  strategicMergeStatus,
  typeTag,
} from './strategicMergeOrder';

export { SMP_ERRORS, StrategicMergeError, strategicMergeStatus } from './strategicMergeOrder';
const RETAIN_KEYS = '$retainKeys';
const SET_ORDER = '$setElementOrder';
const DELETE_PRIMITIVE = '$deleteFromPrimitiveList';

export interface StrategicMergeOptions {
  /** fieldValidation=Strict or Warn (kubectl sends Strict). Only changes how a bad body is reported. */
  strict?: boolean;
}

/** Parses the body and applies it to a copy of `current` (an object of type `message`). */
export function strategicMergePatch<T>(current: T, body: string | Uint8Array, message: string | undefined, _options: StrategicMergeOptions = {}): T {
  const parsed = parseJsonBody(body);
  if (!parsed.ok) throw failure(400, 'BadRequest', parsed.error);
  const patch = parsed.value;
  if (patch !== null && !isObject(patch)) {
    throw failure(400, 'BadRequest', `json: cannot unmarshal ${goJsonKind(patch)} into Go value of type map[string]interface {}`);
  }
  return applyStrategicMerge(current as unknown as JsonObject, patch ?? {}, message) as unknown as T;
}

/** Applies a parsed patch; returns a new object. Throws StatusError. */
export function applyStrategicMerge(current: JsonObject, patch: JsonObject, message: string | undefined): JsonObject {
  try {
    return stripDirectiveKeys(mergeMap(clone(current), clone(patch), { message })) as JsonObject;
  } catch (e) {
    if (e instanceof StrategicMergeError) throw strategicMergeStatus(e);
    throw e;
  }
}

/** Where we are in the type: inside a struct of `message`, or inside a map whose values are `mapValue`. */
interface Ctx {
  message?: string;
  inMap?: boolean;
}

interface Lookup {
  meta: FieldMeta | undefined;
  child: Ctx;
}

function lookup(ctx: Ctx, key: string): Lookup {
  if (ctx.inMap) return { meta: undefined, child: { message: ctx.message } };
  const meta = fieldMeta(ctx.message, key);
  if (meta?.kind === 'map') return { meta, child: { message: meta.type, inMap: true } };
  return { meta, child: { message: meta?.type } };
}

function mergeMap(original: JsonObject | null, patch: JsonObject, ctx: Ctx): JsonObject {
  if (Object.prototype.hasOwnProperty.call(patch, DIRECTIVE)) return directiveInMap(patch[DIRECTIVE], patch);
  const out = original ?? {};
  applyRetainKeys(out, patch);
  mergeSetElementOrder(out, patch, ctx);

  for (const rawKey of Object.keys(patch)) {
    const patchV = patch[rawKey];
    let key = rawKey;
    let isDeleteList = false;
    if (rawKey.startsWith(DELETE_PRIMITIVE)) {
      key = extractKey(rawKey, DELETE_PRIMITIVE);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete out[key];
      continue; // IgnoreUnmatchedNulls
    }
    if (!Object.prototype.hasOwnProperty.call(out, key) || typeTag(out[key]) !== typeTag(patchV)) {
      if (!isDeleteList) {
        const v = removeDirectives(discardNulls(patchV));
        if (v === undefined) delete out[key];
        else out[key] = v;
      }
      continue;
    }
    const orig = out[key];
    const { meta, child } = lookup(ctx, key);
    if (isObject(orig) && isObject(patchV)) {
      out[key] = mergeStrategy(meta) === 'replace' ? patchV : mergeMap(orig, patchV, child);
    } else if (Array.isArray(orig) && Array.isArray(patchV)) {
      out[key] = mergeStrategy(meta) === 'merge' ? mergeSlice(orig, patchV, child, meta?.patchMergeKey ?? '', isDeleteList) : patchV;
    } else {
      const v = removeDirectives(patchV);
      if (v === undefined) delete out[key];
      else out[key] = v;
    }
  }
  return out;
}

function directiveInMap(directive: JsonValue, patch: JsonObject): JsonObject {
  if (directive === 'replace') {
    delete patch[DIRECTIVE];
    return patch;
  }
  if (directive === 'delete') return {};
  throw new StrategicMergeError(`unknown patch type: ${goFormat(directive)} in map: ${goFormat(patch)}`);
}

function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf('/');
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    if (prefix === DELETE_PRIMITIVE) throw new StrategicMergeError(SMP_ERRORS.badPrimitiveList);
    if (prefix === SET_ORDER) throw new StrategicMergeError(SMP_ERRORS.badSetElementOrder);
    throw new StrategicMergeError(`fail to find unknown prefix "${prefix}" in ${s}`);
  }
  return s.slice(slash + 1);
}

/** $retainKeys: drop keys of the original not listed; the patch may only set listed keys. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.prototype.hasOwnProperty.call(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw new StrategicMergeError(SMP_ERRORS.badRetainKeys);
  const keep = new Set(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_PRIMITIVE) || k.startsWith(SET_ORDER)) continue;
    if (!keep.has(k)) throw new StrategicMergeError(SMP_ERRORS.badRetainKeys);
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/** $setElementOrder/<field>: merge that list now and order it as the directive says. */
function mergeSetElementOrder(original: JsonObject, patch: JsonObject, ctx: Ctx): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw new StrategicMergeError(`expected a []interface {}, but received a ${goType(order)}`);
    const field = extractKey(key, SET_ORDER);
    const hasOrig = Object.prototype.hasOwnProperty.call(original, field);
    const hasPatch = Object.prototype.hasOwnProperty.call(patch, field);
    const origList = hasOrig ? original[field] : undefined;
    const patchList = hasPatch ? patch[field] : undefined;
    if (hasOrig && !Array.isArray(origList)) throw new StrategicMergeError(`expected a []interface {}, but received a ${goType(origList)}`);
    if (hasPatch && !Array.isArray(patchList)) throw new StrategicMergeError(`expected a []interface {}, but received a ${goType(patchList)}`);
    const origArr = (origList ?? []) as JsonValue[];
    const patchArr = (patchList ?? []) as JsonValue[];
    const { meta, child } = lookup(ctx, field);
    const mergeKey = meta?.patchMergeKey ?? '';
    validatePatchWithSetOrderList(patchArr, order, mergeKey);

    let merged: JsonValue[];
    if (hasOrig && !hasPatch) merged = origArr;
    else if (!hasOrig && hasPatch) merged = removeDirectives(patchArr) as JsonValue[];
    else if (hasOrig && hasPatch) merged = mergeStrategy(meta) === 'merge' ? mergeSlice(origArr, patchArr, child, mergeKey, false) : patchArr;
    else continue;

    const [patchItems, serverOnly] = mergeKey ? partitionMaps(merged, order, mergeKey) : partitionPrimitives(merged, order);
    const kind = sliceElementType(origArr, patchArr);
    original[field] = normalizeElementOrder(patchItems, serverOnly, order, origArr, mergeKey, kind);
    delete patch[field];
  }
}

function validatePatchWithSetOrderList(patchList: JsonValue[], order: JsonValue[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey ? extractToDeleteItems(patchList)[0] : patchList;
  let p = 0;
  let s = 0;
  while (p < nonDelete.length && s < order.length) {
    if (isObject(nonDelete[p]) && Object.prototype.hasOwnProperty.call(nonDelete[p], DIRECTIVE)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(nonDelete[p], order[s], mergeKey)) p++;
    s++;
  }
  if (p < nonDelete.length && s >= order.length) {
    throw new StrategicMergeError(`the order in patch list:\n${goFormat(patchList)}\n doesn't match ${SET_ORDER} list:\n${goFormat(order)}`);
  }
}

function mergeKeyValueEqual(left: JsonValue, right: JsonValue, mergeKey: string): boolean {
  if (!mergeKey) return left === right;
  if (!isObject(left)) throw new StrategicMergeError(`expected a map[string]interface {}, but received a ${goType(left)}`);
  if (!isObject(right)) throw new StrategicMergeError(`expected a map[string]interface {}, but received a ${goType(right)}`);
  if (!(mergeKey in left)) throw noMergeKey(left, mergeKey);
  if (!(mergeKey in right)) throw noMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

function mergeSlice(original: JsonValue[], patch: JsonValue[], elem: Ctx, mergeKey: string, isDeleteList: boolean): JsonValue[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementType(original, patch);
  let merged: JsonValue[];
  let orig = original;
  let patchItems = patch;
  if (kind !== 'map') {
    if (isDeleteList) {
      const del = new Set(patch);
      return original.filter((v) => !del.has(v));
    }
    merged = dedupeScalars([...original, ...patch]);
  } else {
    if (!mergeKey) throw new StrategicMergeError(`cannot merge lists without merge key for ${elem.message ?? 'unknown'}`);
    [orig, patchItems] = mergeSliceWithSpecialElements(original, patch, mergeKey);
    merged = mergeSliceWithoutSpecialElements(orig, patchItems, mergeKey, elem);
  }
  const [inPatch, serverOnly] = mergeKey ? partitionMaps(merged, patchItems, mergeKey) : partitionPrimitives(merged, patchItems);
  return normalizeElementOrder(inPatch, serverOnly, patchItems, orig, mergeKey, kind);
}

/** Handles `$patch` elements: delete by merge key, or replace the whole list. */
function mergeSliceWithSpecialElements(original: JsonValue[], patch: JsonValue[], mergeKey: string): [JsonValue[], JsonValue[]] {
  const plain: JsonValue[] = [];
  let replace = false;
  let orig = original;
  for (const v of patch) {
    const m = v as JsonObject;
    if (!Object.prototype.hasOwnProperty.call(m, DIRECTIVE)) {
      plain.push(v);
      continue;
    }
    const directive = m[DIRECTIVE];
    if (directive === 'delete') {
      if (!Object.prototype.hasOwnProperty.call(m, mergeKey)) throw noMergeKey(m, mergeKey);
      orig = orig.filter((o) => !(isObject(o) && o[mergeKey] === m[mergeKey]));
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw new StrategicMergeError('merging lists cannot yet be specified in the patch');
    } else {
      throw new StrategicMergeError(`unknown patch type: ${goFormat(directive)} in map: ${goFormat(m)}`);
    }
  }
  return replace ? [plain, []] : [orig, plain];
}

function mergeSliceWithoutSpecialElements(original: JsonValue[], patch: JsonValue[], mergeKey: string, elem: Ctx): JsonValue[] {
  const out = [...original];
  for (const v of patch) {
    const m = v as JsonObject;
    if (!Object.prototype.hasOwnProperty.call(m, mergeKey)) throw noMergeKey(m, mergeKey);
    const i = out.findIndex((o) => {
      if (!isObject(o)) throw new StrategicMergeError(`value for key ${out.indexOf(o)} is not a map.`);
      return Object.prototype.hasOwnProperty.call(o, mergeKey) && o[mergeKey] === m[mergeKey];
    });
    if (i >= 0) out[i] = mergeMap(out[i] as JsonObject, m, elem);
    else out.push(v);
  }
  return out;
}

/** Drops null members everywhere in a value taken from the patch (IgnoreUnmatchedNulls). */
function discardNulls(v: JsonValue): JsonValue {
  if (Array.isArray(v)) v.forEach(discardNulls);
  else if (isObject(v)) for (const [k, x] of Object.entries(v)) x === null ? delete v[k] : discardNulls(x);
  return v;
}

/** Drops maps carrying `$patch` (undefined: drop this value itself). */
function removeDirectives(v: JsonValue): JsonValue | undefined {
  if (isObject(v)) {
    if (Object.prototype.hasOwnProperty.call(v, DIRECTIVE)) return undefined;
    for (const [k, x] of Object.entries(v)) {
      const r = removeDirectives(x);
      if (r === undefined) delete v[k];
      else v[k] = r;
    }
    return v;
  }
  if (Array.isArray(v)) return v.map(removeDirectives).filter((x): x is JsonValue => x !== undefined);
  return v;
}

/**
 * Drops members whose names start with '$' (directives left inside values
 * copied from the patch): kube decodes the result into a Go struct, which has
 * no such fields, so they never reach storage.
 */
function stripDirectiveKeys(v: JsonValue): JsonValue {
  if (Array.isArray(v)) v.forEach(stripDirectiveKeys);
  else if (isObject(v)) for (const [k, x] of Object.entries(v)) k.startsWith('$') ? delete v[k] : stripDirectiveKeys(x);
  return v;
}

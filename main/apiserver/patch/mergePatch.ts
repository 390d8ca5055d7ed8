// RFC 7386 JSON merge patch (Content-Type application/merge-patch+json), as
// kube-apiserver applies it with evanphx/json-patch's MergePatch:
//  - a member set to null is deleted; objects merge recursively; anything
//    else (arrays included) replaces the old value whole;
//  - nulls inside a value that is copied in are pruned, also inside arrays;
//  - a patch that is a JSON array replaces the whole document (which then
//    fails to decode; the caller reports patchDecodeInvalid);
//  - `{}` changes nothing.
//
// How the PATCH handler (endpoints/patch.ts) calls it: `const patched = mergePatch(current, body, { strict })`
// where strict is fieldValidation Strict or Warn (kubectl sends Strict).
// Errors (patch.go applyJSPatch):
//  - strict and the body is not a JSON object → 400 "error decoding patch: <Go json error>";
//  - body not JSON, `null`, or a scalar → 400 "Invalid JSON Patch".
// The result is a new value; `current` is not modified.

import { failure } from '../api/status';
import { clone, goJsonKind, isObject, parseJsonBody, type JsonObject, type JsonValue } from './jsonValue';

export interface MergePatchOptions {
  /** fieldValidation=Strict or Warn: the body is first decoded strictly into an object. */
  strict?: boolean;
}

export function mergePatch<T>(current: T, body: string | Uint8Array, options: MergePatchOptions = {}): T | JsonValue[] {
  const parsed = parseJsonBody(body);
  if (options.strict) {
    if (!parsed.ok) throw failure(400, 'BadRequest', `error decoding patch: ${parsed.error}`);
    if (parsed.value !== null && !isObject(parsed.value)) {
      throw failure(400, 'BadRequest', `error decoding patch: json: cannot unmarshal ${goJsonKind(parsed.value)} into Go value of type map[string]interface {}`);
    }
  }
  if (!parsed.ok || parsed.value === null) throw failure(400, 'BadRequest', 'Invalid JSON Patch');
  const patch = parsed.value;
  if (Array.isArray(patch)) return pruneNulls(clone(patch)) as JsonValue[];
  if (!isObject(patch)) throw failure(400, 'BadRequest', 'Invalid JSON Patch');
  return applyMergePatch(current as unknown as JsonValue, patch) as unknown as T;
}

/** The merge itself, on parsed values: returns a new value. */
export function applyMergePatch(current: JsonValue, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return pruneNulls(clone(patch));
  const out: JsonObject = isObject(current) ? clone(current) : {};
  mergeInto(out, patch);
  return out;
}

function mergeInto(doc: JsonObject, patch: JsonObject): void {
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) {
      delete doc[k];
      continue;
    }
    const cur = doc[k];
    if (cur === undefined || cur === null || !isObject(cur)) {
      doc[k] = pruneNulls(clone(v));
    } else if (!isObject(v)) {
      doc[k] = clone(v);
    } else {
      mergeInto(cur, v);
    }
  }
}

/** Removes null members from objects, recursively, also within arrays (null array elements stay). */
export function pruneNulls(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map((x) => (x === null ? x : pruneNulls(x)));
  if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (x === null) delete v[k];
      else v[k] = pruneNulls(x);
    }
  }
  return v;
}

// RFC 6902 JSON patch (Content-Type application/json-patch+json), applied as
// kube-apiserver applies it with gopkg.in/evanphx/json-patch.v4:
//  - negative array indices count from the end (SupportNegativeIndices);
//  - the root path "" works only for `test` and `replace` (a scalar
//    replacement is ignored, as v4 does); add/remove/move/copy there fail;
//  - `test` of a missing member against null passes;
//  - `remove` of a missing member fails.
//
// How the PATCH handler (endpoints/patch.ts) calls it:
//   const ops = decodeJsonPatch(body);          // throws 400 BadRequest / 413
//   const patched = applyJsonPatch(current, ops); // throws 422 (see below)
// or both at once: jsonPatch(current, body).
//
// Errors, as patch.go produces them:
//  - body not a JSON array of objects → 400 BadRequest, Go's decode text
//    ("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
//  - more than 10000 operations → 413 "Request entity too large: The allowed
//    maximum operations in a JSON patch is 10000, got N";
//  - any failure while applying (failed test, missing path, bad index,
//    unknown op) → 422 Invalid with the generic text "the server rejected our
//    request due to an error in our request" and empty details: kube wraps
//    the library error with NewGenericServerResponse and drops its text.
//    The library's own text stays on JsonPatchError.detail for logs/traces.

import { failure, StatusError } from '../api/status';
import { clone, deepEqual, goJsonKind, isObject, parseJsonBody, type JsonObject, type JsonValue } from './jsonValue';

export const MAX_JSON_PATCH_OPERATIONS = 10000;

export interface JsonPatchOp {
  op: string;
  path?: string;
  from?: string;
  value?: JsonValue;
  /** Whether the op object carried a "value" member at all. */
  hasValue: boolean;
}

/** A failure inside the patch library; converted to kube's 422 at the boundary. */
export class JsonPatchError extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'JsonPatchError';
  }
}

/** 422 exactly as NewGenericServerResponse(422, "", {}, "", msg, 0, false) renders it. */
export function jsonPatchApplyFailed(): StatusError {
  return failure(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
}

/** Decodes the request body into operations (jsonpatch.DecodePatch). */
export function decodeJsonPatch(body: string | Uint8Array): JsonPatchOp[] {
  const parsed = parseJsonBody(body);
  if (!parsed.ok) throw failure(400, 'BadRequest', parsed.error);
  const v = parsed.value;
  if (v === null) return [];
  if (!Array.isArray(v)) throw failure(400, 'BadRequest', `json: cannot unmarshal ${goJsonKind(v)} into Go value of type jsonpatch.Patch`);
  const ops: JsonPatchOp[] = [];
  for (const item of v) {
    if (item !== null && !isObject(item)) {
      throw failure(400, 'BadRequest', `json: cannot unmarshal ${goJsonKind(item)} into Go value of type jsonpatch.Operation`);
    }
    const o = item ?? {};
    ops.push({
      op: typeof o.op === 'string' ? o.op : 'unknown',
      path: typeof o.path === 'string' ? o.path : undefined,
      from: typeof o.from === 'string' ? o.from : undefined,
      value: o.value,
      hasValue: Object.prototype.hasOwnProperty.call(o, 'value'),
    });
  }
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw failure(413, 'RequestEntityTooLarge', `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`);
  }
  return ops;
}

/** Applies decoded operations to a copy of `doc`; throws kube's 422 on failure. */
export function applyJsonPatch<T>(doc: T, ops: JsonPatchOp[]): T {
  try {
    return applyJsonPatchOps(doc as unknown as JsonValue, ops) as unknown as T;
  } catch (e) {
    if (e instanceof JsonPatchError) throw jsonPatchApplyFailed();
    throw e;
  }
}

/** decodeJsonPatch + applyJsonPatch. */
export function jsonPatch<T>(doc: T, body: string | Uint8Array): T {
  return applyJsonPatch(doc, decodeJsonPatch(body));
}

/** The library level: throws JsonPatchError with evanphx's wording. */
export function applyJsonPatchOps(doc: JsonValue, ops: JsonPatchOp[]): JsonValue {
  return applyJsonPatchOpsInPlace(clone(doc), ops);
}

/** applyJsonPatchOps on doc itself (the result is doc, or a new root for a root replace); values are taken as they are, not copied. */
export function applyJsonPatchOpsInPlace(doc: JsonValue, ops: JsonPatchOp[]): JsonValue {
  let out = doc;
  for (const op of ops) out = applyOne(out, op);
  return out;
}

function applyOne(doc: JsonValue, op: JsonPatchOp): JsonValue {
  switch (op.op) {
    case 'add':
      add(doc, requirePath(op), op.value ?? null, 'add');
      return doc;
    case 'remove':
      remove(doc, requirePath(op), 'remove');
      return doc;
    case 'replace':
      if (op.path === '') return replaceRoot(doc, op.value);
      replace(doc, requirePath(op), op.value ?? null);
      return doc;
    case 'move': {
      const from = requireFrom(op, 'move');
      const value = get(doc, from, 'move');
      remove(doc, from, 'move');
      add(doc, requirePath(op), value, 'move');
      return doc;
    }
    case 'copy': {
      const from = requireFrom(op, 'copy');
      add(doc, requirePath(op), clone(get(doc, from, 'copy')), 'copy');
      return doc;
    }
    case 'test':
      test(doc, requirePath(op), op);
      return doc;
    default:
      throw new JsonPatchError(`Unexpected kind: ${op.op}`);
  }
}

function requirePath(op: JsonPatchOp): string {
  if (op.path === undefined) throw new JsonPatchError(`${op.op} operation failed to decode path: operation missing path field: missing value`);
  return op.path;
}

function requireFrom(op: JsonPatchOp, kind: string): string {
  if (op.from === undefined) throw new JsonPatchError(`${kind} operation failed to decode from: operation missing from field: missing value`);
  return op.from;
}

/** RFC 6901 token unescaping: ~1 → /, then ~0 → ~. */
export function decodePointerToken(t: string): string {
  return t.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** RFC 6901 token escaping: ~ → ~0, / → ~1. */
export function encodePointerToken(t: string): string {
  // Most keys need no escaping; the regex replaces would allocate for each.
  if (!t.includes('~') && !t.includes('/')) return t;
  return t.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The container holding the last token, and that token; null when any parent is missing. */
function findContainer(doc: JsonValue, path: string): { container: JsonObject | JsonValue[]; key: string } | null {
  const parts = path.split('/');
  if (parts.length < 2 || parts[0] !== '') return null;
  let cur: JsonValue = doc;
  for (const raw of parts.slice(1, -1)) {
    const key = decodePointerToken(raw);
    if (Array.isArray(cur)) {
      const i = parseIndex(key, cur.length, false);
      if (i === null) return null;
      cur = cur[i];
    } else if (isObject(cur)) {
      if (!Object.prototype.hasOwnProperty.call(cur, key)) return null;
      cur = cur[key];
    } else {
      return null;
    }
  }
  if (!Array.isArray(cur) && !isObject(cur)) return null;
  return { container: cur, key: decodePointerToken(parts[parts.length - 1]) };
}

/** An array index; negative counts from the end. Null when not a valid in-range index. */
function parseIndex(key: string, length: number, forInsert: boolean): number | null {
  if (!/^[-+]?\d+$/.test(key)) return null;
  let i = Number(key);
  // An insert counts from the end of the list as it will be (length + 1): add at -1 appends.
  const size = forInsert ? length + 1 : length;
  if (i < 0) i += size;
  return i < 0 || i >= size ? null : i;
}

function add(doc: JsonValue, path: string, value: JsonValue, kind: string): void {
  const found = findContainer(doc, path);
  if (!found) throw new JsonPatchError(`${kind} operation does not apply: doc is missing path: "${path}": missing value`);
  const { container, key } = found;
  if (Array.isArray(container)) {
    if (key === '-') {
      container.push(value);
      return;
    }
    const i = parseIndex(key, container.length, true);
    if (i === null) throw new JsonPatchError(`Unable to access invalid index: ${key}: invalid index referenced`);
    container.splice(i, 0, value);
    return;
  }
  container[key] = value;
}

function get(doc: JsonValue, path: string, kind: string): JsonValue {
  const found = findContainer(doc, path);
  if (!found) throw new JsonPatchError(`${kind} operation does not apply: doc is missing from path: "${path}": missing value`);
  const { container, key } = found;
  if (Array.isArray(container)) {
    const i = parseIndex(key, container.length, false);
    if (i === null) throw new JsonPatchError(`Unable to access invalid index: ${key}: invalid index referenced`);
    return container[i];
  }
  if (!Object.prototype.hasOwnProperty.call(container, key)) {
    throw new JsonPatchError(`${kind} operation does not apply: doc is missing key: "${path}": missing value`);
  }
  return container[key];
}

function remove(doc: JsonValue, path: string, kind: string): void {
  const found = findContainer(doc, path);
  if (!found) throw new JsonPatchError(`${kind} operation does not apply: doc is missing path: "${path}": missing value`);
  const { container, key } = found;
  if (Array.isArray(container)) {
    const i = parseIndex(key, container.length, false);
    if (i === null) throw new JsonPatchError(`Unable to access invalid index: ${key}: invalid index referenced`);
    container.splice(i, 1);
    return;
  }
  if (!Object.prototype.hasOwnProperty.call(container, key)) {
    throw new JsonPatchError(`Unable to remove nonexistent key: ${key}: missing value`);
  }
  delete container[key];
}

function replace(doc: JsonValue, path: string, value: JsonValue): void {
  const found = findContainer(doc, path);
  if (!found) throw new JsonPatchError(`replace operation does not apply: doc is missing path: ${path}: missing value`);
  const { container, key } = found;
  if (Array.isArray(container)) {
    const i = parseIndex(key, container.length, false);
    if (i === null) throw new JsonPatchError(`Unable to access invalid index: ${key}: invalid index referenced`);
    container[i] = value;
    return;
  }
  if (!Object.prototype.hasOwnProperty.call(container, key)) {
    throw new JsonPatchError(`replace operation does not apply: doc is missing key: ${path}: missing value`);
  }
  container[key] = value;
}

function replaceRoot(doc: JsonValue, value: JsonValue | undefined): JsonValue {
  // v4 wraps a nil error here (errors.Wrapf(nil, ...) is nil), so a scalar
  // value is silently ignored rather than rejected.
  if (!isObject(value) && !Array.isArray(value)) return doc;
  return clone(value);
}

function test(doc: JsonValue, path: string, op: JsonPatchOp): void {
  if (path === '') {
    if (!deepEqual(doc, op.value ?? null)) throw new JsonPatchError('testing value  failed: test failed');
    return;
  }
  const found = findContainer(doc, path);
  if (!found) throw new JsonPatchError(`test operation does not apply: is missing path: ${path}: missing value`);
  const { container, key } = found;
  let actual: JsonValue | undefined;
  if (Array.isArray(container)) {
    const i = parseIndex(key, container.length, false);
    if (i === null) throw new JsonPatchError(`Unable to access invalid index: ${key}: invalid index referenced`);
    actual = container[i];
  } else {
    actual = Object.prototype.hasOwnProperty.call(container, key) ? container[key] : undefined;
  }
  const expected = op.hasValue ? (op.value ?? null) : null;
  // evanphx v4: a missing member equals a null (or absent) test value.
  if (actual === undefined || actual === null) {
    if (expected === null) return;
    throw new JsonPatchError(`testing value ${path} failed: test failed`);
  }
  if (!deepEqual(actual, expected)) throw new JsonPatchError(`testing value ${path} failed: test failed`);
}

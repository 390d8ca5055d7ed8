// The RFC 6902 JSON Patch that turns one JSON document into another, for the
// admission trace: what each mutating plugin changed. Objects are diffed key
// by key (add / remove / replace). Arrays are diffed element-wise when the
// length is unchanged, as appended or truncated elements when one is a prefix
// of the other (ServiceAccount appends a volume and a volumeMount per
// container; a wholesale replace would hide that), and replaced otherwise.
// The patch applies to `before` (applyJsonPatch(before, diff) deep-equals
// `after`); it is not minimal, only readable and cheap.
//
// Every pod create runs five or six mutating plugins, so this runs on the hot
// path: paths are built only for the operations emitted. The change check
// and the before-copies (sameJson, jsonCopy) live in patch/jsonValue.ts.

import { deepEqual, isObject, type JsonValue } from '../../patch/jsonValue';
import { encodePointerToken } from '../../patch/jsonPatch';

export type PatchOperation =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'replace'; path: string; value: unknown };

export function jsonPatchDiff(before: unknown, after: unknown): PatchOperation[] {
  const ops: PatchOperation[] = [];
  diffValue(before, after, [], ops);
  return ops;
}

function pathOf(segments: string[], last?: string | number): string {
  let p = '';
  for (const s of segments) p += `/${s}`;
  return last === undefined ? p : `${p}/${last}`;
}

function diffValue(a: unknown, b: unknown, at: string[], ops: PatchOperation[]): void {
  if (a === b) return;
  if (isObject(a) && isObject(b)) return diffObject(a, b, at, ops);
  if (Array.isArray(a) && Array.isArray(b)) return diffArray(a, b, at, ops);
  if (!deepEqual(a, b)) ops.push({ op: 'replace', path: pathOf(at), value: b });
}

function diffObject(a: Record<string, unknown>, b: Record<string, unknown>, at: string[], ops: PatchOperation[]): void {
  for (const k in a) {
    const av = a[k];
    if (av === undefined) continue;
    const bv = Object.prototype.hasOwnProperty.call(b, k) ? b[k] : undefined;
    if (bv === undefined) ops.push({ op: 'remove', path: pathOf(at, encodePointerToken(k)) });
    else if (av !== bv) {
      at.push(encodePointerToken(k));
      diffValue(av, bv, at, ops);
      at.pop();
    }
  }
  for (const k in b) {
    if (b[k] === undefined) continue;
    if (!Object.prototype.hasOwnProperty.call(a, k) || a[k] === undefined) ops.push({ op: 'add', path: pathOf(at, encodePointerToken(k)), value: b[k] });
  }
}

function diffArray(a: JsonValue[] | unknown[], b: JsonValue[] | unknown[], at: string[], ops: PatchOperation[]): void {
  if (a.length === b.length) {
    for (let i = 0; i < a.length; i++) {
      if (a[i] === b[i]) continue;
      at.push(String(i));
      diffValue(a[i], b[i], at, ops);
      at.pop();
    }
    return;
  }
  const shorter = Math.min(a.length, b.length);
  let prefix = true;
  for (let i = 0; i < shorter && prefix; i++) prefix = deepEqual(a[i], b[i]);
  if (!prefix) {
    ops.push({ op: 'replace', path: pathOf(at), value: b });
    return;
  }
  // Appended: add at each new index in order. Truncated: remove from the end so indexes stay valid.
  for (let i = a.length; i < b.length; i++) ops.push({ op: 'add', path: pathOf(at, i), value: b[i] });
  for (let i = a.length - 1; i >= b.length; i--) ops.push({ op: 'remove', path: pathOf(at, i) });
}

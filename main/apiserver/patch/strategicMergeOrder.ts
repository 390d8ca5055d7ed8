// The list half of strategic merge patch: apimachinery's sentinel errors
// and how they map to Status codes, the element checks (merge keys, one
// element type per list), and the ordering rules — patch items in the
// patch's (or $setElementOrder's) order, server-only items where they were,
// interleaved by their live positions (normalizeElementOrder, mergeSortedSlice).

import { failure, type StatusError } from '../api/status';
import { goFormat, isObject, type JsonObject, type JsonValue } from './jsonValue';
import { genericUnprocessable } from './patchStatus';

export const DIRECTIVE = '$patch';

/** mergepatch's sentinel errors, by their exact text. */
export const SMP_ERRORS = {
  badJSONDoc: 'invalid JSON document',
  noListOfLists: 'lists of lists are not supported',
  badPrimitiveList: 'invalid patch format of primitive list',
  badRetainKeys: 'invalid patch format of retainKeys',
  badSetElementOrder: 'invalid patch format of setElementOrder list',
  retainKeysMismatch: "patch content doesn't match retainKeys list",
} as const;

const BAD_REQUEST: string[] = [SMP_ERRORS.badJSONDoc, SMP_ERRORS.badPrimitiveList, SMP_ERRORS.badRetainKeys, SMP_ERRORS.badSetElementOrder];
const UNPROCESSABLE: string[] = [SMP_ERRORS.noListOfLists, SMP_ERRORS.retainKeysMismatch];

/** A failure inside the merge, with the library's wording. */
export class StrategicMergeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StrategicMergeError';
  }
}

/** interpretStrategicMergePatchError: the Status a library error becomes. */
export function strategicMergeStatus(e: StrategicMergeError): StatusError {
  if (BAD_REQUEST.includes(e.message)) return failure(400, 'BadRequest', e.message);
  if (UNPROCESSABLE.includes(e.message)) return genericUnprocessable();
  return failure(500, '', e.message);
}


export function noMergeKey(m: JsonObject, key: string): StrategicMergeError {
  return new StrategicMergeError(`map: ${goFormat(m)} does not contain declared merge key: ${key}`);
}

export type ElemKind = 'map' | 'scalar';


export function extractToDeleteItems(list: JsonValue[]): [JsonValue[], JsonValue[]] {
  const keep: JsonValue[] = [];
  const del: JsonValue[] = [];
  for (const v of list) {
    if (!isObject(v)) throw new StrategicMergeError(`expected a map[string]interface {}, but received a ${goType(v)}`);
    (v[DIRECTIVE] === 'delete' ? del : keep).push(v);
  }
  return [keep, del];
}

export function partitionPrimitives(list: JsonValue[], by: JsonValue[]): [JsonValue[], JsonValue[]] {
  const inBy = new Set(by);
  return [list.filter((v) => inBy.has(v)), list.filter((v) => !inBy.has(v))];
}

export function partitionMaps(list: JsonValue[], by: JsonValue[], mergeKey: string): [JsonValue[], JsonValue[]] {
  const inPatch: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const v of list) {
    if (!isObject(v)) throw new StrategicMergeError(`expected a map[string]interface {}, but received a ${goType(v)}`);
    if (!Object.prototype.hasOwnProperty.call(v, mergeKey)) throw noMergeKey(v, mergeKey);
    const found = by.some((b) => {
      if (!isObject(b)) throw new StrategicMergeError(`value for key ${by.indexOf(b)} is not a map.`);
      return Object.prototype.hasOwnProperty.call(b, mergeKey) && b[mergeKey] === v[mergeKey];
    });
    (found ? inPatch : serverOnly).push(v);
  }
  return [inPatch, serverOnly];
}

/**
 * Orders the patch's items by `patchOrder` and the server-only items by
 * `serverOrder`, then interleaves them: a server-only item goes before a
 * patch item when it came before it in the live list.
 */
export function normalizeElementOrder(patch: JsonValue[], serverOnly: JsonValue[], patchOrder: JsonValue[], serverOrder: JsonValue[], mergeKey: string, kind: ElemKind): JsonValue[] {
  const p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < s.length || j < p.length) {
    if (i >= s.length) out.push(p[j++]);
    else if (j >= p.length) out.push(s[i++]);
    else {
      const li = indexIn(serverOrder, s[i], mergeKey, kind);
      const ri = indexIn(serverOrder, p[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(s[i++]);
      else out.push(p[j++]);
    }
  }
  return out;
}

function normalizeSliceOrder(toSort: JsonValue[], order: JsonValue[], mergeKey: string, kind: ElemKind): JsonValue[] {
  let items = toSort;
  let toDelete: JsonValue[] = [];
  if (kind === 'map') {
    for (const v of [...toSort, ...order]) {
      if (!isObject(v)) throw new StrategicMergeError(`expected a map[string]interface {}, but received a ${goType(v)}`);
      if (!Object.prototype.hasOwnProperty.call(v, mergeKey)) throw noMergeKey(v, mergeKey);
    }
    [items, toDelete] = extractToDeleteItems(toSort);
  }
  const ranked = items.map((v, pos) => ({ v, pos, at: indexIn(order, v, mergeKey, kind) }));
  ranked.sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : 0) || a.pos - b.pos);
  return [...ranked.map((r) => r.v), ...toDelete];
}

function indexIn(list: JsonValue[], v: JsonValue, mergeKey: string, kind: ElemKind): number {
  const key = (x: JsonValue) => (kind === 'map' ? (isObject(x) ? x[mergeKey] : undefined) : x);
  const want = key(v);
  return list.findIndex((x) => key(x) === want);
}

export function dedupeScalars(list: JsonValue[]): JsonValue[] {
  const seen = new Set<JsonValue>();
  return list.filter((v) => (seen.has(v) ? false : (seen.add(v), true)));
}

/** All elements must share one type and none may be a list (sliceElementType). */
export function sliceElementType(...lists: JsonValue[][]): ElemKind {
  let prev: string | undefined;
  for (const list of lists) {
    for (const v of list) {
      const t = typeTag(v);
      if (prev === undefined) {
        prev = t;
        if (t === 'list') throw new StrategicMergeError(SMP_ERRORS.noListOfLists);
      } else if (prev !== t) {
        throw new StrategicMergeError(`list element types are not identical: ${goFormat(lists)}`);
      }
    }
  }
  if (prev === undefined) throw new StrategicMergeError('no elements in any of the given slices');
  return prev === 'map' ? 'map' : 'scalar';
}

export function typeTag(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'list';
  if (isObject(v)) return 'map';
  return typeof v;
}

export function goType(v: JsonValue | undefined): string {
  const t = typeTag(v);
  return t === 'map' ? 'map[string]interface {}' : t === 'list' ? '[]interface {}' : t === 'number' ? 'float64' : t === 'nil' ? '<nil>' : t === 'boolean' ? 'bool' : t;
}

// metadata.managedFields as kube-apiserver's field manager keeps it
// (k8s.io/apimachinery/pkg/util/managedfields + structured-merge-diff):
// one entry per manager identity — manager name, operation, subresource,
// and for "Update" also the apiVersion — holding the set of fields that
// manager last set, encoded as FieldsV1.
//
// How the write handlers call it, for every non-apply write (create, update, every patch
// type but apply), after defaulting and before admission/validation:
//   obj.metadata.managedFields = updateManagedFields({
//     live,            // the stored object, or undefined for a create
//     updated: obj,    // the object about to be written
//     manager,         // ?fieldManager=, else the User-Agent up to the first '/'
//     subresource,     // 'status' | 'scale' | undefined
//     apiVersion,      // the request's group/version, e.g. 'apps/v1'
//     now,             // clock; entries carry RFC 3339 seconds
//     message,         // messageForKind(apiVersion, kind)
//     ignoredPaths,    // fields the strategy resets, e.g. [['status']] on the main resource
//   });
// It never throws: unreadable managedFields are treated as empty, as kube
// does for a client that sends garbage.
//
// What it does (FieldManager.Update → managedFieldsUpdater → Updater.Update):
//  - starts from the managedFields the client sent, or else the live ones
//    (always the live ones for a subresource); `[]` or `[{}]` clears them;
//  - compares the live and new objects field by field; the fields this
//    write added or changed go to the writer's entry (merged with its
//    previous fields); other managers lose the fields this write changed or
//    removed; the writer's entry gets `time: now` only if it touched anything;
//  - apiVersion, kind, metadata.name/namespace/uid/... are never tracked;
//  - empty entries are dropped; entries are sorted Apply before Update,
//    then by time, manager, apiVersion, subresource.
//  - past 10 Update entries the oldest fold into "ancient-changes".
// Not done: version conversion between entries of different apiVersions.

import type { KObject, ManagedFieldsEntry } from '../../kube/object';
import { fieldElement, FieldSet, type FieldPath } from './fieldSet';
import { isObject, type JsonObject, type JsonValue } from './jsonValue';
import { compareValues, normalizeTyped, rootType } from './typedValue';

export type Operation = 'Apply' | 'Update';

/** One decoded entry. */
export interface ManagerState {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource?: string;
  time?: string;
  set: FieldSet;
}

/** Entries by identity (BuildManagerIdentifier). */
export type Managed = Map<string, ManagerState>;

/** kube's manager identity: the entry as JSON without fields, time, and (for Apply) apiVersion. */
export function managerIdentifier(e: { manager: string; operation: Operation; apiVersion?: string; subresource?: string }): string {
  const o: Record<string, string> = { manager: e.manager, operation: e.operation };
  if (e.operation === 'Update' && e.apiVersion) o.apiVersion = e.apiVersion;
  if (e.subresource) o.subresource = e.subresource;
  return JSON.stringify(o);
}

/** Decodes managedFields; throws on an entry kube would reject. */
export function decodeManagedFields(entries: ManagedFieldsEntry[] | undefined): Managed {
  const out: Managed = new Map();
  for (const e of entries ?? []) {
    if (e.fieldsType !== 'FieldsV1') throw new Error(`unable to decode managed fields: unexpected fieldsType "${e.fieldsType ?? ''}"`);
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error(`unable to decode managed fields: unexpected operation "${e.operation ?? ''}"`);
    const state: ManagerState = {
      manager: e.manager ?? '',
      operation: e.operation,
      apiVersion: e.apiVersion ?? '',
      subresource: e.subresource || undefined,
      time: e.time,
      set: FieldSet.fromFieldsV1(e.fieldsV1 ?? {}),
    };
    const id = managerIdentifier(state);
    const prev = out.get(id);
    out.set(id, prev ? { ...state, set: prev.set.union(state.set) } : state);
  }
  return out;
}

/** Encodes entries in kube's order; undefined when there are none (the field is then omitted). */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  const entries = [...managed.values()].filter((s) => !s.set.isEmpty());
  if (entries.length === 0) return undefined;
  const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  entries.sort(
    (p, q) =>
      cmp(p.operation, q.operation) || seconds(p.time) - seconds(q.time) || cmp(p.manager, q.manager) || cmp(p.apiVersion, q.apiVersion) || cmp(p.subresource ?? '', q.subresource ?? ''),
  );
  return entries.map((s) => {
    const e: ManagedFieldsEntry = { manager: s.manager, operation: s.operation, apiVersion: s.apiVersion };
    if (s.time) e.time = s.time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = s.set.toFieldsV1();
    if (s.subresource) e.subresource = s.subresource;
    return e;
  });
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** metav1.Time in JSON: RFC 3339 with seconds, UTC. */
export function rfc3339(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Fields no manager ever owns (stripMetaManager). */
export const STRIPPED_PATHS: FieldPath[] = [
  ['apiVersion'],
  ['kind'],
  ['metadata'],
  ['metadata', 'name'],
  ['metadata', 'namespace'],
  ['metadata', 'creationTimestamp'],
  ['metadata', 'selfLink'],
  ['metadata', 'uid'],
  ['metadata', 'clusterName'],
  ['metadata', 'generation'],
  ['metadata', 'managedFields'],
  ['metadata', 'resourceVersion'],
].map((p) => p.map(fieldElement));

const STRIPPED = FieldSet.fromPaths(STRIPPED_PATHS);

export function stripMeta(set: FieldSet): FieldSet {
  return set.difference(STRIPPED);
}

/** Paths such as [['status']] as a set of f: paths. */
export function ignoredSet(paths: string[][] | undefined): FieldSet {
  return FieldSet.fromPaths((paths ?? []).map((p) => p.map(fieldElement)));
}

/** The object without metadata.managedFields (and without the top-level fields in `skip`), as a JSON value (RemoveObjectManagedFields). */
export function withoutManagedFields(obj: KObject | undefined, skip: readonly string[] = []): JsonObject {
  if (!obj) return {};
  const source = skip.length > 0 ? Object.fromEntries(Object.entries(obj).filter(([k]) => !skip.includes(k))) : obj;
  const copy = JSON.parse(JSON.stringify(source)) as JsonObject;
  if (isObject(copy.metadata)) delete copy.metadata.managedFields;
  return copy;
}

/** The object without metadata.managedFields and the top-level fields in `skip`, sharing everything else with obj (read-only use). */
function viewWithoutManagedFields(obj: KObject | undefined, skip: readonly string[]): JsonObject {
  if (!obj) return {};
  const view: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) if (!skip.includes(k)) view[k] = v as JsonValue;
  if (isObject(view.metadata)) {
    const { managedFields: _omit, ...metadata } = view.metadata;
    view.metadata = metadata;
  }
  return view;
}

export interface UpdateManagedFieldsOptions {
  live: KObject | undefined;
  updated: KObject;
  manager: string;
  operation?: 'Update';
  subresource?: string;
  apiVersion: string;
  now: Date;
  message?: string;
  ignoredPaths?: string[][];
}

/** The managedFields the updated object should carry after a non-apply write. */
export function updateManagedFields(o: UpdateManagedFieldsOptions): ManagedFieldsEntry[] | undefined {
  let managed: Managed | undefined;
  const sent = o.updated.metadata?.managedFields;
  if (!o.subresource) {
    if (isResetManagedFields(sent)) managed = new Map();
    else if ((sent?.length ?? 0) > 0) managed = tryDecode(sent);
    if (managed && managed.size === 0 && !isResetManagedFields(sent)) managed = undefined;
  }
  if (!managed) managed = tryDecode(o.live?.metadata?.managedFields) ?? new Map();

  const t = rootType(o.message);
  const ignored = ignoredSet(o.ignoredPaths);
  // Whole top-level fields this write cannot own (spec for a status write,
  // status for a write of the main resource) are left out of the comparison:
  // recursiveDifference(ignored) below drops everything under them anyway.
  const skipped = (o.ignoredPaths ?? []).filter((p) => p.length === 1).map((p) => p[0]!);
  // normalizeTyped copies what it is given, so a shallow view is enough here.
  const before = normalizeTyped(viewWithoutManagedFields(o.live, skipped), t);
  const after = normalizeTyped(viewWithoutManagedFields(o.updated, skipped), t);
  const c = compareValues(before as JsonValue, after as JsonValue, t);
  const changed = c.modified.union(c.added).recursiveDifference(ignored);
  const removed = c.removed.recursiveDifference(ignored);

  // Everyone else loses what this write changed or removed (Update is always forced).
  for (const [id, s] of managed) {
    s.set = s.set.difference(changed).difference(removed);
    if (s.set.isEmpty()) managed.delete(id);
  }
  const mine = stripMeta(changed);
  if (!mine.isEmpty()) {
    const id = managerIdentifier({ manager: o.manager, operation: 'Update', apiVersion: o.apiVersion, subresource: o.subresource });
    const prev = managed.get(id);
    managed.set(id, {
      manager: o.manager,
      operation: 'Update',
      apiVersion: o.apiVersion,
      subresource: o.subresource,
      time: rfc3339(o.now),
      set: prev ? prev.set.union(mine) : mine,
    });
  }
  capUpdateManagers(managed);
  return encodeManagedFields(managed);
}

/** kube keeps at most this many Update entries (DefaultMaxUpdateManagers). */
export const MAX_UPDATE_MANAGERS = 10;

/**
 * capManagersManager: past the cap, the oldest Update entries fold into one
 * "ancient-changes" entry per apiVersion (the first such entry of a version
 * becomes the bucket once a second one joins it).
 */
function capUpdateManagers(managed: Managed): void {
  const updaters = [...managed.entries()].filter(([, s]) => s.operation === 'Update').map(([id]) => id);
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  const seconds = (id: string) => {
    const t = managed.get(id)?.time;
    return t ? Math.floor(Date.parse(t) / 1000) : 0;
  };
  updaters.sort((a, b) => seconds(a) - seconds(b) || (a < b ? -1 : a > b ? 1 : 0));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const id = updaters[i];
    const s = managed.get(id)!;
    const bucketId = managerIdentifier({ manager: 'ancient-changes', operation: 'Update', apiVersion: s.apiVersion });
    const first = firstOfVersion.get(s.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(s.apiVersion, id);
      continue;
    }
    if (!managed.has(bucketId)) {
      const f = managed.get(first)!;
      managed.delete(first);
      managed.set(bucketId, { ...f, manager: 'ancient-changes', operation: 'Update', subresource: undefined });
    }
    const bucket = managed.get(bucketId)!;
    bucket.set = s.set.union(bucket.set);
    bucket.time = s.time;
    managed.delete(id);
    length--;
  }
}

/** `managedFields: []` or `[{}]` in a write asks to clear them (isResetManagedFields). */
export function isResetManagedFields(entries: ManagedFieldsEntry[] | undefined): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  return entries.length === 1 && isObject(entries[0]) && Object.keys(entries[0]).length === 0;
}

function tryDecode(entries: ManagedFieldsEntry[] | undefined): Managed | undefined {
  try {
    return decodeManagedFields(entries);
  } catch {
    return undefined;
  }
}

/** The manager name kube records when ?fieldManager= is absent: the User-Agent up to its first '/'. */
export function managerOrUserAgent(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  const prefix = (userAgent ?? '').split('/')[0];
  let out = '';
  for (const ch of prefix) {
    if (/[\p{C}]/u.test(ch)) continue; // not printable
    if (Buffer.byteLength(out + ch) > 128) break; // FieldManagerMaxLength
    out += ch;
  }
  return out;
}

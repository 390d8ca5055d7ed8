// Server-side apply (PATCH with Content-Type application/apply-patch+yaml),
// as kube-apiserver's FieldManager.Apply runs it over structured-merge-diff:
//  1. the applied config is laid over the live object (associative lists
//     merge by their list-map keys, sets by value, atomic lists and structs
//     are replaced, granular maps merge key by key);
//  2. the applier's entry becomes exactly the set of fields in the config;
//  3. fields the applier set last time, left out now, and owned by no one
//     else are removed from the object;
//  4. every other manager that owns a field whose value this apply changes
//     is a conflict: 409 unless force, and with force they lose the field;
//  5. managedFields are re-encoded; the applier's time moves only when the
//     object changed.
// A missing object (live undefined) is created from the config.
//
// How endpoints/apply.ts calls it (as kube's handlers/patch.go applyPatcher):
//   const applied = parseApplyBody(body);                       // 400 on bad YAML
//   const r = apply({ live, applied, manager, force, apiVersion: 'apps/v1', kind: 'Deployment',
//                     now, message: messageForKind('apps/v1', 'Deployment'), subresource, ignoredPaths });
//   r.object (with metadata.managedFields set) goes on to defaulting,
//   admission and validation; r.changed is false for a no-op apply.
// Errors:
//  - 400 "Incorrect version specified in apply patch. Specified patch version: X, expected: Y";
//  - 400 "metadata.managedFields must be nil";
//  - 500 (no reason, as kube: not a Status there) "failed to create typed patch object
//    (default/nginx; apps/v1, Kind=Deployment): .spec.template.spec.containers: element 0:
//    associative list with keys has an element that omits key field "name" (and doesn't
//    have default value)", or "...: duplicate entries for key [name="x"]";
//  - 409 Conflict (NewApplyConflict): "Apply failed with 1 conflict: conflict with
//    \"kubectl-client-side-apply\" using apps/v1: .spec.replicas", details.causes
//    [{reason: "FieldManagerConflict", message: "conflict with ...", field: ".spec.replicas"}].
// Also as kube: when manager is "kubectl" and the object carries
// kubectl.kubernetes.io/last-applied-configuration, that annotation is
// rewritten to the applied config, and conflicts on fields whose live values
// still match that annotation are forced (the client-side → server-side
// apply upgrade, lastAppliedManager).

import { parse as parseYaml } from 'yaml';
import type { KObject, ManagedFieldsEntry } from '../../kube/object';
import { failure, type StatusCause, type StatusError } from '../api/status';
import { FieldSet, pathString, type FieldPath } from './fieldSet';
import { clone, deepEqual, goJsonKind, isObject, type JsonObject, type JsonValue } from './jsonValue';
import { decodeManagedFields, encodeManagedFields, ignoredSet, managerIdentifier, rfc3339, stripMeta, withoutManagedFields, type Managed } from './managedFields';
import { compareValues, fieldsOf, listItemErrors, mergeValues, normalizeTyped, removeItems, rootType } from './typedValue';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** Decodes an apply body (YAML or JSON) into an object; 400 "error decoding YAML: ..." otherwise. */
export function parseApplyBody(body: string | Uint8Array): JsonObject {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  let v: unknown;
  try {
    v = parseYaml(text);
  } catch (e) {
    throw failure(400, 'BadRequest', `error decoding YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (v === null || v === undefined) return {};
  if (!isObject(v)) throw failure(400, 'BadRequest', `error decoding YAML: json: cannot unmarshal ${goJsonKind(v)} into Go value of type map[string]interface {}`);
  return v;
}

export interface ApplyOptions {
  /** The stored object, or undefined to create. */
  live: KObject | undefined;
  applied: JsonObject;
  manager: string;
  force: boolean;
  /** The endpoint's group/version, e.g. 'apps/v1' ('v1' for core). */
  apiVersion: string;
  now: Date;
  /** messageForKind(apiVersion, kind). */
  message?: string;
  subresource?: string;
  /** Fields the strategy resets (never owned), e.g. [['status']]. */
  ignoredPaths?: string[][];
}

export interface ApplyResult {
  object: KObject;
  managedFields: ManagedFieldsEntry[] | undefined;
  /** Whether the object (apart from managedFields) differs from live. */
  changed: boolean;
}

export function apply(o: ApplyOptions): ApplyResult {
  const patchVersion = typeof o.applied.apiVersion === 'string' ? o.applied.apiVersion : '';
  if (patchVersion !== o.apiVersion) {
    throw failure(400, 'BadRequest', `Incorrect version specified in apply patch. Specified patch version: ${patchVersion}, expected: ${o.apiVersion}`);
  }
  if (isObject(o.applied.metadata) && o.applied.metadata.managedFields !== undefined && o.applied.metadata.managedFields !== null) {
    throw failure(400, 'BadRequest', 'metadata.managedFields must be nil');
  }

  const t = rootType(o.message);
  const itemErrors = listItemErrors(o.applied, t);
  if (itemErrors.length > 0) {
    // Not a Status in kube either: the handler answers 500 with the text.
    const meta = isObject(o.applied.metadata) ? o.applied.metadata : {};
    const nn = `${typeof meta.namespace === 'string' ? meta.namespace : ''}/${typeof meta.name === 'string' ? meta.name : ''}`;
    const kind = typeof o.applied.kind === 'string' ? o.applied.kind : '';
    const gvk = `${o.apiVersion.includes('/') ? o.apiVersion : `/${o.apiVersion}`}, Kind=${kind}`;
    const detail = itemErrors.length === 1 ? itemErrors[0] : `errors:\n${itemErrors.map((e) => `  ${e}`).join('\n')}`;
    throw failure(500, '', `failed to create typed patch object (${nn}; ${gvk}): ${detail}`);
  }
  const ignored = ignoredSet(o.ignoredPaths);
  let managed: Managed;
  try {
    managed = decodeManagedFields(o.live?.metadata?.managedFields);
  } catch (e) {
    throw failure(500, 'InternalError', `Internal error occurred: failed to decode managed fields: ${(e as Error).message}`);
  }
  const live = withoutManagedFields(o.live);
  const config = clone(o.applied);

  let merged = mergeValues(live, config, t) as JsonObject;
  const id = managerIdentifier({ manager: o.manager, operation: 'Apply', subresource: o.subresource });
  const lastSet = managed.get(id)?.set;
  const newSet = fieldsOf(config, t).recursiveDifference(ignored);
  managed.set(id, { manager: o.manager, operation: 'Apply', apiVersion: o.apiVersion, subresource: o.subresource, time: managed.get(id)?.time, set: newSet });

  if (lastSet && !lastSet.isEmpty()) merged = prune(merged, managed, lastSet, t);

  // Ownership moves with changed values: conflicts, or (forced) transfers.
  const c = compareValues(normalizeTyped(live, t), normalizeTyped(merged, t), t);
  const changedFields = c.modified.union(c.added).recursiveDifference(ignored);
  const removed = c.removed.recursiveDifference(ignored);
  const conflicts: { id: string; paths: FieldPath[] }[] = [];
  for (const [otherId, s] of managed) {
    if (otherId === id) continue;
    const clash = s.set.intersection(changedFields);
    if (!clash.isEmpty()) conflicts.push({ id: otherId, paths: clash.paths() });
  }
  if (conflicts.length > 0 && !o.force) {
    // lastAppliedManager: kubectl moving an object from client-side to
    // server-side apply may take over fields whose live values still match
    // the last-applied annotation.
    const allowed = o.manager === 'kubectl' ? allowedFromLastApplied(o.live, t) : undefined;
    const remaining = conflicts.map((c) => ({ id: c.id, paths: c.paths.filter((p) => !allowed?.has(p)) })).filter((c) => c.paths.length > 0);
    if (remaining.length > 0) throw applyConflict(allowed ? remaining : conflicts, managed);
  }
  for (const [otherId, s] of managed) {
    if (otherId === id) continue;
    s.set = s.set.difference(changedFields).difference(removed);
    if (s.set.isEmpty()) managed.delete(otherId);
  }
  const mine = managed.get(id)!;
  mine.set = stripMeta(mine.set);
  if (mine.set.isEmpty()) managed.delete(id);

  const changed = !deepEqual(normalizeTyped(live, t), normalizeTyped(merged, t));
  let object: JsonObject;
  if (changed) {
    object = merged;
    if (managed.has(id)) managed.get(id)!.time = rfc3339(o.now);
  } else {
    object = live;
  }
  if (o.manager === 'kubectl') syncLastApplied(object, o.applied);
  const managedFields = encodeManagedFields(managed);
  const out = object as unknown as KObject;
  if (!isObject(out.metadata)) out.metadata = {};
  if (managedFields) out.metadata.managedFields = managedFields;
  else delete out.metadata.managedFields;
  return { object: out, managedFields, changed };
}

/**
 * Removes what the applier set last time but not now, when no manager owns
 * it (Updater.prune: struct fields count as owned while anything under them is).
 */
function prune(merged: JsonObject, managed: Managed, lastSet: FieldSet, t: ReturnType<typeof rootType>): JsonObject {
  let owned = new FieldSet();
  for (const s of managed.values()) owned = owned.union(s.set);
  owned = owned.withFieldAncestors();
  const last = lastSet.withFieldAncestors();
  const present = fieldsOf(merged, t).withFieldAncestors();
  const drop = FieldSet.fromPaths(last.paths().filter((p) => !owned.has(p) && present.has(p)));
  return removeItems(merged, drop, t) as JsonObject;
}

/**
 * The fields of kubectl's last-applied annotation whose values the live
 * object still has; undefined when there is no usable annotation.
 */
function allowedFromLastApplied(live: KObject | undefined, t: ReturnType<typeof rootType>): FieldSet | undefined {
  const text = live?.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  if (!text) return undefined;
  let last: unknown;
  try {
    last = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(last)) return undefined;
  const c = compareValues(last, normalizeTyped(withoutManagedFields(live), t), t);
  return fieldsOf(last, t).difference(c.modified).difference(c.added).difference(c.removed);
}

/** NewApplyConflict with kube's message for one or many conflicts. */
function applyConflict(conflicts: { id: string; paths: FieldPath[] }[], managed: Managed): StatusError {
  conflicts.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const causes: StatusCause[] = [];
  let total = 0;
  for (const c of conflicts) {
    for (const p of c.paths) {
      causes.push({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.id, managed)}`, field: pathString(p) });
      total++;
    }
  }
  let message: string;
  if (total === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0].id, managed)}: ${pathString(conflicts[0].paths[0])}`;
  } else {
    const lines: string[] = [];
    for (const c of conflicts) {
      lines.push(`conflicts with ${printManager(c.id, managed)}:`);
      for (const p of c.paths) lines.push(`- ${pathString(p)}`);
    }
    message = `Apply failed with ${total} conflicts: ${lines.join('\n')}`;
  }
  return failure(409, 'Conflict', message, { causes });
}

/** `"kubectl-client-side-apply" using apps/v1`, `"kubectl" with subresource "status"`. */
function printManager(id: string, _managed: Managed): string {
  const e = JSON.parse(id) as { manager: string; operation: string; apiVersion?: string; subresource?: string };
  let s = JSON.stringify(e.manager);
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion ?? ''}`;
  return s;
}

/** lastAppliedUpdater: keep kubectl's client-side annotation in step with a kubectl server-side apply. */
function syncLastApplied(object: JsonObject, applied: JsonObject): void {
  const meta = object.metadata;
  if (!isObject(meta) || !isObject(meta.annotations) || typeof meta.annotations[LAST_APPLIED_ANNOTATION] !== 'string') return;
  const copy = clone(applied);
  if (isObject(copy.metadata) && isObject(copy.metadata.annotations)) delete copy.metadata.annotations[LAST_APPLIED_ANNOTATION];
  meta.annotations[LAST_APPLIED_ANNOTATION] = `${sortedJson(copy)}\n`;
}

/** Go's json.Marshal of a map: keys sorted. */
function sortedJson(v: JsonValue): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

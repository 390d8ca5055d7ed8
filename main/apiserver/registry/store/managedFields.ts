// metadata.managedFields for non-apply writes (kube's fieldmanager
// "Update" operation), computed by patch/managedFields.ts's updateManagedFields: the manager
// gains the fields this write set or changed, everyone else loses them.
// Fields the strategy resets are never owned: status for the main resource,
// spec for /status.
//
// Creates that differ only in identity — the pods a ReplicaSet or Job stamps
// from one template, a benchmark's pods — give the same entries but for
// their time, and computing them (typed walk and diff of the whole object)
// was a large share of a create's CPU. So a create without managedFields
// remembers its entries per resource, keyed by the object's JSON without
// the metadata no manager ever owns (STRIPPED_PATHS: name, uid,
// creationTimestamp, ...); a repeat only stamps the time anew.

import type { KObject, ManagedFieldsEntry } from '../../../kube/object';
import { rfc3339, updateManagedFields } from '../../patch/managedFields';
import { messageForKind } from '../../patch/patchMeta';
import { jsonCopy } from '../../patch/jsonValue';
import type { ResourceScope } from './scope';

export function ignoredPathsFor(scope: ResourceScope, subresource: string): string[][] {
  if (subresource === 'status') return [['spec']];
  return scope.def.subresources.some((s) => s.name === 'status') ? [['status']] : [];
}

/** Most distinct create shapes remembered per resource (oldest forgotten first). */
const CREATE_MEMO_MAX = 256;
const createMemo = new WeakMap<object, Map<string, ManagedFieldsEntry[] | undefined>>();
/** metadata fields in STRIPPED_PATHS: whatever their values, no entry owns them. */
const UNOWNED_METADATA = new Set(['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion']);

function createMemoKey(manager: string, subresource: string, obj: KObject): string {
  // Built by copying the kept keys (not by deleting from a copy, which turns
  // the object into a slow dictionary that JSON.stringify walks slowly).
  const meta: Record<string, unknown> = {};
  const metadata = obj.metadata as Record<string, unknown> | undefined;
  for (const k in metadata) if (!UNOWNED_METADATA.has(k)) meta[k] = metadata[k];
  const rest: Record<string, unknown> = {};
  for (const k in obj) if (k !== 'metadata') rest[k] = (obj as Record<string, unknown>)[k];
  return JSON.stringify([manager, subresource, meta, rest]);
}

export function recordManagedFields(
  scope: ResourceScope,
  live: KObject | undefined,
  updated: KObject,
  manager: string,
  _operation: 'Update',
  subresource: string,
  now: Date,
): void {
  const memoable = live === undefined && updated.metadata.managedFields === undefined;
  let memo: Map<string, ManagedFieldsEntry[] | undefined> | undefined;
  let key = '';
  let entries: ManagedFieldsEntry[] | undefined;
  if (memoable) {
    memo = createMemo.get(scope.def);
    if (!memo) createMemo.set(scope.def, (memo = new Map()));
    key = createMemoKey(manager, subresource, updated);
  }
  if (memo?.has(key)) {
    entries = memo.get(key)?.map((e) => {
      const copy = jsonCopy(e);
      if (copy.time !== undefined) copy.time = rfc3339(now);
      return copy;
    });
  } else {
    entries = updateManagedFields({
      live,
      updated,
      manager,
      operation: 'Update',
      subresource: subresource || undefined,
      apiVersion: scope.apiVersion,
      now,
      message: messageForKind(scope.apiVersion, scope.def.kind),
      ignoredPaths: ignoredPathsFor(scope, subresource),
    });
    if (memo) {
      if (memo.size >= CREATE_MEMO_MAX) memo.delete(memo.keys().next().value!);
      memo.set(key, entries && jsonCopy(entries));
    }
  }
  if (entries && entries.length > 0) updated.metadata.managedFields = entries;
  else delete updated.metadata.managedFields;
}

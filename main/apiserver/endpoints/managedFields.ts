// metadata.managedFields for non-apply writes (kube's fieldmanager
// "Update" operation), computed by H5's updateManagedFields: the manager
// gains the fields this write set or changed, everyone else loses them.
// Fields the strategy resets are never owned: status for the main resource,
// spec for /status.

import type { KObject } from '../api/object';
import { updateManagedFields } from '../patch/managedFields';
import { messageForKind } from '../patch/patchMeta';
import type { ResourceScope } from './scope';

export function ignoredPathsFor(scope: ResourceScope, subresource: string): string[][] {
  if (subresource === 'status') return [['spec']];
  return scope.def.subresources.some((s) => s.name === 'status') ? [['status']] : [];
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
  const entries = updateManagedFields({
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
  if (entries && entries.length > 0) updated.metadata.managedFields = entries;
  else delete updated.metadata.managedFields;
}

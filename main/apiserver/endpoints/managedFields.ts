// metadata.managedFields for non-apply writes (kube's fieldmanager
// "Update" operation). The field-set computation is H5's
// (main/apiserver/patch/managedFields.ts); until that module is in the tree
// the writes leave managedFields as the client sent them.

import type { KObject } from '../api/object';
import type { ResourceScope } from './scope';

export function recordManagedFields(
  _scope: ResourceScope,
  _live: KObject | undefined,
  _updated: KObject,
  _manager: string,
  _operation: 'Update',
  _subresource: string,
  _now: Date,
): void {}

// core/v1 namespaces (cluster-scoped): status.phase Active, the `kubernetes`
// finalizer added on create and kept across updates, the
// kubernetes.io/metadata.name label, `ns`.

import type { KObject } from '../../api/object';
import { namespaceNameFn } from '../../api/validation/objectMeta';
import { type Rec, clone, isRec, rec, str } from '../common/obj';
import { STATUS_VERBS, metaFields, simpleStrategy, statusStrategy } from '../common/define';
import type { ResourceDef } from '../resourceDef';
import { namespaceTable } from '../tables/core';

export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

export function defaultNamespace(obj: KObject): void {
  if (obj.metadata.name) obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [NAMESPACE_NAME_LABEL]: obj.metadata.name };
  const status = rec(obj as Rec, 'status');
  if (!status.phase) status.phase = 'Active';
}

const nsStrategy = simpleStrategy({
  namespaced: false,
  nameFn: namespaceNameFn,
  hasStatus: true,
  defaults: defaultNamespace,
  prepareForCreate(obj) {
    obj.status = { phase: 'Active' };
    const spec = rec(obj as Rec, 'spec');
    const finalizers = Array.isArray(spec.finalizers) ? (spec.finalizers as string[]) : [];
    if (!finalizers.includes('kubernetes')) spec.finalizers = [...finalizers, 'kubernetes'];
  },
  prepareForUpdate(obj, old) {
    const spec = rec(obj as Rec, 'spec');
    const oldSpec = isRec(old.spec) ? (old.spec as Rec) : {};
    if (oldSpec.finalizers === undefined) delete spec.finalizers;
    else spec.finalizers = clone(oldSpec.finalizers);
  },
});

export const namespaces: ResourceDef = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  resource: 'namespaces',
  singular: 'namespace',
  namespaced: false,
  shortNames: ['ns'],
  categories: [],
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  storagePrefix: 'namespaces',
  protoType: 'k8s.io.api.core.v1.Namespace',
  subresources: [{ name: 'status', kind: { group: '', version: 'v1', kind: 'Namespace' }, verbs: STATUS_VERBS }],
  strategy: nsStrategy,
  statusStrategy: statusStrategy(nsStrategy),
  table: namespaceTable,
  // NamespaceToSelectableFields keeps the legacy bare `name` for compatibility.
  selectableFields: (obj) => ({ ...metaFields(obj, false), 'status.phase': isRec(obj.status) ? str(obj.status, 'phase') : '', name: obj.metadata?.name ?? '' }),
};


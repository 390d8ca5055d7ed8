// core/v1 namespaces (cluster-scoped): status.phase Active, the `kubernetes`
// finalizer added on create and kept across updates, the
// kubernetes.io/metadata.name label, `ns`, and the finalize subresource.

import type { KObject } from '../../../kube/object';
import { namespaceNameFn } from '../../api/validation/objectMeta';
import { type Rec, clone, isRec, rec, str } from '../common/obj';
import { STATUS_VERBS, metaFields, simpleStrategy, statusStrategy } from '../common/define';
import type { FieldError } from '../../api/status';
import type { ResourceDef, Strategy } from '../rest/resourceDef';
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

/**
 * PUT namespaces/NAME/finalize (namespaceFinalizeStrategy): only
 * spec.finalizers changes; metadata, status and the rest of spec keep their
 * stored values. The update that empties both finalizer lists of a
 * Terminating namespace deletes it (registry/store/update.ts, shouldDeleteDuringUpdate).
 */
export const namespaceFinalizeStrategy: Strategy = {
  ...nsStrategy,
  prepareForUpdate(obj, old) {
    const finalizers = Array.isArray(rec(obj as Rec, 'spec').finalizers) ? clone(rec(obj as Rec, 'spec').finalizers) : undefined;
    obj.metadata = clone(old.metadata);
    if (old.status === undefined) delete obj.status;
    else obj.status = clone(old.status);
    const spec = isRec(old.spec) ? (clone(old.spec) as Rec) : {};
    if (finalizers !== undefined && (finalizers as unknown[]).length > 0) spec.finalizers = finalizers;
    else delete spec.finalizers;
    obj.spec = spec;
  },
  validateUpdate(obj, old, ctx) {
    const errs: FieldError[] = [...nsStrategy.validateUpdate(obj, old, ctx)];
    const list = isRec(obj.spec) && Array.isArray(obj.spec.finalizers) ? (obj.spec.finalizers as unknown[]) : [];
    list.forEach((f, i) => {
      // validateFinalizerName: a standard name (kubernetes) or a qualified domain/name.
      if (typeof f !== 'string' || (f !== 'kubernetes' && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(f))) {
        errs.push({ type: 'FieldValueInvalid', field: `spec.finalizers[${i}]`, badValue: f, detail: 'name is neither a standard finalizer name nor is it fully qualified' });
      }
    });
    return errs;
  },
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
};

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
  subresources: [
    { name: 'finalize', kind: { group: '', version: 'v1', kind: 'Namespace' }, verbs: ['update'] },
    { name: 'status', kind: { group: '', version: 'v1', kind: 'Namespace' }, verbs: STATUS_VERBS },
  ],
  strategy: nsStrategy,
  subresourceStrategies: { finalize: namespaceFinalizeStrategy },
  statusStrategy: statusStrategy(nsStrategy),
  table: namespaceTable,
  // NamespaceToSelectableFields keeps the legacy bare `name` for compatibility.
  selectableFields: (obj) => ({ ...metaFields(obj, false), 'status.phase': isRec(obj.status) ? str(obj.status, 'phase') : '', name: obj.metadata?.name ?? '' }),
};


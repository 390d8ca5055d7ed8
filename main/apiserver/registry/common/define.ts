// Building blocks for ResourceDefs: the standard verb list, the ObjectMeta
// field-selector set, and a strategy for the many types whose only rules are
// defaults plus a validation function (configmaps, secrets, leases, ...).

import type { KObject } from '../../../kube/object';
import type { FieldError } from '../../api/status';
import type { ErrorList } from '../../api/validation/field';
import type { NameFn } from '../../api/validation/names';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../api/validation/objectMeta';
import type { Strategy, StrategyContext, Verb } from '../rest/resourceDef';
import { prepareMainUpdate, prepareMetaForCreate, prepareStatusUpdate } from './lifecycle';

export const ALL_VERBS: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
export const STATUS_VERBS: Verb[] = ['get', 'patch', 'update'];

/** generic.ObjectMetaFieldsSet: metadata.name, plus metadata.namespace for namespaced types. */
export function metaFields(obj: KObject, namespaced: boolean): Record<string, string> {
  const f: Record<string, string> = { 'metadata.name': obj.metadata?.name ?? '' };
  if (namespaced) f['metadata.namespace'] = obj.metadata?.namespace ?? '';
  return f;
}

export interface SimpleStrategyOptions {
  namespaced: boolean;
  nameFn: NameFn;
  defaults?(obj: KObject): void;
  /** Type-specific rules beyond ObjectMeta. */
  validate?(obj: KObject): ErrorList;
  validateUpdate?(obj: KObject, old: KObject): ErrorList;
  /** PrepareForCreate/Update extras (after the common metadata handling). */
  prepareForCreate?(obj: KObject, ctx: StrategyContext): void;
  prepareForUpdate?(obj: KObject, old: KObject, ctx: StrategyContext): void;
  allowCreateOnUpdate?: boolean;
  allowUnconditionalUpdate?: boolean;
  /** metadata.generation tracked (spec changes bump it). */
  generation?: boolean;
  /** Has a status subresource: create clears status, main updates keep it. */
  hasStatus?: boolean;
}

export function simpleStrategy(o: SimpleStrategyOptions): Strategy {
  const hasStatus = o.hasStatus ?? false;
  return {
    defaults: (obj) => o.defaults?.(obj),
    prepareForCreate(obj, ctx) {
      prepareMetaForCreate(obj, ctx, { namespaced: o.namespaced, generation: o.generation ?? false, clearStatus: hasStatus });
      o.prepareForCreate?.(obj, ctx);
    },
    prepareForUpdate(obj, old, ctx) {
      if (hasStatus) prepareMainUpdate(obj, old, o.generation ?? false);
      else prepareMainUpdate(obj, { ...old, status: obj.status }, o.generation ?? false);
      o.prepareForUpdate?.(obj, old, ctx);
    },
    validate: (obj) => [...validateObjectMeta(obj.metadata, o.namespaced, o.nameFn), ...(o.validate?.(obj) ?? [])],
    validateUpdate: (obj, old) => [
      ...validateObjectMetaUpdate(obj.metadata, old.metadata),
      ...(o.validate?.(obj) ?? []),
      ...(o.validateUpdate?.(obj, old) ?? []),
    ],
    allowCreateOnUpdate: o.allowCreateOnUpdate ?? false,
    allowUnconditionalUpdate: o.allowUnconditionalUpdate ?? true,
  };
}

export interface StatusStrategyOptions {
  defaults?(obj: KObject): void;
  /** Metadata the status endpoint may not change, beyond spec (kube: labels for workloads, ownerReferences for pods). */
  keepMeta?: ('labels' | 'annotations' | 'ownerReferences' | 'finalizers')[];
  validateStatus?(obj: KObject, old: KObject): FieldError[];
  prepare?(obj: KObject, old: KObject): void;
}

/** Strategy of the /status subresource: only status (and allowed metadata) changes. */
export function statusStrategy(main: Strategy, o: StatusStrategyOptions = {}): Strategy {
  return {
    defaults: (obj) => (o.defaults ?? main.defaults)(obj),
    prepareForCreate: main.prepareForCreate,
    prepareForUpdate(obj, old) {
      prepareStatusUpdate(obj, old, o.keepMeta ?? []);
      o.prepare?.(obj, old);
    },
    validate: main.validate,
    validateUpdate: (obj, old) => [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...(o.validateStatus?.(obj, old) ?? [])],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
  };
}

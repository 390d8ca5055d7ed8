// The one update lifecycle behind PUT, PATCH, /status, /scale and apply
// (generic Store.Update + rest.BeforeUpdate), inside the storage's
// read-modify-write (guaranteedUpdate retries it on a lost race):
//   new object from the current one → defaults → managedFields → mutating
//   admission → resourceVersion check (409 Conflict, or 422 when PUT must
//   carry one) → keep generation/uid/creationTimestamp/deletion fields →
//   prepareForUpdate → beginUpdate (allocations) → validateUpdate (422) →
//   validating admission → write (nothing written when unchanged).
// A missing object is 404, or is created when the resource allows create on
// update (or for apply). An update that empties the finalizers of an object
// being deleted deletes it (ShouldDeleteDuringUpdate).

import type { KObject } from '../../../kube/object';
import { conflict, invalid, notFound } from '../../api/status';
import type { FinishFunc, Strategy } from '../rest/resourceDef';
import { StorageError } from '../../storage/interface';
import { untraced } from '../../server/traceRecorder';
import { runMutating, runValidating } from '../../admission/run';
import type { AdmissionAttributes } from '../../admission/interfaces';
import { createInStore } from './create';
import { recordManagedFields } from './managedFields';
import { specFinalizers } from './namespaceDeletion';
import { deepCopy, reconcileNamespace, resourceVersionRequired, setTypeMeta } from './objectMeta';
import { readable } from './readable';
import { keyFor, strategyContext, type ResourceScope } from './scope';
import { interpretStorageError } from './storageErrors';
import type { WriteRequest } from './writeRequest';

export interface UpdateRequest extends WriteRequest {
  name: string;
  /** The object to write, given the current one (undefined when it does not exist and creating is allowed). */
  updatedObject(current: KObject | undefined): Promise<KObject> | KObject;
  strategy: Strategy;
  /** 'Apply' means managedFields were computed by server-side apply already. */
  operation: 'Update' | 'Apply';
  /** PUT: a missing object is created if the strategy allows it; apply: always. */
  allowCreate: boolean;
  /** PUT: an object without resourceVersion is refused unless the strategy allows unconditional updates. */
  requireResourceVersion: boolean;
}

export interface UpdateResult {
  object: KObject;
  created: boolean;
}

/** The update lifecycle for one object; the object as clients see it, and whether the update created it. */
export async function updateInStore(scope: ResourceScope, req: UpdateRequest): Promise<UpdateResult> {
  const { def, qr } = scope;
  const namespace = req.namespace;
  const subresource = req.subresource ?? '';
  const trace = req.trace ?? untraced;
  const key = keyFor(scope, namespace, req.name);
  const sctx = strategyContext(scope, req.user, namespace, req.dryRun);
  let pendingFinish: FinishFunc | undefined;
  let deleteAfter = false;

  const compute = async (stored: KObject): Promise<KObject> => {
    if (pendingFinish) await pendingFinish(false);
    pendingFinish = undefined;
    const old = readable(scope, deepCopy(stored));
    const obj = setTypeMeta(scope, await req.updatedObject(deepCopy(old)));
    reconcileNamespace(scope, obj, namespace);
    req.strategy.defaults(obj);
    if (req.operation === 'Update') recordManagedFields(scope, old, obj, req.fieldManager, 'Update', subresource, scope.services.now());
    const attrs: AdmissionAttributes = {
      operation: 'UPDATE',
      group: def.group,
      version: def.version,
      kind: def.kind,
      resource: def.resource,
      subresource,
      namespace,
      name: req.name,
      user: req.user,
      dryRun: req.dryRun,
      object: obj,
      oldObject: old,
      warnings: req.warnings ?? [],
      auditAnnotations: req.auditAnnotations ?? {},
    };
    await runMutating(scope.services.admission, attrs, trace);
    const newRV = obj.metadata.resourceVersion;
    if (!newRV) {
      if (req.requireResourceVersion && !req.strategy.allowUnconditionalUpdate) throw resourceVersionRequired(scope, req.name);
    } else if (newRV !== old.metadata.resourceVersion) {
      throw conflict(qr, req.name);
    }
    // rest.BeforeUpdate: the system fields an update cannot change.
    if (old.metadata.generation !== undefined) obj.metadata.generation = old.metadata.generation;
    else delete obj.metadata.generation;
    await req.strategy.prepareForUpdate(obj, old, sctx);
    if (!obj.metadata.uid) obj.metadata.uid = old.metadata.uid;
    if (old.metadata.creationTimestamp) obj.metadata.creationTimestamp = old.metadata.creationTimestamp;
    if (old.metadata.deletionTimestamp) obj.metadata.deletionTimestamp = old.metadata.deletionTimestamp;
    if (old.metadata.deletionGracePeriodSeconds !== undefined) obj.metadata.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
    if (req.strategy.beginUpdate) pendingFinish = await req.strategy.beginUpdate(obj, old, sctx);
    await trace.stage(
      'validation',
      () => {
        const errs = req.strategy.validateUpdate(obj, old, sctx);
        if (errs.length > 0) throw invalid({ group: def.group, kind: def.kind }, req.name, errs);
      },
      () => 'allow',
    );
    await runValidating(scope.services.admission, attrs, trace);
    deleteAfter = shouldDeleteDuringUpdate(obj, old);
    return obj;
  };

  let result: KObject;
  try {
    if (req.dryRun) {
      const current = await scope.storage.get(key);
      result = await compute(current);
      trace.storage('dry-run');
    } else {
      const before = await trace.stage('storage', () => scope.storage.guaranteedUpdate(key, undefined, compute));
      result = before;
      trace.storage('updated', result.metadata.resourceVersion);
    }
    if (pendingFinish) await (pendingFinish as FinishFunc)(!req.dryRun);
    pendingFinish = undefined;
  } catch (err) {
    if (pendingFinish) await (pendingFinish as FinishFunc)(false);
    if (err instanceof StorageError && err.code === 'KeyNotFound') {
      if (!req.allowCreate) throw notFound(qr, req.name);
      const obj = setTypeMeta(scope, await req.updatedObject(undefined));
      reconcileNamespace(scope, obj, namespace);
      delete obj.metadata.resourceVersion;
      const created = await createInStore(scope, obj, req);
      return { object: created, created: true };
    }
    throw interpretStorageError(err, qr, req.name, 'update');
  }
  if (deleteAfter && !req.dryRun) {
    try {
      const gone = await scope.storage.delete(key, { uid: result.metadata.uid });
      trace.storage('deleted', gone.metadata.resourceVersion);
      await def.strategy.afterDelete?.(gone, sctx);
    } catch (err) {
      if (!(err instanceof StorageError && err.code === 'KeyNotFound')) throw interpretStorageError(err, qr, req.name, 'delete');
    }
  }
  return { object: readable(scope, result), created: false };
}

/** generic registry ShouldDeleteDuringUpdate: no finalizers left on an object whose deletion was requested with no grace. */
export function shouldDeleteDuringUpdate(obj: KObject, old: KObject): boolean {
  if ((obj.metadata.finalizers ?? []).length > 0) return false;
  if (!old.metadata.deletionTimestamp) return false;
  // A namespace also waits for its spec.finalizers (the namespace controller's `kubernetes`).
  if (obj.kind === 'Namespace' && specFinalizers(obj).length > 0) return false;
  return old.metadata.deletionGracePeriodSeconds === undefined || old.metadata.deletionGracePeriodSeconds === 0;
}

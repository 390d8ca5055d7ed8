// The delete lifecycle of the generic registry store (generic Store.Delete +
// rest.BeforeDelete):
//   mutating admission (no object) → read → preconditions (409 with kube's
//   wording) → validating admission → namespaces become Terminating
//   (namespaceDeletion.ts) → graceful deletion (pods: deletionTimestamp +
//   deletionGracePeriodSeconds, 200 with the object) → finalizers
//   (propagationPolicy Foreground adds `foregroundDeletion`, Orphan or
//   orphanDependents adds `orphan`; an object with finalizers only gets its
//   deletionTimestamp) → otherwise the etcd delete (Txn on mod_revision),
//   answered by Status Success {name, group, kind, uid} (pods answer the object).
// dryRun runs everything but the writes.

import type { KObject } from '../../../kube/object';
import { conflict, successStatus } from '../../api/status';
import { runMutating, runValidating } from '../../admission/run';
import { untraced } from '../../server/traceRecorder';
import { StorageError } from '../../storage/interface';
import { isNamespaceResource, markNamespaceTerminating } from './namespaceDeletion';
import { deepCopy, rfc3339 } from './objectMeta';
import { readable } from './readable';
import { keyFor, strategyContext, type ResourceScope } from './scope';
import { interpretStorageError, storageCall } from './storageErrors';
import type { StoreRequest } from './writeRequest';

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun: boolean;
}

export type DeleteResult = { kind: 'object'; object: KObject; code: number } | { kind: 'status'; status: ReturnType<typeof deletedStatus> };

/** The delete lifecycle for one object, admission's mutating pass included. */
export async function deleteInStore(scope: ResourceScope, name: string, opts: DeleteOptions, req: StoreRequest): Promise<DeleteResult> {
  await admitDelete(scope, name, opts.dryRun, req);
  return deleteOne(scope, name, opts, req);
}

/**
 * kube's delete handlers call the mutating admission pass once, with neither
 * object nor old object (NodeRestriction and mutating webhooks see deletes
 * here; a webhook's patch is refused), before the per-object validating pass;
 * for a collection the name is ''.
 */
export async function admitDelete(scope: ResourceScope, name: string, dryRun: boolean, req: StoreRequest): Promise<void> {
  const { def } = scope;
  await runMutating(
    scope.services.admission,
    { operation: 'DELETE', group: def.group, version: def.version, kind: def.kind, resource: def.resource, subresource: '', namespace: req.namespace, name, user: req.user, dryRun, warnings: req.warnings ?? [], auditAnnotations: req.auditAnnotations ?? {} },
    req.trace ?? untraced,
  );
}

/** Everything after the mutating admission pass, for one object. */
export async function deleteOne(scope: ResourceScope, name: string, opts: DeleteOptions, req: StoreRequest): Promise<DeleteResult> {
  const { def, qr } = scope;
  const namespace = req.namespace;
  const trace = req.trace ?? untraced;
  const key = keyFor(scope, namespace, name);
  const sctx = strategyContext(scope, req.user, namespace, opts.dryRun);
  let current = readable(scope, await storageCall(qr, name, 'get', () => scope.storage.get(key)));
  checkDeletePreconditions(scope, current, opts);
  await runValidating(
    scope.services.admission,
    { operation: 'DELETE', group: def.group, version: def.version, kind: def.kind, resource: def.resource, subresource: '', namespace, name, user: req.user, dryRun: opts.dryRun, oldObject: current, warnings: req.warnings ?? [], auditAnnotations: req.auditAnnotations ?? {} },
    trace,
  );
  if (isNamespaceResource(def)) {
    const ns = await markNamespaceTerminating(trace, scope, key, current, opts.dryRun);
    if (ns.pending) return { kind: 'object', object: ns.pending, code: 200 };
    current = readable(scope, ns.current);
  }

  const grace = def.strategy.gracePeriodSeconds?.(current, opts.gracePeriodSeconds);
  const finalizers = finalizersFor(current, opts);
  const graceful = grace !== undefined && grace > 0;
  if (graceful || finalizers.length > 0) {
    const pending = await markForDeletion(scope, key, current, graceful ? grace : 0, finalizers, opts, req);
    if (pending) return { kind: 'object', object: pending, code: 200 };
  }
  if (opts.dryRun) {
    trace.storage('dry-run');
    return def.strategy.gracePeriodSeconds ? { kind: 'object', object: current, code: 200 } : { kind: 'status', status: deletedStatus(scope, current) };
  }
  const gone = await trace.stage('storage', () =>
    storageCall(qr, name, 'delete', () => scope.storage.delete(key, { uid: current.metadata.uid, ...(opts.preconditions ?? {}) })),
  );
  trace.storage('deleted', gone.metadata.resourceVersion);
  await def.strategy.afterDelete?.(gone, sctx);
  // Pods (the graceful kind) answer the deleted object, as kube's pod store (ReturnDeletedObject).
  if (def.strategy.gracePeriodSeconds) return { kind: 'object', object: readable(scope, gone), code: 200 };
  return { kind: 'status', status: deletedStatus(scope, gone) };
}

/** Store.finalizeDelete's answer: Status Success with the details and no code (kube leaves Code unset here). */
function deletedStatus(scope: ResourceScope, obj: KObject) {
  const { code: _code, ...status } = successStatus({ name: obj.metadata.name, group: scope.def.group || undefined, kind: scope.def.resource, uid: obj.metadata.uid });
  return status;
}

/** rest.BeforeDelete's early precondition checks, with its messages (the resource named by its Kind). */
function checkDeletePreconditions(scope: ResourceScope, current: KObject, opts: DeleteOptions): void {
  const p = opts.preconditions;
  if (!p) return;
  const gr = { group: scope.def.group, resource: scope.def.kind };
  const name = current.metadata.name ?? '';
  if (p.uid !== undefined && p.uid !== current.metadata.uid) {
    throw conflict(gr, name, `the UID in the precondition (${p.uid}) does not match the UID in record (${current.metadata.uid ?? ''}). The object might have been deleted and then recreated`);
  }
  if (p.resourceVersion !== undefined && p.resourceVersion !== current.metadata.resourceVersion) {
    throw conflict(gr, name, `the ResourceVersion in the precondition (${p.resourceVersion}) does not match the ResourceVersion in record (${current.metadata.resourceVersion ?? ''}). The object might have been modified`);
  }
}

/** The finalizers the object will carry: its own plus what the propagation policy asks for. */
export function finalizersFor(obj: KObject, opts: DeleteOptions): string[] {
  const f = [...(obj.metadata.finalizers ?? [])];
  const orphan = opts.propagationPolicy === 'Orphan' || opts.orphanDependents === true;
  const foreground = opts.propagationPolicy === 'Foreground';
  const without = (x: string) => {
    const i = f.indexOf(x);
    if (i >= 0) f.splice(i, 1);
  };
  if (orphan) {
    without('foregroundDeletion');
    if (!f.includes('orphan')) f.push('orphan');
  } else if (foreground) {
    without('orphan');
    if (!f.includes('foregroundDeletion')) f.push('foregroundDeletion');
  } else if (opts.propagationPolicy === 'Background' || opts.orphanDependents === false) {
    without('orphan');
    without('foregroundDeletion');
  }
  return f;
}

/**
 * Sets deletionTimestamp (now + grace) and deletionGracePeriodSeconds and the
 * finalizers, unless the object is already being deleted with a grace period
 * no longer than asked for. Returns the pending object, or undefined when the
 * object should be deleted right away after all.
 */
async function markForDeletion(scope: ResourceScope, key: string, current: KObject, grace: number, finalizers: string[], opts: DeleteOptions, req: StoreRequest): Promise<KObject | undefined> {
  const trace = req.trace ?? untraced;
  const now = scope.services.now();
  const update = (stored: KObject): KObject => {
    const obj = deepCopy(stored);
    const m = obj.metadata;
    const already = m.deletionTimestamp !== undefined;
    if (finalizers.length > 0) m.finalizers = finalizers;
    else delete m.finalizers;
    if (!already || (m.deletionGracePeriodSeconds ?? 0) > grace) {
      m.deletionTimestamp = rfc3339(new Date(now.getTime() + grace * 1000));
      m.deletionGracePeriodSeconds = grace;
    }
    if (m.generation !== undefined && !already) m.generation += 1;
    return obj;
  };
  if (opts.dryRun) return readable(scope, update(current));
  let pending: KObject;
  try {
    pending = await trace.stage('storage', () => scope.storage.guaranteedUpdate(key, opts.preconditions, update));
  } catch (err) {
    if (err instanceof StorageError && err.code === 'KeyNotFound') return undefined;
    throw interpretStorageError(err, scope.qr, current.metadata.name ?? '', 'delete');
  }
  if ((pending.metadata.finalizers ?? []).length === 0 && (pending.metadata.deletionGracePeriodSeconds ?? 0) === 0) return undefined;
  trace.storage('pending-deletion', pending.metadata.resourceVersion);
  return readable(scope, pending);
}

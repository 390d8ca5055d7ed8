// DELETE of an object and of a collection (handlers/delete.go + generic
// Store.Delete / DeleteCollection):
//   DeleteOptions from the body (JSON/YAML) and the query → preconditions
//   (409 with kube's wording) → graceful deletion (pods: deletionTimestamp +
//   deletionGracePeriodSeconds, 200 with the object) → finalizers
//   (propagationPolicy Foreground adds `foregroundDeletion`, Orphan or
//   orphanDependents adds `orphan`; an object with finalizers only gets its
//   deletionTimestamp) → otherwise the etcd delete (Txn on mod_revision) and
//   200 Status Success {name, group, kind, uid} (pods answer the object).
// Namespaces first become Terminating and stay while spec.finalizers is set
// (namespaceLifecycle.ts).

import type { KObject } from '../../kube/object';
import { badRequest, conflict, invalid, successStatus } from '../api/status';
import type { RequestContext } from '../server/context';
import { StorageError } from '../storage/interface';
import { runMutating, runValidating } from '../admission/run';
import { listObjectsForDelete } from './deleteCollection';
import { isNamespaceResource, markNamespaceTerminating } from './namespaceLifecycle';
import { deepCopy, rfc3339 } from '../registry/store/objectMeta';
import { negotiateOutput } from './outputFormat';
import { writeOutput } from './read';
import { readable } from '../registry/store/readable';
import { bodyFormat, parseBody, readBody } from './requestBody';
import { keyFor, strategyContext, type ResourceScope } from '../registry/store/scope';
import { interpretStorageError, storageCall } from '../registry/store/storageErrors';

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun: boolean;
}

export async function parseDeleteOptions(ctx: RequestContext): Promise<DeleteOptions> {
  let body: Record<string, unknown> = {};
  const data = await readBody(ctx);
  if (data.length > 0) {
    const v = parseBody(data, bodyFormat(ctx.req.headers['content-type']));
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) body = v as Record<string, unknown>;
  }
  const q = ctx.url.searchParams;
  const opts: DeleteOptions = { dryRun: q.getAll('dryRun').includes('All') || (Array.isArray(body.dryRun) && body.dryRun.includes('All')) };
  const grace = q.get('gracePeriodSeconds') ?? (body.gracePeriodSeconds !== undefined ? String(body.gracePeriodSeconds) : null);
  if (grace !== null && grace !== '') {
    const n = Number(grace);
    if (!Number.isInteger(n)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(grace)}: invalid syntax`);
    opts.gracePeriodSeconds = n;
  }
  const policy = q.get('propagationPolicy') ?? (body.propagationPolicy as string | undefined);
  const orphan = q.get('orphanDependents') ?? (body.orphanDependents !== undefined ? String(body.orphanDependents) : null);
  if (orphan !== null && orphan !== '') opts.orphanDependents = orphan === 'true';
  if (policy) {
    if (policy !== 'Orphan' && policy !== 'Background' && policy !== 'Foreground') {
      throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [
        { type: 'FieldValueNotSupported', field: 'propagationPolicy', badValue: policy, detail: 'supported values: "Foreground", "Background", "Orphan", "nil"' },
      ]);
    }
    if (opts.orphanDependents !== undefined) {
      throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [
        { type: 'FieldValueInvalid', field: 'propagationPolicy', badValue: policy, detail: 'orphanDependents and deletionPropagation cannot be both set' },
      ]);
    }
    opts.propagationPolicy = policy;
  }
  const pre = body.preconditions as { uid?: string; resourceVersion?: string } | undefined;
  if (pre && (pre.uid || pre.resourceVersion)) opts.preconditions = { uid: pre.uid || undefined, resourceVersion: pre.resourceVersion || undefined };
  return opts;
}

/**
 * kube's delete handlers call the mutating admission pass once, with neither
 * object nor old object (NodeRestriction and mutating webhooks see deletes
 * here; a webhook's patch is refused), before the per-object validating pass.
 */
async function admitDelete(ctx: RequestContext, scope: ResourceScope, name: string, dryRun: boolean): Promise<void> {
  const { def } = scope;
  await runMutating(
    scope.services.admission,
    { operation: 'DELETE', group: def.group, version: def.version, kind: def.kind, resource: def.resource, subresource: '', namespace: ctx.info.namespace, name, user: ctx.user!, dryRun, warnings: ctx.warnings, auditAnnotations: ctx.auditAnnotations },
    ctx.trace,
  );
}

export async function deleteObject(ctx: RequestContext, scope: ResourceScope): Promise<void> {
  const opts = await parseDeleteOptions(ctx);
  const output = negotiateOutput(ctx.req.headers.accept, false);
  await admitDelete(ctx, scope, ctx.info.name, opts.dryRun);
  const r = await deleteOne(ctx, scope, ctx.info.name, opts);
  if (r.kind === 'object') writeOutput(ctx, scope, output, r.code, [r.object], {}, false);
  else writeOutput(ctx, scope, { kind: 'object', serialization: output.serialization }, 200, [r.status as unknown as KObject], {}, false);
}

export type DeleteResult = { kind: 'object'; object: KObject; code: number } | { kind: 'status'; status: ReturnType<typeof deletedStatus> };

export async function deleteOne(ctx: RequestContext, scope: ResourceScope, name: string, opts: DeleteOptions): Promise<DeleteResult> {
  const { def, qr } = scope;
  const namespace = ctx.info.namespace;
  const key = keyFor(scope, namespace, name);
  const sctx = strategyContext(scope, ctx.user!, namespace, opts.dryRun);
  let current = readable(scope, await storageCall(qr, name, 'get', () => scope.storage.get(key)));
  checkDeletePreconditions(scope, current, opts);
  await runValidating(
    scope.services.admission,
    { operation: 'DELETE', group: def.group, version: def.version, kind: def.kind, resource: def.resource, subresource: '', namespace, name, user: ctx.user!, dryRun: opts.dryRun, oldObject: current, warnings: ctx.warnings, auditAnnotations: ctx.auditAnnotations },
    ctx.trace,
  );
  if (isNamespaceResource(def)) {
    const ns = await markNamespaceTerminating(ctx, scope, key, current, opts.dryRun);
    if (ns.pending) return { kind: 'object', object: ns.pending, code: 200 };
    current = readable(scope, ns.current);
  }

  const grace = def.strategy.gracePeriodSeconds?.(current, opts.gracePeriodSeconds);
  const finalizers = finalizersFor(current, opts);
  const graceful = grace !== undefined && grace > 0;
  if (graceful || finalizers.length > 0) {
    const pending = await markForDeletion(ctx, scope, key, current, graceful ? grace : 0, finalizers, opts);
    if (pending) return { kind: 'object', object: pending, code: 200 };
  }
  if (opts.dryRun) {
    ctx.trace.storage('dry-run');
    return def.strategy.gracePeriodSeconds ? { kind: 'object', object: current, code: 200 } : { kind: 'status', status: deletedStatus(scope, current) };
  }
  const gone = await ctx.trace.stage('storage', () =>
    storageCall(qr, name, 'delete', () => scope.storage.delete(key, { uid: current.metadata.uid, ...(opts.preconditions ?? {}) })),
  );
  ctx.trace.storage('deleted', gone.metadata.resourceVersion);
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
async function markForDeletion(ctx: RequestContext, scope: ResourceScope, key: string, current: KObject, grace: number, finalizers: string[], opts: DeleteOptions): Promise<KObject | undefined> {
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
    pending = await ctx.trace.stage('storage', () => scope.storage.guaranteedUpdate(key, opts.preconditions, update));
  } catch (err) {
    if (err instanceof StorageError && err.code === 'KeyNotFound') return undefined;
    throw interpretStorageError(err, scope.qr, current.metadata.name ?? '', 'delete');
  }
  if ((pending.metadata.finalizers ?? []).length === 0 && (pending.metadata.deletionGracePeriodSeconds ?? 0) === 0) return undefined;
  ctx.trace.storage('pending-deletion', pending.metadata.resourceVersion);
  return readable(scope, pending);
}

export async function deleteCollection(ctx: RequestContext, scope: ResourceScope): Promise<void> {
  const opts = await parseDeleteOptions(ctx);
  const output = negotiateOutput(ctx.req.headers.accept, true);
  await admitDelete(ctx, scope, '', opts.dryRun);
  const items = await listObjectsForDelete(ctx, scope);
  const deleted: KObject[] = [];
  for (const item of items) {
    try {
      const r = await deleteOne(ctx, scope, item.metadata.name!, { ...opts, preconditions: undefined });
      deleted.push(r.kind === 'object' ? r.object : item);
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
    }
  }
  writeOutput(ctx, scope, { kind: 'object', serialization: output.serialization }, 200, deleted, { resourceVersion: '' }, true);
}

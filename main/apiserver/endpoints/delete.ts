// DELETE of an object and of a collection (handlers/delete.go): DeleteOptions
// from the body (JSON/YAML) and the query, then the store's delete lifecycle
// (registry/store/delete.ts, deleteCollection.ts), then the answer: the
// object while its deletion is pending (and for pods), otherwise 200 Status
// Success; a collection answers the list of what it deleted.

import type { KObject } from '../../kube/object';
import { badRequest, invalid } from '../api/status';
import type { RequestContext } from '../server/context';
import { deleteInStore, type DeleteOptions } from '../registry/store/delete';
import { deleteCollectionInStore } from '../registry/store/deleteCollection';
import type { ResourceScope } from '../registry/store/scope';
import { parseListOptions } from './listOptions';
import { negotiateOutput } from './outputFormat';
import { storageListOptions, writeOutput } from './read';
import { bodyFormat, parseBody, readBody } from './requestBody';
import { storeRequestOf } from './storeRequest';

export async function deleteObject(ctx: RequestContext, scope: ResourceScope): Promise<void> {
  const opts = await parseDeleteOptions(ctx);
  const output = negotiateOutput(ctx.req.headers.accept, false);
  const r = await deleteInStore(scope, ctx.info.name, opts, storeRequestOf(ctx));
  if (r.kind === 'object') writeOutput(ctx, scope, output, r.code, [r.object], {}, false);
  else writeOutput(ctx, scope, { kind: 'object', serialization: output.serialization }, 200, [r.status as unknown as KObject], {}, false);
}

export async function deleteCollection(ctx: RequestContext, scope: ResourceScope): Promise<void> {
  const opts = await parseDeleteOptions(ctx);
  const output = negotiateOutput(ctx.req.headers.accept, true);
  // The request's label and field selectors, read straight from etcd (no resourceVersion, limit or continue).
  const selection = () => {
    const lo = parseListOptions(scope.def, ctx.url.searchParams);
    return storageListOptions(scope, ctx.info.namespace, { ...lo, resourceVersion: undefined, limit: undefined, continue: undefined });
  };
  const deleted = await deleteCollectionInStore(scope, opts, storeRequestOf(ctx), selection);
  writeOutput(ctx, scope, { kind: 'object', serialization: output.serialization }, 200, deleted, { resourceVersion: '' }, true);
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

// What a handler tells the registry store about its request: the user, the
// URL's namespace and subresource, and the request's trace, warnings and
// audit annotations for the lifecycle (admission) to add to.

import type { RequestContext } from '../server/context';
import type { StoreRequest, WriteRequest } from '../registry/store/writeRequest';

export function storeRequestOf(ctx: RequestContext): StoreRequest {
  return { user: ctx.user!, namespace: ctx.info.namespace, trace: ctx.trace, warnings: ctx.warnings, auditAnnotations: ctx.auditAnnotations };
}

export function writeRequestOf(ctx: RequestContext, opts: { dryRun: boolean; fieldManager: string }, operation: 'Update' | 'Apply'): WriteRequest {
  return { ...storeRequestOf(ctx), subresource: ctx.info.subresource, dryRun: opts.dryRun, fieldManager: opts.fieldManager, operation };
}

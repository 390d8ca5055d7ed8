// POSTs answered by computation instead of storage: create-only review
// resources (TokenReview, SubjectAccessReview, ...) and subresources such as
// serviceaccounts/NAME/token. The body is decoded and defaulted like any
// create (strict field validation included); the answer is 201 with the
// computed object, as kube's rest.Creater implementations of these types do.

import type { KObject } from '../../kube/object';
import { failure } from '../api/status';
import type { ComputedRequest } from '../registry/rest/resourceDef';
import type { RequestContext } from '../server/context';
import { decodeObject } from './decodeObject';
import { negotiateOutput } from './outputFormat';
import { writeOutput } from './read';
import { keyFor, type ResourceScope } from '../registry/store/scope';
import { storageCall } from '../registry/store/storageErrors';
import { parseWriteOptions } from './writeOptions';

function computedRequest(ctx: RequestContext, dryRun: boolean): ComputedRequest {
  return { user: ctx.user!, namespace: ctx.info.namespace, name: ctx.info.name, dryRun, warnings: ctx.warnings, auditAnnotations: ctx.auditAnnotations };
}

/** POST <collection> of a virtual resource. */
export async function createComputed(ctx: RequestContext, scope: ResourceScope): Promise<void> {
  const opts = parseWriteOptions(ctx, 'CreateOptions');
  const output = negotiateOutput(ctx.req.headers.accept, false);
  const body = await ctx.trace.stage('decode', () => decodeObject(ctx, scope, opts.fieldValidation));
  scope.def.strategy.defaults(body);
  const result = await ctx.trace.stage('compute', () => scope.def.virtualCreate!(body, computedRequest(ctx, opts.dryRun)));
  ctx.trace.storage('computed');
  writeOutput(ctx, scope, { kind: 'object', serialization: output.serialization }, 201, [withTypeMeta(result, scope.apiVersion, scope.def.kind)], {}, false);
}

/** POST <collection>/NAME/<subresource> answered by the def's subresourceCreate. */
export async function createComputedSubresource(ctx: RequestContext, scope: ResourceScope): Promise<void> {
  const sub = scope.def.subresources.find((s) => s.name === ctx.info.subresource)!;
  const handler = scope.def.subresourceCreate![sub.name]!;
  const opts = parseWriteOptions(ctx, 'CreateOptions');
  const output = negotiateOutput(ctx.req.headers.accept, false);
  const body = await ctx.trace.stage('decode', () => decodeObject(ctx, scope, opts.fieldValidation, sub.kind));
  if (body.metadata.namespace && body.metadata.namespace !== ctx.info.namespace) {
    throw failure(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
  }
  const parent = await storageCall(scope.qr, ctx.info.name, 'get', () => scope.storage.get(keyFor(scope, ctx.info.namespace, ctx.info.name)));
  const result = await ctx.trace.stage('compute', () => handler(parent, body, computedRequest(ctx, opts.dryRun)));
  ctx.trace.storage('computed');
  const apiVersion = sub.kind.group ? `${sub.kind.group}/${sub.kind.version}` : sub.kind.version;
  writeOutput(ctx, scope, { kind: 'object', serialization: output.serialization }, 201, [withTypeMeta(result, apiVersion, sub.kind.kind)], {}, false);
}

function withTypeMeta(obj: KObject, apiVersion: string, kind: string): KObject {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return { apiVersion, kind, ...rest } as KObject;
}

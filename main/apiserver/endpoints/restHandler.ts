// Routes a resource request (RequestInfo already parsed) to its handler by
// verb and subresource, after checking the resource is served, the verb is
// one it has, and the scope (namespaced or not) fits the path. Unknown
// resources are kube's 404 "the server could not find the requested
// resource"; a method the route does not take is 405.

import { badRequest, failure } from '../api/status';
import { validatePathSegmentName } from '../api/validation/names';
import type { ResourceDef } from '../registry/rest/resourceDef';
import type { RequestContext } from '../server/context';
import { createBinding } from './binding';
import { createObject } from './create';
import { createComputed, createComputedSubresource } from './computedCreate';
import { deleteCollection, deleteObject } from './delete';
import { patchObject } from './patch';
import { getObject, listObjects } from './read';
import { getScale } from './scale';
import type { ResourceScope } from '../registry/store/scope';
import { replaceObject } from './update';

export const NOT_FOUND_MESSAGE = 'the server could not find the requested resource';

export function routeNotFound() {
  return failure(404, 'NotFound', NOT_FOUND_MESSAGE, {});
}

export function methodNotAllowedRoute() {
  return failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export type ScopeLookup = (group: string, version: string, resource: string) => ResourceScope | undefined;

export async function serveResource(ctx: RequestContext, lookup: ScopeLookup): Promise<void> {
  const info = ctx.info;
  const scope = lookup(info.apiGroup, info.apiVersion, info.resource);
  if (!scope) throw routeNotFound();
  const def = scope.def;
  if (info.parts.length > 3) throw routeNotFound();
  if (!def.namespaced && info.namespace && !(info.resource === 'namespaces')) throw routeNotFound();
  const isCollectionVerb = info.verb === 'list' || info.verb === 'watch' || info.verb === 'deletecollection' || (info.verb === 'create' && info.parts.length === 1);
  if (def.namespaced && !info.namespace && !(info.verb === 'list' || info.verb === 'watch')) throw routeNotFound();
  const itemVerb = info.verb === 'get' || info.verb === 'update' || info.verb === 'patch' || info.verb === 'delete';
  if (itemVerb && info.parts.length < 2) throw methodNotAllowedRoute();
  if (info.subresource) {
    const sub = def.subresources.find((s) => s.name === info.subresource);
    if (!sub) throw routeNotFound();
    if (!sub.verbs.includes(info.verb as never)) throw methodNotAllowedRoute();
  } else if (!verbAllowed(def, info.verb)) {
    throw methodNotAllowedRoute();
  }

  // The store's key function (NamespaceKeyFunc / NoNamespaceKeyFunc) refuses names that are not path segments.
  if (itemVerb) {
    const bad = validatePathSegmentName(info.name, false);
    if (bad.length > 0) throw badRequest(`Name parameter invalid: ${JSON.stringify(info.name)}: ${bad.join(';')}`);
  }

  switch (info.verb) {
    case 'get':
      if (info.subresource === 'scale') return getScale(ctx, scope);
      return getObject(ctx, scope);
    case 'list':
    case 'watch':
      return listObjects(ctx, scope);
    case 'create':
      if (info.subresource === 'binding' && def.binding) return createBinding(ctx, scope);
      if (info.subresource && def.subresourceCreate?.[info.subresource]) return createComputedSubresource(ctx, scope);
      if (!isCollectionVerb || info.subresource) throw methodNotAllowedRoute();
      if (def.virtualCreate) return createComputed(ctx, scope);
      return createObject(ctx, scope);
    case 'update':
      return replaceObject(ctx, scope);
    case 'patch':
      return patchObject(ctx, scope);
    case 'delete':
      return deleteObject(ctx, scope);
    case 'deletecollection':
      return deleteCollection(ctx, scope);
    default:
      throw methodNotAllowedRoute();
  }
}

function verbAllowed(def: ResourceDef, verb: string): boolean {
  return (def.verbs as string[]).includes(verb);
}

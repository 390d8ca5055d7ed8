// Which objects a DELETE of a collection covers: the list selected by the
// request's label and field selectors, read straight from etcd.

import type { KObject } from '../../kube/object';
import type { RequestContext } from '../server/context';
import { parseListOptions } from './listOptions';
import { storageListOptions } from './read';
import { listPrefix, type ResourceScope } from '../registry/store/scope';
import { storageCall } from '../registry/store/storageErrors';

export async function listObjectsForDelete(ctx: RequestContext, scope: ResourceScope): Promise<KObject[]> {
  const opts = parseListOptions(scope.def, ctx.url.searchParams);
  const lo = storageListOptions(scope, ctx.info.namespace, { ...opts, resourceVersion: undefined, limit: undefined, continue: undefined });
  const r = await storageCall(scope.qr, '', 'list', () => scope.storage.getList(listPrefix(scope, ctx.info.namespace), lo));
  return r.items;
}

// DELETE of a collection (generic Store.DeleteCollection): the mutating
// admission pass once for the whole collection, then the listed objects one
// by one through the delete lifecycle without preconditions; an object gone
// in between is skipped. The answer lists what was deleted or is pending
// deletion.

import type { KObject } from '../../../kube/object';
import type { ListOptions } from '../../storage/interface';
import { admitDelete, deleteOne, type DeleteOptions } from './delete';
import { listPrefix, type ResourceScope } from './scope';
import { storageCall } from './storageErrors';
import type { StoreRequest } from './writeRequest';

/**
 * `selection` is asked for after the mutating admission pass, so a refused
 * delete is refused before the request's selectors are looked at.
 */
export async function deleteCollectionInStore(scope: ResourceScope, opts: DeleteOptions, req: StoreRequest, selection: () => ListOptions): Promise<KObject[]> {
  await admitDelete(scope, '', opts.dryRun, req);
  const lo = selection();
  const listed = await storageCall(scope.qr, '', 'list', () => scope.storage.getList(listPrefix(scope, req.namespace), lo));
  const deleted: KObject[] = [];
  for (const item of listed.items) {
    try {
      const r = await deleteOne(scope, item.metadata.name!, { ...opts, preconditions: undefined }, req);
      deleted.push(r.kind === 'object' ? r.object : item);
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
    }
  }
  return deleted;
}

// An object as clients see it, the last step of every read and write
// response and of every watch event.

import type { KObject } from '../../../kube/object';
import { setTypeMeta } from './objectMeta';
import type { ResourceScope } from './scope';

/** An object as clients see it: type meta set, scheme defaults applied. */
export function readable(scope: ResourceScope, obj: KObject): KObject {
  const o = setTypeMeta(scope, obj);
  scope.def.strategy.defaults(o);
  return o;
}

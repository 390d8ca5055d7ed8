// The /scale subresource: GET answers the object's autoscaling/v1 Scale view
// (the registry's ScaleDef.toScale); PUT and PATCH change spec.replicas
// through the main resource's update lifecycle.

import type { RequestContext } from '../server/context';
import { negotiateOutput } from './outputFormat';
import { writeOutput } from './read';
import { readable } from '../registry/store/readable';
import { keyFor, type ResourceScope } from '../registry/store/scope';
import { storageCall } from '../registry/store/storageErrors';

export const SCALE_KIND = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

export async function getScale(ctx: RequestContext, scope: ResourceScope): Promise<void> {
  const output = negotiateOutput(ctx.req.headers.accept, false);
  const obj = await ctx.trace.stage('storage', () =>
    storageCall(scope.qr, ctx.info.name, 'get', () => scope.storage.get(keyFor(scope, ctx.info.namespace, ctx.info.name))),
  );
  const scale = scope.def.scale!.toScale(readable(scope, obj));
  ctx.trace.storage('read', obj.metadata.resourceVersion);
  writeOutput(ctx, scope, { kind: 'object', serialization: output.serialization }, 200, [scale], {}, false);
}

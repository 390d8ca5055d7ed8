// PUT of an object, of its /status, or of its /scale (handlers/update.go):
// the body replaces the object, through the one update lifecycle.

import type { KObject } from '../../kube/object';
import { badRequest } from '../api/status';
import type { RequestContext } from '../server/context';
import { decodeObject } from './decodeObject';
import { checkNameMatchesUrl } from '../registry/store/objectMeta';
import { negotiateOutput } from './outputFormat';
import { writeOutput } from './read';
import type { ResourceScope } from '../registry/store/scope';
import { updateInStore } from '../registry/store/update';
import { writeRequestOf } from './storeRequest';
import { parseWriteOptions } from './writeOptions';
import { SCALE_KIND } from './scale';

export async function replaceObject(ctx: RequestContext, scope: ResourceScope): Promise<void> {
  const opts = parseWriteOptions(ctx, 'UpdateOptions');
  const output = negotiateOutput(ctx.req.headers.accept, false);
  const sub = ctx.info.subresource;
  const name = ctx.info.name;

  if (sub === 'scale' && scope.def.scale) {
    const scale = await ctx.trace.stage('decode', () => decodeObject(ctx, scope, opts.fieldValidation, SCALE_KIND));
    checkNameMatchesUrl(scale, name);
    const r = await updateInStore(scope, {
      ...writeRequestOf(ctx, opts, 'Update'),
      name,
      strategy: scope.def.strategy,
      allowCreate: false,
      requireResourceVersion: false,
      updatedObject: (current) => {
        const obj = current!;
        scope.def.scale!.applyScale(obj, scale);
        obj.metadata.resourceVersion = scale.metadata.resourceVersion || obj.metadata.resourceVersion;
        return obj;
      },
    });
    writeOutput(ctx, scope, { kind: 'object', serialization: output.serialization }, 200, [scope.def.scale.toScale(r.object)], {}, false);
    return;
  }
  const strategy =
    sub === 'status' && scope.def.statusStrategy ? scope.def.statusStrategy : sub === '' ? scope.def.strategy : scope.def.subresourceStrategies?.[sub];
  if (!strategy) throw badRequest(`the server could not find the requested resource`);
  const obj: KObject = await ctx.trace.stage('decode', () => decodeObject(ctx, scope, opts.fieldValidation));
  checkNameMatchesUrl(obj, name);
  const r = await updateInStore(scope, {
    ...writeRequestOf(ctx, opts, 'Update'),
    name,
    strategy,
    allowCreate: sub === '' && strategy.allowCreateOnUpdate,
    requireResourceVersion: true,
    updatedObject: () => structuredClone(obj),
  });
  writeOutput(ctx, scope, output, r.created ? 201 : 200, [r.object], {}, false);
}

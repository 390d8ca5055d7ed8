// POST pods/NAME/binding (the scheduler's call): the registry's BindingDef
// assigns the pod inside a read-modify-write of the pod, and the answer is
// 201 Status Success, as kube's BindingREST.

import { failure, successStatus } from '../api/status';
import type { RequestContext } from '../server/context';
import { decodeObject } from './decodeObject';
import { deepCopy } from '../registry/store/objectMeta';
import { writeOutput } from './read';
import { keyFor, type ResourceScope } from '../registry/store/scope';
import { storageCall } from '../registry/store/storageErrors';
import { parseWriteOptions } from './writeOptions';
import { negotiateOutput } from './outputFormat';

export const BINDING_KIND = { group: '', version: 'v1', kind: 'Binding' };

export async function createBinding(ctx: RequestContext, scope: ResourceScope): Promise<void> {
  const binding = scope.def.binding!;
  const opts = parseWriteOptions(ctx, 'CreateOptions');
  const output = negotiateOutput(ctx.req.headers.accept, false);
  const body = await ctx.trace.stage('decode', () => decodeObject(ctx, scope, opts.fieldValidation, BINDING_KIND));
  if (body.metadata.namespace && body.metadata.namespace !== ctx.info.namespace) {
    throw failure(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
  }
  const key = keyFor(scope, ctx.info.namespace, ctx.info.name);
  const pre = body.metadata.uid || body.metadata.resourceVersion ? { uid: body.metadata.uid, resourceVersion: body.metadata.resourceVersion } : undefined;
  if (opts.dryRun) {
    const pod = await storageCall(scope.qr, ctx.info.name, 'get', () => scope.storage.get(key));
    binding.bind(deepCopy(pod), body);
    ctx.trace.storage('dry-run');
  } else {
    const pod = await ctx.trace.stage('storage', () =>
      storageCall(scope.qr, ctx.info.name, 'update', () =>
        scope.storage.guaranteedUpdate(key, pre, (current) => {
          const p = deepCopy(current);
          binding.bind(p, body);
          return p;
        }),
      ),
    );
    ctx.trace.storage('updated', pod.metadata.resourceVersion);
  }
  const status = { ...successStatus(), code: 201 };
  writeOutput(ctx, scope, { kind: 'object', serialization: output.serialization }, 201, [status as never], {}, false);
}

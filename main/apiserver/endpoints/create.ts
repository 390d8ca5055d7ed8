// POST a collection (k8s.io/apiserver handlers/create.go): decode (+ strict
// field validation) → namespace from the URL → the store's create lifecycle
// (registry/store/create.ts) → 201. dryRun=All runs everything but the write.

import type { RequestContext } from '../server/context';
import { createInStore } from '../registry/store/create';
import { reconcileNamespace } from '../registry/store/objectMeta';
import type { ResourceScope } from '../registry/store/scope';
import { decodeObject } from './decodeObject';
import { negotiateOutput } from './outputFormat';
import { writeCreated, writeOutput } from './read';
import { writeRequestOf } from './storeRequest';
import { parseWriteOptions } from './writeOptions';

export async function createObject(ctx: RequestContext, scope: ResourceScope): Promise<void> {
  const opts = parseWriteOptions(ctx, 'CreateOptions');
  const output = negotiateOutput(ctx.req.headers.accept, false);
  const obj = await ctx.trace.stage('decode', () => decodeObject(ctx, scope, opts.fieldValidation));
  reconcileNamespace(scope, obj, ctx.info.namespace);
  const created = await createInStore(scope, obj, writeRequestOf(ctx, opts, 'Update'));
  if (opts.dryRun) writeOutput(ctx, scope, output, 201, [created], {}, false);
  else writeCreated(ctx, scope, output, created);
}

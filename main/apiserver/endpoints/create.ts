// POST a collection (k8s.io/apiserver handlers/create.go + registry/rest
// create.go + generic Store.Create), in kube's order:
//   decode (+ strict field validation) → namespace from the URL → defaults →
//   managedFields → mutating admission → beginCreate (allocations) →
//   prepareForCreate → generateName → system fields → validate (422) →
//   validating admission → etcd create (409 AlreadyExists) → 201.
// dryRun=All runs everything but the write. generateName retries a taken
// name as kube's RetryGenerateName does.

import type { KObject } from '../../kube/object';
import { alreadyExists, failure, invalid } from '../api/status';
import type { RequestContext } from '../server/context';
import { runMutating, runValidating } from '../admission/run';
import type { AdmissionAttributes } from '../admission/interfaces';
import { decodeObject } from './decodeObject';
import { recordManagedFields } from '../registry/store/managedFields';
import { fillSystemFields, generateNameFrom, reconcileNamespace, resourceVersionOnCreate } from '../registry/store/objectMeta';
import { negotiateOutput } from './outputFormat';
import { writeCreated, writeOutput } from './read';
import { readable } from '../registry/store/readable';
import { keyFor, strategyContext, type ResourceScope } from '../registry/store/scope';
import { interpretStorageError } from '../registry/store/storageErrors';
import { parseWriteOptions } from './writeOptions';
import { StorageError } from '../storage/interface';

const GENERATE_NAME_RETRIES = 8;

export async function createObject(ctx: RequestContext, scope: ResourceScope): Promise<void> {
  const opts = parseWriteOptions(ctx, 'CreateOptions');
  const output = negotiateOutput(ctx.req.headers.accept, false);
  const obj = await ctx.trace.stage('decode', () => decodeObject(ctx, scope, opts.fieldValidation));
  reconcileNamespace(scope, obj, ctx.info.namespace);
  const created = await createDecoded(ctx, scope, obj, opts.dryRun, opts.fieldManager, 'Update');
  if (opts.dryRun) writeOutput(ctx, scope, output, 201, [created], {}, false);
  else writeCreated(ctx, scope, output, created);
}

/** The create lifecycle for an already decoded object (also used by PUT/apply that create). */
export async function createDecoded(
  ctx: RequestContext,
  scope: ResourceScope,
  obj: KObject,
  dryRun: boolean,
  fieldManager: string,
  operation: 'Update' | 'Apply',
): Promise<KObject> {
  const { def } = scope;
  const sctx = strategyContext(scope, ctx.user!, ctx.info.namespace, dryRun);
  if (obj.metadata.resourceVersion) throw resourceVersionOnCreate();
  def.strategy.defaults(obj);
  if (operation === 'Update') recordManagedFields(scope, undefined, obj, fieldManager, 'Update', ctx.info.subresource, scope.services.now());

  const attrs: AdmissionAttributes = {
    operation: 'CREATE',
    group: def.group,
    version: def.version,
    kind: def.kind,
    resource: def.resource,
    subresource: ctx.info.subresource,
    namespace: obj.metadata.namespace ?? '',
    name: obj.metadata.name ?? '',
    user: ctx.user!,
    dryRun,
    object: obj,
    warnings: ctx.warnings,
    auditAnnotations: ctx.auditAnnotations,
  };
  await runMutating(scope.services.admission, attrs, ctx.trace);

  const finish = def.strategy.beginCreate ? await ctx.trace.stage('allocate', () => def.strategy.beginCreate!(obj, sctx)) : undefined;
  let ok = false;
  try {
    delete obj.metadata.deletionTimestamp;
    delete obj.metadata.deletionGracePeriodSeconds;
    const generated = !obj.metadata.name && !!obj.metadata.generateName;
    await def.strategy.prepareForCreate(obj, sctx);
    if (generated && !obj.metadata.name) obj.metadata.name = generateNameFrom(obj.metadata.generateName!);
    fillSystemFields(obj, scope.services.now());
    await ctx.trace.stage(
      'validation',
      () => {
        const errs = metaNameErrors(obj).length > 0 ? metaNameErrors(obj) : def.strategy.validate(obj, sctx);
        if (errs.length > 0) throw invalid({ group: def.group, kind: def.kind }, obj.metadata.name ?? '', errs);
      },
      () => 'allow',
    );
    attrs.name = obj.metadata.name ?? '';
    await runValidating(scope.services.admission, attrs, ctx.trace);

    let result: KObject;
    if (dryRun) {
      result = obj;
      ctx.trace.storage('dry-run');
    } else {
      result = await ctx.trace.stage('storage', () => storeWithRetries(ctx, scope, obj, generated));
      ctx.trace.storage('created', result.metadata.resourceVersion);
    }
    ok = true;
    return readable(scope, result);
  } finally {
    if (finish) await finish(ok && !dryRun);
  }
}

async function storeWithRetries(ctx: RequestContext, scope: ResourceScope, obj: KObject, generated: boolean): Promise<KObject> {
  const ttlSeconds = scope.def.ttlSeconds?.(obj);
  for (let attempt = 0; ; attempt++) {
    const name = obj.metadata.name!;
    try {
      return await scope.storage.create(keyFor(scope, obj.metadata.namespace ?? '', name), obj, ttlSeconds ? { ttlSeconds } : undefined);
    } catch (err) {
      if (err instanceof StorageError && err.code === 'KeyExists' && generated) {
        if (attempt + 1 < GENERATE_NAME_RETRIES) {
          obj.metadata.name = generateNameFrom(obj.metadata.generateName!);
          continue;
        }
        const base = alreadyExists(scope.qr, name).status;
        throw failure(409, 'AlreadyExists', `${base.message}, the server was not able to generate a unique name for the object`, base.details);
      }
      throw interpretStorageError(err, scope.qr, name, 'create');
    }
  }
}

/** ValidateObjectMeta's first check: a name or generateName is required. */
function metaNameErrors(obj: KObject) {
  if (!obj.metadata.name && !obj.metadata.generateName) {
    return [{ type: 'FieldValueRequired' as const, field: 'metadata.name', detail: 'name or generateName is required' }];
  }
  return [];
}

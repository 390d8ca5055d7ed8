// The create lifecycle of the generic registry store (k8s.io/apiserver
// registry/rest create.go + generic Store.Create), in kube's order:
//   defaults → managedFields → mutating admission → beginCreate (allocations)
//   → prepareForCreate → generateName → system fields → validate (422) →
//   validating admission → etcd create (409 AlreadyExists).
// dryRun runs everything but the write. generateName retries a taken name as
// kube's RetryGenerateName does. The REST handlers call it for POST (and for
// PUT/apply that create); the server's own writes (bootstrap objects,
// ServerEnv.createObject) call it with no request behind them.

import type { KObject } from '../../../kube/object';
import { alreadyExists, failure, invalid } from '../../api/status';
import { runMutating, runValidating } from '../../admission/run';
import type { AdmissionAttributes } from '../../admission/interfaces';
import { untraced } from '../../server/traceRecorder';
import { StorageError } from '../../storage/interface';
import { recordManagedFields } from './managedFields';
import { fillSystemFields, generateNameFrom, resourceVersionOnCreate } from './objectMeta';
import { readable } from './readable';
import { keyFor, strategyContext, type ResourceScope } from './scope';
import { interpretStorageError } from './storageErrors';
import type { WriteRequest } from './writeRequest';

const GENERATE_NAME_RETRIES = 8;

/** The create lifecycle for a decoded object; the created object as clients see it. */
export async function createInStore(scope: ResourceScope, obj: KObject, req: WriteRequest): Promise<KObject> {
  const { def } = scope;
  const trace = req.trace ?? untraced;
  const subresource = req.subresource ?? '';
  const dryRun = req.dryRun;
  const sctx = strategyContext(scope, req.user, req.namespace, dryRun);
  if (obj.metadata.resourceVersion) throw resourceVersionOnCreate();
  def.strategy.defaults(obj);
  if (req.operation === 'Update') recordManagedFields(scope, undefined, obj, req.fieldManager, 'Update', subresource, scope.services.now());

  const attrs: AdmissionAttributes = {
    operation: 'CREATE',
    group: def.group,
    version: def.version,
    kind: def.kind,
    resource: def.resource,
    subresource,
    namespace: obj.metadata.namespace ?? '',
    name: obj.metadata.name ?? '',
    user: req.user,
    dryRun,
    object: obj,
    warnings: req.warnings ?? [],
    auditAnnotations: req.auditAnnotations ?? {},
  };
  await runMutating(scope.services.admission, attrs, trace);

  const finish = def.strategy.beginCreate ? await trace.stage('allocate', () => def.strategy.beginCreate!(obj, sctx)) : undefined;
  let ok = false;
  try {
    delete obj.metadata.deletionTimestamp;
    delete obj.metadata.deletionGracePeriodSeconds;
    const generated = !obj.metadata.name && !!obj.metadata.generateName;
    await def.strategy.prepareForCreate(obj, sctx);
    if (generated && !obj.metadata.name) obj.metadata.name = generateNameFrom(obj.metadata.generateName!);
    fillSystemFields(obj, scope.services.now());
    await trace.stage(
      'validation',
      () => {
        const errs = metaNameErrors(obj).length > 0 ? metaNameErrors(obj) : def.strategy.validate(obj, sctx);
        if (errs.length > 0) throw invalid({ group: def.group, kind: def.kind }, obj.metadata.name ?? '', errs);
      },
      () => 'allow',
    );
    attrs.name = obj.metadata.name ?? '';
    await runValidating(scope.services.admission, attrs, trace);

    let result: KObject;
    if (dryRun) {
      result = obj;
      trace.storage('dry-run');
    } else {
      result = await trace.stage('storage', () => storeWithRetries(scope, obj, generated));
      trace.storage('created', result.metadata.resourceVersion);
    }
    ok = true;
    return readable(scope, result);
  } finally {
    if (finish) await finish(ok && !dryRun);
  }
}

async function storeWithRetries(scope: ResourceScope, obj: KObject, generated: boolean): Promise<KObject> {
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

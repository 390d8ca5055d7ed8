// Server-side apply (PATCH with application/apply-patch+yaml, as kube's
// applyPatcher): patch/serverSideApply.ts's apply() lays the config over the live object and
// recomputes field ownership (409 apply conflicts unless force); the result
// then goes through the update lifecycle like any write — or the create
// lifecycle when the object does not exist yet. A resourceVersion in the
// config is a precondition.

import type { KObject } from '../../kube/object';
import { messageForKind } from '../patch/patchMeta';
import { apply, parseApplyBody } from '../patch/serverSideApply';
import type { RequestContext } from '../server/context';
import { applyFieldValidation } from './decodeObject';
import { ignoredPathsFor } from '../registry/store/managedFields';
import { checkNameMatchesUrl } from '../registry/store/objectMeta';
import type { ResourceScope } from '../registry/store/scope';
import { updateInStore } from '../registry/store/update';
import { writeRequestOf } from './storeRequest';
import type { FieldValidation } from './writeOptions';

export interface ApplyOptions {
  dryRun: boolean;
  fieldManager: string;
  force: boolean;
  fieldValidation: FieldValidation;
}

export async function applyPatch(ctx: RequestContext, scope: ResourceScope, body: Buffer, opts: ApplyOptions): Promise<{ object: KObject; created: boolean }> {
  const applied = parseApplyBody(body);
  const name = ctx.info.name;
  const sub = ctx.info.subresource;
  const gvk = { group: scope.def.group, version: scope.def.version, kind: scope.def.kind };
  applyFieldValidation(ctx, gvk, applied as unknown as KObject, opts.fieldValidation);
  const appliedMeta = (applied.metadata ?? {}) as KObject['metadata'];
  if (appliedMeta.name !== undefined) checkNameMatchesUrl(applied as unknown as KObject, name);
  const strategy = sub === 'status' && scope.def.statusStrategy ? scope.def.statusStrategy : scope.def.strategy;
  const r = await updateInStore(scope, {
    ...writeRequestOf(ctx, opts, 'Apply'),
    name,
    strategy,
    allowCreate: sub === '',
    requireResourceVersion: false,
    updatedObject: (current) => {
      const result = apply({
        live: current,
        applied: structuredClone(applied),
        manager: opts.fieldManager,
        force: opts.force,
        apiVersion: scope.apiVersion,
        now: scope.services.now(),
        message: messageForKind(scope.apiVersion, scope.def.kind),
        subresource: sub || undefined,
        ignoredPaths: ignoredPathsFor(scope, sub),
      });
      const obj = result.object;
      obj.metadata ??= {};
      if (result.managedFields && result.managedFields.length > 0) obj.metadata.managedFields = result.managedFields;
      if (appliedMeta.resourceVersion) obj.metadata.resourceVersion = appliedMeta.resourceVersion;
      else delete obj.metadata.resourceVersion;
      if (!obj.metadata.name) obj.metadata.name = name;
      return obj;
    },
  });
  return r;
}

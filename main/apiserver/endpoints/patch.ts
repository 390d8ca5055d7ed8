// PATCH of an object, its /status or its /scale (handlers/patch.go): the
// Content-Type names the patch type — JSON patch, JSON merge patch,
// strategic merge patch (merge keys from the type's patch metadata) or
// server-side apply — and the patch is applied to the current object inside
// the update lifecycle, so a lost race re-applies it to the fresh object
// (kube retries patches without a resourceVersion the same way). A patch
// that sets metadata.resourceVersion is a precondition (409 on mismatch).
// A missing object is 404, except for apply, which creates it.

import type { KObject } from '../../kube/object';
import { failure, unsupportedMediaType } from '../api/status';
import { jsonPatch } from '../patch/jsonPatch';
import { mergePatch } from '../patch/mergePatch';
import { messageForKind } from '../patch/patchMeta';
import { patchDecodeInvalid, patchTypeOf, validatePatchOptions, PATCH_CONTENT_TYPES, type PatchType } from '../patch/patchStatus';
import { strategicMergePatch } from '../patch/strategicMerge';
import type { RequestContext } from '../server/context';
import { truthy } from '../server/requestInfo';
import { applyPatch } from './apply';
import { applyFieldValidation } from './decodeObject';
import { negotiateOutput } from './outputFormat';
import { writeOutput } from './read';
import { readBody } from './requestBody';
import { SCALE_KIND } from './scale';
import type { ResourceScope } from '../registry/store/scope';
import { updateInStore } from '../registry/store/update';
import { writeRequestOf } from './storeRequest';
import { parseWriteOptions, type FieldValidation } from './writeOptions';

/** kube lists the patch types in this order in its 415. */
const ACCEPTED = [PATCH_CONTENT_TYPES.json, PATCH_CONTENT_TYPES.merge, PATCH_CONTENT_TYPES.apply, PATCH_CONTENT_TYPES.strategic];

export async function patchObject(ctx: RequestContext, scope: ResourceScope): Promise<void> {
  const type = patchTypeOf(ctx.req.headers['content-type']);
  if (!type) throw unsupportedMediaType(ACCEPTED);
  const opts = parseWriteOptions(ctx, 'PatchOptions');
  const forceParam = ctx.url.searchParams.get('force');
  const force = forceParam === null ? undefined : truthy(forceParam);
  validatePatchOptions({ fieldManager: ctx.url.searchParams.get('fieldManager') ?? undefined, force }, type);
  const output = negotiateOutput(ctx.req.headers.accept, false);
  const body = await readBody(ctx);
  const sub = ctx.info.subresource;
  const name = ctx.info.name;

  if (type === 'apply') {
    const r = await applyPatch(ctx, scope, body, { dryRun: opts.dryRun, fieldManager: opts.fieldManager, force: force ?? false, fieldValidation: opts.fieldValidation });
    if (sub === 'scale' && scope.def.scale) {
      writeOutput(ctx, scope, { kind: 'object', serialization: output.serialization }, r.created ? 201 : 200, [scope.def.scale.toScale(r.object)], {}, false);
    } else writeOutput(ctx, scope, output, r.created ? 201 : 200, [r.object], {}, false);
    return;
  }

  if (sub === 'scale' && scope.def.scale) {
    const scaleDef = scope.def.scale;
    const r = await updateInStore(scope, {
      ...writeRequestOf(ctx, opts, 'Update'),
      name,
      strategy: scope.def.strategy,
      allowCreate: false,
      requireResourceVersion: false,
      updatedObject: (current) => {
        const obj = current!;
        const scale = scaleDef.toScale(obj);
        const patched = applyOne(ctx, type, scale, body, messageForKind('autoscaling/v1', 'Scale'), opts.fieldValidation, SCALE_KIND);
        scaleDef.applyScale(obj, patched);
        if (patched.metadata?.resourceVersion && patched.metadata.resourceVersion !== scale.metadata.resourceVersion) obj.metadata.resourceVersion = patched.metadata.resourceVersion;
        return obj;
      },
    });
    writeOutput(ctx, scope, { kind: 'object', serialization: output.serialization }, 200, [scaleDef.toScale(r.object)], {}, false);
    return;
  }

  const strategy = sub === 'status' && scope.def.statusStrategy ? scope.def.statusStrategy : scope.def.strategy;
  const gvk = { group: scope.def.group, version: scope.def.version, kind: scope.def.kind };
  const r = await updateInStore(scope, {
    ...writeRequestOf(ctx, opts, 'Update'),
    name,
    strategy,
    allowCreate: false,
    requireResourceVersion: false,
    updatedObject: (current) => applyOne(ctx, type, current!, body, messageForKind(scope.apiVersion, scope.def.kind), opts.fieldValidation, gvk),
  });
  writeOutput(ctx, scope, output, 200, [r.object], {}, false);
}

/**
 * Applies one non-apply patch to `current`; the result must still be an
 * object of the type (patchDecodeInvalid otherwise). The current
 * resourceVersion is dropped first so only a patch that names one makes it
 * a precondition.
 */
function applyOne(
  ctx: RequestContext,
  type: Exclude<PatchType, 'apply'>,
  current: KObject,
  body: Buffer,
  message: string | undefined,
  fieldValidation: FieldValidation,
  gvk: { group: string; version: string; kind: string },
): KObject {
  const base = structuredClone(current);
  const rv = base.metadata.resourceVersion;
  const strict = fieldValidation !== 'Ignore';
  let patched: unknown;
  if (type === 'json') patched = jsonPatch(base, body);
  else if (type === 'merge') patched = mergePatch(base, body, { strict });
  else patched = strategicMergePatch(base, body, message, { strict });
  if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) {
    const text = JSON.stringify(patched);
    throw patchDecodeInvalid(text, `json: cannot unmarshal ${Array.isArray(patched) ? 'array' : typeof patched} into Go value of type map[string]interface {}`);
  }
  const obj = patched as KObject;
  if (typeof obj.metadata !== 'object' || obj.metadata === null) obj.metadata = {};
  const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
  if ((obj.apiVersion && obj.apiVersion !== apiVersion) || (obj.kind && obj.kind !== gvk.kind)) {
    throw failure(400, 'BadRequest', `the object provided is unrecognized (must be of type ${gvk.kind})`);
  }
  applyFieldValidation(ctx, gvk, obj, fieldValidation);
  // Only an explicit resourceVersion in the patch is a precondition.
  if (obj.metadata.resourceVersion === rv) delete obj.metadata.resourceVersion;
  return obj;
}

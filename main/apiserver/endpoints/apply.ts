// Server-side apply (PATCH with application/apply-patch+yaml): the
// field-ownership merge is H5's (main/apiserver/patch/serverSideApply.ts);
// until that module is in the tree, apply answers 415 exactly as a server
// without server-side apply does, which kubectl reports as "Server-side
// apply not available on the server".

import type { KObject } from '../api/object';
import { unsupportedMediaType } from '../api/status';
import { PATCH_CONTENT_TYPES } from '../patch/patchStatus';
import type { RequestContext } from '../server/context';
import type { ResourceScope } from './scope';
import type { FieldValidation } from './writeOptions';

export interface ApplyOptions {
  dryRun: boolean;
  fieldManager: string;
  force: boolean;
  fieldValidation: FieldValidation;
}

export async function applyPatch(_ctx: RequestContext, _scope: ResourceScope, _body: Buffer, _opts: ApplyOptions): Promise<{ object: KObject; created: boolean }> {
  throw unsupportedMediaType([PATCH_CONTENT_TYPES.json, PATCH_CONTENT_TYPES.merge, PATCH_CONTENT_TYPES.strategic]);
}

// The Status errors kube's PATCH handler (k8s.io/apiserver
// pkg/endpoints/handlers/patch.go) returns around the patch libraries, kept
// in one place so every patch type reports failures the same way.

import { failure, fieldErrorBody, goValue, invalid, type FieldError, type StatusError } from '../api/status';

/** The Content-Type values a PATCH may carry (types.PatchType). */
export const PATCH_CONTENT_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

export type PatchType = keyof typeof PATCH_CONTENT_TYPES;

/** Maps a Content-Type header (parameters ignored, as patch.go cuts at ';') to a patch type. */
export function patchTypeOf(contentType: string | undefined): PatchType | undefined {
  const base = (contentType ?? '').split(';')[0].trim().toLowerCase();
  for (const [k, v] of Object.entries(PATCH_CONTENT_TYPES)) if (v === base) return k as PatchType;
  return undefined;
}

/**
 * 422 "the server rejected our request due to an error in our request" with
 * empty details: NewGenericServerResponse(422, ...) as patch.go uses it for a
 * failed JSON patch operation and for lists of lists in a strategic patch.
 */
export function genericUnprocessable(): StatusError {
  return failure(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
}

/**
 * 422 when the patched document no longer decodes into the type:
 * NewInvalid(GroupKind{}, "", field.Invalid(field.NewPath("patch"), patchedJSON, decodeErr)).
 * Message: ` "" is invalid: patch: Invalid value: "<patched json>": <decodeErr>`.
 */
export function patchDecodeInvalid(patchedJson: string, decodeError: string): StatusError {
  const e: FieldError = { type: 'FieldValueInvalid', field: 'patch', badValue: patchedJson, detail: decodeError };
  return failure(422, 'Invalid', ` "" is invalid: patch: ${fieldErrorBody(e)}`, {
    causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: ${goValue(patchedJson)}: ${decodeError}`, field: 'patch' }],
  });
}

export interface PatchOptionsLike {
  fieldManager?: string;
  force?: boolean;
}

/**
 * ValidatePatchOptions: `force` only with apply; apply needs a fieldManager.
 * Throws 422 `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`.
 */
export function validatePatchOptions(options: PatchOptionsLike, type: PatchType): void {
  const errs: FieldError[] = [];
  if (type !== 'apply') {
    if (options.force !== undefined) errs.push({ type: 'FieldValueForbidden', field: 'force', detail: 'may not be specified for non-apply patch' });
  } else if (!options.fieldManager) {
    errs.push({ type: 'FieldValueRequired', field: 'fieldManager', detail: 'is required for apply patch' });
  }
  if (errs.length) throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', errs);
}

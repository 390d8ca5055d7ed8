// Unknown, duplicate and mistyped fields of a decoded body, checked against
// the type's schema by the strict decoder (schema/strictDecoding.ts), and
// what fieldValidation makes of them: a type error is always a 400; unknown
// or duplicate fields are a 400 under Strict (`<Kind> in version "<v>"
// cannot be handled as a <Kind>: strict decoding error: unknown field
// "spec.foo"`), Warning headers under Warn, nothing under Ignore.

import type { KObject } from '../../kube/object';
import { badRequest } from '../api/status';
import { decodeErrorMessage, strictDecode } from '../../kube/schema/strictDecoding';
import type { RequestContext } from '../server/context';
import type { FieldValidation } from './writeOptions';

export function checkFields(ctx: RequestContext, gvk: { group: string; version: string; kind: string }, obj: KObject | unknown, mode: FieldValidation, rawJson?: string): void {
  const result = strictDecode(gvk, obj, rawJson);
  const message = decodeErrorMessage(gvk, result, mode === 'Strict');
  if (message) throw badRequest(message);
  if (mode === 'Warn') ctx.warnings.push(...result.strictErrors);
}

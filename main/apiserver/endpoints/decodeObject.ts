// Reading a write request's object: body → JSON value (requestBody.ts) →
// type meta checked against the endpoint → strict field validation
// (unknown / duplicate fields, per fieldValidation: Strict is a 400
// `<Kind> in version "<v>" cannot be handled as a <Kind>: strict decoding
// error: unknown field "spec.foo"`, Warn turns each into a Warning header,
// Ignore drops them) → the object.

import type { KObject } from '../api/object';
import { badRequest } from '../api/status';
import { unknownFieldErrors } from './fieldValidation';
import type { RequestContext } from '../server/context';
import { bodyFormat, BodyParseError, parseBody, readBody, undecodable } from './requestBody';
import { checkBodyType } from './objectMeta';
import type { ResourceScope } from './scope';
import type { FieldValidation } from './writeOptions';

export interface ExpectedType {
  group: string;
  version: string;
  kind: string;
}

export async function decodeObject(ctx: RequestContext, scope: ResourceScope, fieldValidation: FieldValidation, expect?: ExpectedType): Promise<KObject> {
  const want = expect ?? { group: scope.def.group, version: scope.def.version, kind: scope.def.kind };
  const apiVersion = want.group ? `${want.group}/${want.version}` : want.version;
  const format = bodyFormat(ctx.req.headers['content-type']);
  const data = await readBody(ctx.req);
  let value: unknown;
  try {
    value = parseBody(data, format);
  } catch (err) {
    if (err instanceof BodyParseError) throw undecodable(want.kind, err, data);
    throw err;
  }
  const obj = checkBodyType(scope, value, { apiVersion, kind: want.kind });
  applyFieldValidation(ctx, want, obj, fieldValidation);
  return obj;
}

export function applyFieldValidation(ctx: RequestContext, want: ExpectedType, obj: KObject, mode: FieldValidation): void {
  if (mode === 'Ignore') return;
  const problems = unknownFieldErrors(want, obj);
  if (problems.length === 0) return;
  if (mode === 'Strict') {
    throw badRequest(`${want.kind} in version "${want.version}" cannot be handled as a ${want.kind}: strict decoding error: ${problems.join(', ')}`);
  }
  ctx.warnings.push(...problems);
}

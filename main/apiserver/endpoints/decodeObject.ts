// Reading a write request's object: body → JSON value (requestBody.ts) →
// type meta checked against the endpoint → strict field validation
// (unknown / duplicate fields, per fieldValidation: Strict is a 400
// `<Kind> in version "<v>" cannot be handled as a <Kind>: strict decoding
// error: unknown field "spec.foo"`, Warn turns each into a Warning header,
// Ignore drops them) → the object.

import type { KObject } from '../../kube/object';
import { checkFields } from './fieldValidation';
import type { RequestContext } from '../server/context';
import { PROTOBUF_MEDIA_TYPE } from '../../kube/codec';
import { bodyFormat, BodyParseError, parseBody, readBody, undecodable } from './requestBody';
import { checkBodyType } from '../registry/store/objectMeta';
import type { ResourceScope } from '../registry/store/scope';
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
  const data = await readBody(ctx);
  let value: unknown;
  try {
    value = parseBody(data, format);
  } catch (err) {
    if (err instanceof BodyParseError) throw undecodable(want.kind, err, data);
    throw err;
  }
  if (format !== PROTOBUF_MEDIA_TYPE && fieldValidation !== 'Ignore') {
    checkFields(ctx, want, value, fieldValidation, format === 'application/json' ? data.toString('utf8') : undefined);
  }
  const obj = checkBodyType(scope, value, { apiVersion, kind: want.kind });
  const meta = obj.metadata;
  // Read now: admission and defaulting change the object from here on.
  if (meta) ctx.requestObjectMeta = { namespace: meta.namespace, name: meta.name, uid: meta.uid, resourceVersion: meta.resourceVersion };
  return obj;
}

/** Field validation of an object built by the server (a patched object): no raw text, so no duplicate-key check. */
export function applyFieldValidation(ctx: RequestContext, want: ExpectedType, obj: KObject, mode: FieldValidation): void {
  if (mode === 'Ignore') return;
  checkFields(ctx, want, obj, mode);
}

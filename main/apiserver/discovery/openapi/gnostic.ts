// A Swagger 2.0 document as gnostic's openapi.v2.Document protobuf: what
// kube-apiserver sends for /openapi/v2 to a client asking for
// application/com.github.proto-openapi.spec.v2.v1.0+protobuf, and what
// kubectl decodes for client-side validation. The mapping is gnostic's
// compiler's: maps become repeated Named<T> pairs in document order; `type`
// is a TypeItem, `items` an ItemsItem; a parameter is a BodyParameter or
// one of NonBodyParameter's sub-schemas by its `in`; every `x-` key becomes
// a vendor_extension whose value is YAML text, as are `default`, `enum` and
// `example`. A key gnostic has no field for is an error here rather than
// silently dropped, so a schema this file cannot express is caught in tests.

import type protobuf from 'protobufjs';
import { stringify } from 'yaml';
import { protoBundle } from '../../../common/protoBundles';
import type { JsonObject } from './components';

type Msg = Record<string, unknown>;

let documentType: protobuf.Type | undefined;

function gnosticDocument(): protobuf.Type {
  if (!documentType) {
    documentType = protoBundle('gnostic').lookupType('openapi.v2.Document');
  }
  return documentType;
}

/** The protobuf bytes of a Swagger 2.0 document. */
export function encodeGnosticDocument(doc: JsonObject): Uint8Array {
  const type = gnosticDocument();
  const msg = documentMessage(doc);
  const err = type.verify(msg);
  if (err) throw new Error(`openapi v2 protobuf: ${err}`);
  return type.encode(type.fromObject(msg)).finish();
}

/** Decodes bytes written by encodeGnosticDocument into gnostic's message shape (for tests and tools). */
export function decodeGnosticDocument(bytes: Uint8Array): Msg {
  const type = gnosticDocument();
  return type.toObject(type.decode(bytes), { longs: Number, defaults: false, arrays: true, oneofs: false }) as Msg;
}

function any(value: unknown): Msg {
  return { yaml: stringify(value) };
}

function obj(v: unknown, where: string): JsonObject {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`openapi v2 protobuf: ${where} is not an object`);
  return v as JsonObject;
}

/**
 * Copies `from`'s keys into a message: `scalars` map JSON names to field
 * names, `x-` keys become vendor_extension entries, `custom` handles the rest;
 * any other key is an error.
 */
function fill(from: JsonObject, where: string, scalars: Record<string, string>, custom: Record<string, (v: unknown, out: Msg) => void> = {}): Msg {
  const out: Msg = {};
  const ext: Msg[] = [];
  for (const [k, v] of Object.entries(from)) {
    if (k in custom) custom[k](v, out);
    else if (k in scalars) out[scalars[k]] = v;
    else if (k.startsWith('x-')) ext.push({ name: k, value: any(v) });
    else throw new Error(`openapi v2 protobuf: ${where}: no gnostic field for "${k}"`);
  }
  if (ext.length > 0) out.vendor_extension = ext;
  return out;
}

const named = <T>(o: unknown, where: string, value: (v: unknown, name: string) => T): { name: string; value: T }[] =>
  Object.entries(obj(o, where)).map(([name, v]) => ({ name, value: value(v, name) }));

function documentMessage(doc: JsonObject): Msg {
  return fill(doc, 'document', { swagger: 'swagger', host: 'host', basePath: 'base_path', schemes: 'schemes', consumes: 'consumes', produces: 'produces' }, {
    info: (v, out) => (out.info = fill(obj(v, 'info'), 'info', { title: 'title', version: 'version', description: 'description' })),
    paths: (v, out) => (out.paths = { path: named(v, 'paths', (item, p) => pathItem(obj(item, p), p)) }),
    definitions: (v, out) => (out.definitions = { additional_properties: named(v, 'definitions', (s, n) => schema(obj(s, n), n)) }),
    securityDefinitions: (v, out) => (out.security_definitions = { additional_properties: named(v, 'securityDefinitions', (s, n) => securityDefinition(obj(s, n), n)) }),
    security: (v, out) =>
      (out.security = (v as JsonObject[]).map((req) => ({ additional_properties: named(req, 'security', (scopes) => ({ value: scopes as string[] })) }))),
  });
}

function securityDefinition(s: JsonObject, where: string): Msg {
  if (s.type !== 'apiKey') throw new Error(`openapi v2 protobuf: ${where}: only apiKey security is written`);
  return { api_key_security: fill(s, where, { type: 'type', name: 'name', in: 'in', description: 'description' }) };
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

function pathItem(item: JsonObject, where: string): Msg {
  const custom: Record<string, (v: unknown, out: Msg) => void> = {
    parameters: (v, out) => (out.parameters = (v as JsonObject[]).map((p, i) => parametersItem(p, `${where} parameters[${i}]`))),
  };
  for (const m of METHODS) custom[m] = (v, out) => (out[m] = operation(obj(v, `${where} ${m}`), `${where} ${m}`));
  return fill(item, where, { $ref: '_ref' }, custom);
}

function operation(op: JsonObject, where: string): Msg {
  return fill(
    op,
    where,
    { tags: 'tags', summary: 'summary', description: 'description', operationId: 'operation_id', produces: 'produces', consumes: 'consumes', schemes: 'schemes', deprecated: 'deprecated' },
    {
      parameters: (v, out) => (out.parameters = (v as JsonObject[]).map((p, i) => parametersItem(p, `${where} parameters[${i}]`))),
      responses: (v, out) =>
        (out.responses = {
          response_code: named(v, `${where} responses`, (r, code) => ({ response: response(obj(r, code), `${where} ${code}`) })),
        }),
    },
  );
}

function response(r: JsonObject, where: string): Msg {
  return fill(r, where, { description: 'description' }, { schema: (v, out) => (out.schema = { schema: schema(obj(v, where), where) }) });
}

const SUB_SCHEMA_FIELD: Record<string, string> = {
  query: 'query_parameter_sub_schema',
  path: 'path_parameter_sub_schema',
  header: 'header_parameter_sub_schema',
  formData: 'form_data_parameter_sub_schema',
};

function parametersItem(p: JsonObject, where: string): Msg {
  if (typeof p.$ref === 'string') return { json_reference: fill(p, where, { $ref: '_ref', description: 'description' }) };
  if (p.in === 'body') {
    return {
      parameter: {
        body_parameter: fill(p, where, { description: 'description', name: 'name', in: 'in', required: 'required' }, { schema: (v, out) => (out.schema = schema(obj(v, where), where)) }),
      },
    };
  }
  const field = SUB_SCHEMA_FIELD[String(p.in)];
  if (!field) throw new Error(`openapi v2 protobuf: ${where}: parameter in "${String(p.in)}"`);
  const sub = fill(p, where, { required: 'required', in: 'in', description: 'description', name: 'name', type: 'type', format: 'format', uniqueItems: 'unique_items' });
  return { parameter: { non_body_parameter: { [field]: sub } } };
}

function schema(s: JsonObject, where: string): Msg {
  return fill(
    s,
    where,
    {
      $ref: '_ref',
      format: 'format',
      title: 'title',
      description: 'description',
      multipleOf: 'multiple_of',
      maximum: 'maximum',
      exclusiveMaximum: 'exclusive_maximum',
      minimum: 'minimum',
      exclusiveMinimum: 'exclusive_minimum',
      maxLength: 'max_length',
      minLength: 'min_length',
      pattern: 'pattern',
      maxItems: 'max_items',
      minItems: 'min_items',
      uniqueItems: 'unique_items',
      maxProperties: 'max_properties',
      minProperties: 'min_properties',
      required: 'required',
      discriminator: 'discriminator',
      readOnly: 'read_only',
    },
    {
      default: (v, out) => (out.default = any(v)),
      example: (v, out) => (out.example = any(v)),
      enum: (v, out) => (out.enum = (v as unknown[]).map(any)),
      type: (v, out) => (out.type = { value: Array.isArray(v) ? v : [v] }),
      items: (v, out) => (out.items = { schema: (Array.isArray(v) ? v : [v]).map((i, n) => schema(obj(i, `${where}[]`), `${where}[${n}]`)) }),
      allOf: (v, out) => (out.all_of = (v as JsonObject[]).map((a, n) => schema(a, `${where} allOf[${n}]`))),
      properties: (v, out) => (out.properties = { additional_properties: named(v, `${where} properties`, (p, n) => schema(obj(p, `${where}.${n}`), `${where}.${n}`)) }),
      additionalProperties: (v, out) =>
        (out.additional_properties = typeof v === 'boolean' ? { boolean: v } : { schema: schema(obj(v, `${where}{}`), `${where}{}`) }),
    },
  );
}

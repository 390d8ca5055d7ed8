// The OpenAPI v2 (Swagger 2.0) document kube-apiserver serves at
// /openapi/v2, derived from our per-group-version OpenAPI v3 documents:
// one document for every served group-version, schemas under `definitions`,
// references as `#/definitions/<name>`, a field's `allOf: [{$ref}]` written
// as a plain `$ref` beside its description and default (as kube-openapi
// writes v2), operations with `consumes`/`produces`/`schemes`, query and path
// parameters typed inline, a request body as an `in: body` parameter, and
// each response's schema without a media-type map.
//
// kubectl falls back to this document for client-side validation — always
// for a `kind: List` (`kubectl replace -f -` of `kubectl get -o json`), and for
// `kubectl explain` when /openapi/v3 is missing.

import type { JsonObject } from './components';

const V3_REF = '#/components/schemas/';
const V2_REF = '#/definitions/';

/** A schema with v3 references turned into v2 ones and single-element allOf wrappers unwrapped. */
export function v2Schema(schema: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$ref' && typeof v === 'string') out.$ref = v.startsWith(V3_REF) ? V2_REF + v.slice(V3_REF.length) : v;
    else if (k === 'allOf' && Array.isArray(v) && v.length === 1 && typeof (v[0] as JsonObject).$ref === 'string') Object.assign(out, v2Schema(v[0] as JsonObject));
    else if (k === 'allOf' && Array.isArray(v)) out.allOf = v.map((s) => v2Schema(s as JsonObject));
    else if (k === 'properties' && isObject(v)) out.properties = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, v2Schema(s as JsonObject)]));
    else if ((k === 'items' || k === 'additionalProperties') && isObject(v)) out[k] = v2Schema(v);
    else out[k] = v;
  }
  return out;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A v3 parameter (schema nested) as a v2 one (type, format, uniqueItems inline). */
function v2Parameter(p: JsonObject): JsonObject {
  const { schema, ...rest } = p as JsonObject & { schema?: JsonObject };
  return { ...(schema ?? {}), ...rest };
}

const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

function v2Operation(op: JsonObject): JsonObject {
  const { requestBody, responses, parameters, ...rest } = op as JsonObject & {
    requestBody?: { content?: Record<string, { schema?: JsonObject }>; required?: boolean };
    responses?: Record<string, { description?: string; content?: Record<string, { schema?: JsonObject }> }>;
    parameters?: JsonObject[];
  };
  const out: JsonObject = {};
  if (rest.description !== undefined) out.description = rest.description;
  const bodyTypes = Object.keys(requestBody?.content ?? {});
  out.consumes = bodyTypes.length > 0 ? bodyTypes : ['*/*'];
  const responseTypes = new Set<string>();
  for (const r of Object.values(responses ?? {})) for (const t of Object.keys(r.content ?? {})) responseTypes.add(t);
  out.produces = [...responseTypes];
  out.schemes = ['https'];
  for (const [k, v] of Object.entries(rest)) if (k !== 'description') out[k] = v;
  const params = (parameters ?? []).map(v2Parameter);
  const bodySchema = requestBody ? Object.values(requestBody.content ?? {})[0]?.schema : undefined;
  if (bodySchema) params.unshift({ name: 'body', in: 'body', ...(requestBody!.required ? { required: true } : {}), schema: v2Schema(bodySchema) });
  if (params.length > 0) out.parameters = params;
  const v2Responses: JsonObject = {};
  for (const [code, r] of Object.entries(responses ?? {})) {
    const schema = Object.values(r.content ?? {})[0]?.schema;
    v2Responses[code] = schema ? { description: r.description, schema: v2Schema(schema) } : { description: r.description };
  }
  out.responses = v2Responses;
  // Keep kube's key order: the x- extensions last.
  for (const k of Object.keys(out).filter((k) => k.startsWith('x-'))) {
    const v = out[k];
    delete out[k];
    out[k] = v;
  }
  return out;
}

function v2PathItem(item: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const m of OPERATION_METHODS) if (item[m]) out[m] = v2Operation(item[m] as JsonObject);
  if (Array.isArray(item.parameters)) out.parameters = (item.parameters as JsonObject[]).map(v2Parameter);
  return out;
}

/** One Swagger 2.0 document from the v3 documents of every served group-version. */
export function swaggerDocument(v3Documents: JsonObject[], info: { title: string; version: string }): JsonObject {
  const paths: Record<string, JsonObject> = {};
  const definitions: Record<string, JsonObject> = {};
  for (const doc of v3Documents) {
    for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, JsonObject>)) paths[path] = v2PathItem(item);
    const schemas = ((doc.components as JsonObject | undefined)?.schemas ?? {}) as Record<string, JsonObject>;
    for (const [name, schema] of Object.entries(schemas)) definitions[name] ??= v2Schema(schema);
  }
  const sorted = <T>(o: Record<string, T>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    swagger: '2.0',
    info,
    paths: sorted(paths),
    definitions: sorted(definitions),
    securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', type: 'apiKey', name: 'authorization', in: 'header' } },
    security: [{ BearerToken: [] }],
  };
}

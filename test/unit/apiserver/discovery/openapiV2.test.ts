// /openapi/v2: the Swagger 2.0 document built from the v3 documents of every
// served group-version, and its gnostic protobuf encoding. The structural
// check below applies the rules kubectl's OpenAPI parser
// (kube-openapi pkg/util/proto) enforces when it loads the protobuf
// document: every $ref names a definition, an array has exactly one item
// schema, an object with properties is a kind, primitives are string,
// number, integer or boolean; a single violation makes kubectl reject the
// whole document. The integration test (kubectl.test.ts) runs kubectl's
// validation itself.

import { parse } from 'yaml';
import { describe, expect, test } from 'vitest';
import { openApiV2 } from '../../../../main/apiserver/discovery/openapi';
import { decodeGnosticDocument, encodeGnosticDocument } from '../../../../main/apiserver/discovery/openapi/gnostic';
import { v2Schema } from '../../../../main/apiserver/discovery/openapi/swagger';
import { allResources } from '../../../../main/apiserver/registry/index';

type Json = Record<string, any>;
const resources = allResources();
const v2 = openApiV2(resources);
const doc = JSON.parse(v2.json) as Json;

/** kube-openapi's ParseSchema rules; returns the problems found under `path`. */
function problems(s: Json, path: string, definitions: Json): string[] {
  if (typeof s.$ref === 'string') {
    const name = s.$ref.replace(/^#\/definitions\//, '');
    return s.$ref.startsWith('#/definitions/') && definitions[name] ? [] : [`${path}: unknown model in reference ${s.$ref}`];
  }
  const types: string[] = s.type === undefined ? [] : [s.type].flat();
  if (types.length > 1) return [`${path}: multiple types`];
  const sub = (x: Json, p: string) => problems(x, p, definitions);
  if (types.length === 0 || types[0] === 'object') {
    if (s.properties) return Object.entries(s.properties as Json).flatMap(([k, v]) => sub(v, `${path}.${k}`));
    if (s.additionalProperties && typeof s.additionalProperties === 'object') return sub(s.additionalProperties, `${path}{}`);
    return [];
  }
  if (types[0] === 'array') {
    if (!s.items || Array.isArray(s.items)) return [`${path}: array should have exactly one sub-item`];
    return sub(s.items, `${path}[]`);
  }
  return ['string', 'number', 'integer', 'boolean'].includes(types[0]) ? [] : [`${path}: unknown primitive type ${types[0]}`];
}

describe('/openapi/v2 document', () => {
  test('is Swagger 2.0 with v2 references only, every one of them defined', () => {
    expect(doc.swagger).toBe('2.0');
    expect(doc.info).toEqual({ title: 'Kubernetes', version: 'v1.32.0' });
    expect(v2.json).not.toContain('#/components/');
    expect(v2.json).not.toContain('"allOf"');
    const refs = [...v2.json.matchAll(/"\$ref":"#\/definitions\/([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(100);
    expect(refs.filter((r) => !doc.definitions[r])).toEqual([]);
  });

  test('every definition parses under kubectl\'s OpenAPI rules', () => {
    const found = Object.entries(doc.definitions as Json).flatMap(([name, s]) => problems(s, name, doc.definitions));
    expect(found).toEqual([]);
  });

  test('every served kind (and its List) is a definition carrying x-kubernetes-group-version-kind', () => {
    const gvks = new Set(Object.values(doc.definitions as Json).flatMap((s) => (s['x-kubernetes-group-version-kind'] ?? []).map((g: Json) => `${g.group}/${g.version}/${g.kind}`)));
    for (const def of resources) {
      expect(gvks.has(`${def.group}/${def.version}/${def.kind}`), def.kind).toBe(true);
      expect(gvks.has(`${def.group}/${def.version}/${def.listKind ?? `${def.kind}List`}`), `${def.kind} list`).toBe(true);
    }
  });

  test('a field refers to its type with $ref beside its description, as kube-openapi writes v2', () => {
    const meta = doc.definitions['io.k8s.api.apps.v1.Deployment'].properties.metadata;
    expect(meta.$ref).toBe('#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(meta.allOf).toBeUndefined();
    expect(v2Schema({ allOf: [{ $ref: '#/components/schemas/X' }], description: 'd', default: {} })).toEqual({ $ref: '#/definitions/X', description: 'd', default: {} });
  });

  test('operations: a body parameter, inline query parameters, consumes/produces, one schema per response', () => {
    const patch = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
    expect(patch.consumes).toEqual(['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']);
    expect(patch.produces).toEqual(['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']);
    expect(patch.parameters[0]).toEqual({ name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } });
    expect(patch.parameters.find((p: Json) => p.name === 'fieldValidation')).toMatchObject({ in: 'query', type: 'string', uniqueItems: true });
    expect(patch.responses['200']).toEqual({ description: 'OK', schema: { $ref: '#/definitions/io.k8s.api.apps.v1.Deployment' } });
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', kind: 'Deployment', version: 'v1' });
  });
});

describe('/openapi/v2 as gnostic protobuf', () => {
  const msg = decodeGnosticDocument(v2.protobuf()) as Json;
  const definition = (name: string) => msg.definitions.additional_properties.find((d: Json) => d.name === name).value;

  test('holds every definition and path, in document order', () => {
    expect(msg.swagger).toBe('2.0');
    expect(msg.definitions.additional_properties.map((d: Json) => d.name)).toEqual(Object.keys(doc.definitions));
    expect(msg.paths.path.map((p: Json) => p.name)).toEqual(Object.keys(doc.paths));
  });

  test('a kind: its type, a $ref field, and x-kubernetes-group-version-kind as YAML', () => {
    const deployment = definition('io.k8s.api.apps.v1.Deployment');
    expect(deployment.type.value).toEqual(['object']);
    const meta = deployment.properties.additional_properties.find((p: Json) => p.name === 'metadata').value;
    expect(meta._ref).toBe('#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    const gvk = deployment.vendor_extension.find((e: Json) => e.name === 'x-kubernetes-group-version-kind');
    expect(parse(gvk.value.yaml)).toEqual([{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
  });

  test('parameters: body and query parameters in their oneof branches', () => {
    const item = msg.paths.path.find((p: Json) => p.name === '/apis/apps/v1/namespaces/{namespace}/deployments/{name}').value;
    const [body, ...rest] = item.patch.parameters;
    expect(body.parameter.body_parameter).toMatchObject({ name: 'body', in: 'body', required: true });
    const fv = rest.find((p: Json) => p.parameter.non_body_parameter.query_parameter_sub_schema?.name === 'fieldValidation');
    expect(fv.parameter.non_body_parameter.query_parameter_sub_schema).toMatchObject({ in: 'query', type: 'string', unique_items: true });
    expect(item.parameters[0].parameter.non_body_parameter.path_parameter_sub_schema).toMatchObject({ name: 'name', in: 'path', required: true });
  });

  test('a key gnostic has no field for is an error, not a silent loss', () => {
    expect(() => encodeGnosticDocument({ swagger: '2.0', definitions: { X: { type: 'object', nullable: true } } })).toThrow('X: no gnostic field for "nullable"');
  });
});

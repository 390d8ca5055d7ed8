import { describe, expect, test } from 'vitest';
import { openApiDocument, openApiIndex } from '../../../../main/apiserver/discovery/openapi';
import { allResources } from '../../../../main/apiserver/registry/index';
import { kubeSchema, messageForGvk } from '../../../../main/kube/schema/index';
import { protobufCodec } from '../../../../main/kube/codec';

// The served resources (the registry) against the schema, the codec and the
// OpenAPI documents: every kind has a protobuf message, stores and reads back,
// and is explained and validated by kubectl through its document.
const resources = allResources();

describe('every served resource', () => {
  for (const def of resources) {
    const gv = def.group ? `${def.group}/${def.version}` : def.version;
    test(`${def.resource}.${def.group || 'core'}: message, codec round trip, OpenAPI paths`, () => {
      expect(messageForGvk(def)).toBe(def.protoType);
      expect(kubeSchema().has(def.protoType)).toBe(true);
      for (const sub of def.subresources) expect(messageForGvk(sub.kind), `${def.resource}/${sub.name}`).toBeDefined();

      const obj = { apiVersion: gv, kind: def.kind, metadata: { name: 'x', namespace: def.namespaced ? 'default' : undefined, labels: { a: 'b' } } };
      const back = protobufCodec().decode(protobufCodec().encode(obj as never));
      expect(back).toMatchObject({ kind: def.kind, apiVersion: gv, metadata: { name: 'x', labels: { a: 'b' } } });

      const doc = openApiDocument(resources, def.group ? `apis/${def.group}/${def.version}` : `api/${def.version}`) as Record<string, any>;
      const base = def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
      const item = `${base}${def.namespaced ? '/namespaces/{namespace}' : ''}/${def.resource}/{name}`;
      if (def.verbs.includes('get')) expect(doc.paths[item].get['x-kubernetes-group-version-kind']).toEqual({ group: def.group, kind: def.kind, version: def.version });
      if (def.verbs.includes('patch')) expect(doc.paths[item].patch.parameters.map((p: { name: string }) => p.name)).toContain('fieldValidation');
      const schemaName = `io.k8s.${def.protoType.slice('k8s.io.'.length)}`;
      expect(doc.components.schemas[schemaName]['x-kubernetes-group-version-kind']).toEqual([{ group: def.group, kind: def.kind, version: def.version }]);
    });
  }

  test('documents for all served group-versions have no dangling $ref', () => {
    for (const path of Object.keys(openApiIndex(resources).paths)) {
      const doc = openApiDocument(resources, path) as Record<string, any>;
      const text = JSON.stringify(doc);
      const refs = [...text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
      expect(refs.filter((r) => !doc.components.schemas[r]), path).toEqual([]);
    }
  });
});

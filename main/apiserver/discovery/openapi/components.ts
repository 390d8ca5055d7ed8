// components.schemas of an OpenAPI v3 document, built from the schema type
// tree the way kube-openapi writes them: names like
// io.k8s.api.apps.v1.Deployment, fields referring to other schemas through
// `allOf: [{$ref}]`, int32/int64 formats, Time as a date-time string,
// IntOrString as an int-or-string string, Quantity as a string, kinds marked
// with x-kubernetes-group-version-kind, and the patch/list markers
// (x-kubernetes-patch-merge-key, -patch-strategy, -list-type, -list-map-keys)
// from the same table strategic merge patch uses (patch/patchMeta.ts).

import type { GroupVersionKind } from '../../../kube/object';
import { openApiExtensions } from '../../patch/patchMeta';
import { jsonFields, kubeSchema, type FieldType } from '../../../kube/schema/index';
import { commonFieldDescriptions, fieldDescriptions, messageDescriptions, typeMetaDescriptions } from './descriptions';

export type JsonObject = Record<string, unknown>;

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

/** 'k8s.io.api.apps.v1.Deployment' → 'io.k8s.api.apps.v1.Deployment'. */
export function schemaName(protoName: string): string {
  return protoName.startsWith('k8s.io.') ? `io.k8s.${protoName.slice('k8s.io.'.length)}` : protoName;
}

export function schemaRef(name: string): string {
  return `#/components/schemas/${name}`;
}

const specialSchemas: Record<string, { name: string; schema: JsonObject }> = {
  time: { name: `${META}Time`, schema: { type: 'string', format: 'date-time' } },
  microTime: { name: `${META}MicroTime`, schema: { type: 'string', format: 'date-time' } },
  duration: { name: `${META}Duration`, schema: { type: 'string' } },
  quantity: { name: 'io.k8s.apimachinery.pkg.api.resource.Quantity', schema: { type: 'string' } },
  intOrString: { name: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString', schema: { type: 'string', format: 'int-or-string' } },
  fieldsV1: { name: `${META}FieldsV1`, schema: { type: 'object' } },
  rawExtension: { name: 'io.k8s.apimachinery.pkg.runtime.RawExtension', schema: { type: 'object' } },
};

function gvkExtension(gvk: GroupVersionKind): JsonObject {
  return { group: gvk.group, kind: gvk.kind, version: gvk.version };
}

function withDescription(schema: JsonObject, description: string | undefined): JsonObject {
  return description ? { description, ...schema } : schema;
}

/** Collects the schemas a document needs, following references transitively. */
export class Components {
  readonly schemas: Record<string, JsonObject> = {};
  private readonly kinds = new Map<string, GroupVersionKind>();

  /** Marks a message as a kind: it gets apiVersion/kind properties and x-kubernetes-group-version-kind. */
  declareKind(protoName: string, gvk: GroupVersionKind): void {
    this.kinds.set(protoName, gvk);
  }

  /** Adds the message (and everything it refers to); returns its schema name. */
  message(protoName: string): string {
    const name = schemaName(protoName);
    if (this.schemas[name]) return name;
    this.schemas[name] = {}; // placeholder: recursive types (JSONSchemaProps-like) stop here
    const schema = kubeSchema();
    const msg = schema.message(protoName);
    const gvk = this.kinds.get(protoName);
    const properties: JsonObject = {};
    const required: string[] = [];
    if (gvk) {
      properties.apiVersion = { type: 'string', description: typeMetaDescriptions.apiVersion };
      properties.kind = { type: 'string', description: typeMetaDescriptions.kind };
    }
    for (const [jsonName, { field }] of jsonFields(schema, msg)) {
      const description = fieldDescriptions[`${msg.goName}.${jsonName}`] ?? (gvk ? commonFieldDescriptions[jsonName] : undefined);
      properties[jsonName] = { ...this.fieldSchema(field.type, description), ...openApiExtensions(protoName, jsonName) };
      if (!field.omitEmpty) required.push(jsonName);
    }
    const out: JsonObject = withDescription({ type: 'object' }, messageDescriptions[msg.goName]);
    if (required.length > 0) out.required = required.sort();
    out.properties = sortKeys(properties);
    if (gvk) out['x-kubernetes-group-version-kind'] = [gvkExtension(gvk)];
    this.schemas[name] = out;
    return name;
  }

  /** A `<Kind>List` schema for a kind (there are no list messages in our protos). */
  list(kindProto: string, gvk: GroupVersionKind, listKind = `${gvk.kind}List`): string {
    const itemName = this.message(kindProto);
    const name = `${itemName.slice(0, itemName.lastIndexOf('.') + 1)}${listKind}`;
    this.schemas[name] ??= {
      description: `${listKind} is a list of ${gvk.kind} objects.`,
      type: 'object',
      required: ['items'],
      properties: {
        apiVersion: { type: 'string', description: typeMetaDescriptions.apiVersion },
        items: { type: 'array', description: commonFieldDescriptions.items, items: { allOf: [{ $ref: schemaRef(itemName) }], default: {} } },
        kind: { type: 'string', description: typeMetaDescriptions.kind },
        metadata: { allOf: [{ $ref: schemaRef(this.message('k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta')) }], default: {}, description: commonFieldDescriptions.listMetadata },
      },
      'x-kubernetes-group-version-kind': [gvkExtension({ ...gvk, kind: listKind })],
    };
    return name;
  }

  /** The meta/v1 schemas every resource path refers to: Status, DeleteOptions, Patch, WatchEvent. */
  standard(): { status: string; deleteOptions: string; patch: string; watchEvent: string } {
    this.declareKind('k8s.io.apimachinery.pkg.apis.meta.v1.Status', { group: '', version: 'v1', kind: 'Status' });
    const status = this.message('k8s.io.apimachinery.pkg.apis.meta.v1.Status');
    this.schemas[`${META}Preconditions`] ??= {
      description: 'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.',
      type: 'object',
      properties: { resourceVersion: { type: 'string' }, uid: { type: 'string' } },
    };
    this.schemas[`${META}DeleteOptions`] ??= {
      description: 'DeleteOptions may be provided when deleting an API object.',
      type: 'object',
      properties: {
        apiVersion: { type: 'string', description: typeMetaDescriptions.apiVersion },
        dryRun: { type: 'array', items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'atomic' },
        gracePeriodSeconds: { type: 'integer', format: 'int64' },
        ignoreStoreReadErrorWithClusterBreakingPotential: { type: 'boolean' },
        kind: { type: 'string', description: typeMetaDescriptions.kind },
        orphanDependents: { type: 'boolean' },
        preconditions: { allOf: [{ $ref: schemaRef(`${META}Preconditions`) }] },
        propagationPolicy: { type: 'string' },
      },
      'x-kubernetes-group-version-kind': [{ group: '', kind: 'DeleteOptions', version: 'v1' }],
    };
    this.schemas[`${META}Patch`] ??= {
      description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
      type: 'object',
    };
    this.schemas[`${META}WatchEvent`] ??= {
      type: 'object',
      required: ['type', 'object'],
      properties: {
        object: { allOf: [{ $ref: schemaRef(this.special('rawExtension')) }], description: 'The object: a full object for ADDED/MODIFIED/DELETED/BOOKMARK, a Status for ERROR.' },
        type: { type: 'string', default: '' },
      },
      'x-kubernetes-group-version-kind': [{ group: '', kind: 'WatchEvent', version: 'v1' }],
    };
    return { status, deleteOptions: `${META}DeleteOptions`, patch: `${META}Patch`, watchEvent: `${META}WatchEvent` };
  }

  private special(kind: string): string {
    const s = specialSchemas[kind];
    if (!this.schemas[s.name]) {
      const goName = s.name.slice(s.name.lastIndexOf('.') + 1);
      this.schemas[s.name] = withDescription(s.schema, messageDescriptions[goName]);
    }
    return s.name;
  }

  private fieldSchema(type: FieldType, description?: string): JsonObject {
    switch (type.kind) {
      case 'string':
        return withDescription({ type: 'string' }, description);
      case 'integer':
        return withDescription({ type: 'integer', format: type.format }, description);
      case 'number':
        return withDescription({ type: 'number', format: 'double' }, description);
      case 'boolean':
        return withDescription({ type: 'boolean' }, description);
      case 'bytes':
        return withDescription({ type: 'string', format: 'byte' }, description);
      case 'object':
        return withDescription({ allOf: [{ $ref: schemaRef(this.message(type.message)) }] }, description);
      case 'array':
        return withDescription({ type: 'array', items: this.fieldSchema(type.items) }, description);
      case 'map':
        return withDescription({ type: 'object', additionalProperties: this.fieldSchema(type.value) }, description);
      case 'stringList':
        // ExtraValue is a Go []string: kube-openapi writes it inline, not as a named schema.
        return withDescription({ type: 'array', items: { type: 'string', default: '' } }, description);
      default:
        return withDescription({ allOf: [{ $ref: schemaRef(this.special(type.kind)) }] }, description);
    }
  }
}

function sortKeys(obj: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(obj).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}


// The Go shape of each field, from the Go type schema (main/kube/schema,
// built from k8s.io/api's protos and Go struct shapes): what a field holds
// (struct, map, list, scalar), whether Go keeps it by value, and whether its
// JSON tag has omitempty. patchMeta.ts adds the merge strategy on top; this
// fills in every field patchMeta does not list, so ownership and the typed
// round trip cover whole objects, not only the fields with patch tags.

import { jsonFields, kubeSchema, type FieldSchema } from '../../kube/schema/index';

export type SchemaField = Pick<FieldSchema, 'type' | 'goValue' | 'omitEmpty'>;

const cache = new Map<string, Map<string, SchemaField> | null>();

/** The JSON fields of a message (inline structs flattened), or undefined when the schema lacks it. */
export function schemaFields(message: string | undefined): Map<string, SchemaField> | undefined {
  if (!message) return undefined;
  let fields = cache.get(message);
  if (fields === undefined) {
    fields = null;
    try {
      const schema = kubeSchema();
      if (schema.has(message)) {
        fields = new Map();
        for (const [k, jf] of jsonFields(schema, schema.message(message))) fields.set(k, jf.field);
      }
    } catch {
      fields = null; // a schema that cannot load leaves us with patchMeta alone
    }
    cache.set(message, fields);
  }
  return fields ?? undefined;
}

export function schemaField(message: string | undefined, key: string): SchemaField | undefined {
  return schemaFields(message)?.get(key);
}

/** The value a zero Go struct shows for this field in JSON, or undefined when the field is omitted. */
export function zeroJson(f: SchemaField): {} | null | undefined {
  const k = f.type.kind;
  if (k === 'object' && f.goValue) return {};
  if ((k === 'time' || k === 'microTime') && f.goValue) return null;
  if (!f.omitEmpty && (k === 'array' || k === 'map' || k === 'bytes' || (k === 'object' && !f.goValue))) return null;
  return undefined;
}

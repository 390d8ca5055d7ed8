// The JSON-oriented type tree of every Kubernetes message we know: for each
// message its fields by JSON name, in Go struct order (the order kube's JSON
// shows them), with a type that says how the field looks in JSON and what it
// is on the wire. Built once from the .proto files plus goShape.ts.
//
// Special types (JSON form ⇄ wire form):
//   time         RFC3339 seconds string, null when zero ⇄ Time{seconds, nanos=0}
//   microTime    RFC3339 with 6 fraction digits        ⇄ MicroTime{seconds, nanos}
//   duration     Go duration string "1m30s"            ⇄ Duration{duration ns}
//   quantity     string "100m"                         ⇄ Quantity{string}
//   intOrString  number or string                      ⇄ IntOrString{type, intVal, strVal}
//   fieldsV1     any JSON object                       ⇄ FieldsV1{Raw: JSON bytes}
//   rawExtension any JSON                              ⇄ RawExtension{raw: JSON bytes}
//   stringList   ["a","b"] (Go `type ExtraValue []string`) ⇄ ExtraValue{items: repeated string}

import type protobuf from 'protobufjs';
import { goShapes, shapeWords } from './goShape';
import { kubeProtoRoot } from './protoRoot';

export type FieldType =
  | { kind: 'string' }
  | { kind: 'integer'; format: 'int32' | 'int64' }
  | { kind: 'number' }
  | { kind: 'boolean' }
  | { kind: 'bytes' }
  | { kind: 'object'; message: string }
  | { kind: 'map'; value: FieldType }
  | { kind: 'array'; items: FieldType }
  | { kind: 'time' }
  | { kind: 'microTime' }
  | { kind: 'duration' }
  | { kind: 'quantity' }
  | { kind: 'intOrString' }
  | { kind: 'fieldsV1' }
  | { kind: 'rawExtension' }
  | { kind: 'stringList' };

export interface FieldSchema {
  jsonName: string;
  /** Protobuf field number. */
  id: number;
  type: FieldType;
  /** Go value rather than pointer: always on the wire; a value struct is always shown in JSON. */
  goValue: boolean;
  /** The JSON tag carries omitempty (zero scalars, empty lists and maps are left out). */
  omitEmpty: boolean;
  /** Embedded `json:",inline"`: the message's fields appear directly in this message's JSON. */
  inline: boolean;
}

export interface MessageSchema {
  /** Fully qualified proto name, no leading dot: 'k8s.io.api.apps.v1.Deployment'. */
  name: string;
  /** Go type name: 'Deployment'. */
  goName: string;
  /** Go package name as reflect prints it: 'v1', 'resource', 'intstr'. */
  goPackage: string;
  /** Proto-level fields in Go struct order (inline fields appear once, as themselves). */
  fields: FieldSchema[];
  byId: Map<number, FieldSchema>;
}

const specialTypes: Record<string, FieldType['kind']> = {
  'k8s.io.apimachinery.pkg.apis.meta.v1.Time': 'time',
  'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': 'microTime',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Duration': 'duration',
  'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1': 'fieldsV1',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'intOrString',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'rawExtension',
  'k8s.io.api.authentication.v1.ExtraValue': 'stringList',
  'k8s.io.api.authorization.v1.ExtraValue': 'stringList',
};

export function isSpecialMessage(fullName: string): boolean {
  return fullName in specialTypes;
}

function trimDot(name: string): string {
  return name.startsWith('.') ? name.slice(1) : name;
}

function scalarType(protoType: string, where: string): FieldType {
  switch (protoType) {
    case 'string':
      return { kind: 'string' };
    case 'int32':
    case 'sint32':
    case 'uint32':
      return { kind: 'integer', format: 'int32' };
    case 'int64':
    case 'sint64':
    case 'uint64':
      return { kind: 'integer', format: 'int64' };
    case 'bool':
      return { kind: 'boolean' };
    case 'bytes':
      return { kind: 'bytes' };
    case 'double':
    case 'float':
      return { kind: 'number' };
    default:
      throw new Error(`schema: unsupported proto scalar ${protoType} at ${where}`);
  }
}

function elementType(field: protobuf.Field, where: string): FieldType {
  if (field.resolvedType && 'fieldsArray' in field.resolvedType) {
    const full = trimDot(field.resolvedType.fullName);
    const special = specialTypes[full];
    return special ? ({ kind: special } as FieldType) : { kind: 'object', message: full };
  }
  return scalarType(field.type, where);
}

export class Schema {
  private readonly messages = new Map<string, MessageSchema>();

  constructor(root: protobuf.Root) {
    const types: protobuf.Type[] = [];
    const walk = (ns: protobuf.NamespaceBase): void => {
      for (const nested of ns.nestedArray) {
        if ('fieldsArray' in nested) types.push(nested as protobuf.Type);
        if ('nestedArray' in nested) walk(nested as protobuf.NamespaceBase);
      }
    };
    walk(root);
    const goNames = new Set<string>();
    for (const type of types) {
      const name = trimDot(type.fullName);
      if (goNames.has(type.name) && goShapes[type.name]) throw new Error(`schema: message name ${type.name} is not unique`);
      goNames.add(type.name);
      this.messages.set(name, this.build(type, name));
    }
    this.checkShapes();
  }

  message(name: string): MessageSchema {
    const msg = this.messages.get(trimDot(name));
    if (!msg) throw new Error(`schema: unknown message ${name}`);
    return msg;
  }

  has(name: string): boolean {
    return this.messages.has(trimDot(name));
  }

  allMessages(): MessageSchema[] {
    return [...this.messages.values()];
  }

  private build(type: protobuf.Type, name: string): MessageSchema {
    const shape = goShapes[type.name];
    const value = shapeWords(shape, 'value');
    const ptr = shapeWords(shape, 'ptr');
    const req = shapeWords(shape, 'req');
    const inline = shapeWords(shape, 'inline');
    const fields: FieldSchema[] = type.fieldsArray.map((f) => {
      const where = `${name}.${f.name}`;
      let ft: FieldType;
      if (f.map) {
        const mapField = f as unknown as protobuf.MapField;
        if (mapField.keyType !== 'string') throw new Error(`schema: non-string map key at ${where}`);
        ft = { kind: 'map', value: elementType(f, where) };
      } else if (f.repeated) {
        ft = { kind: 'array', items: elementType(f, where) };
      } else {
        ft = elementType(f, where);
      }
      const isMessage = !!(f.resolvedType && 'fieldsArray' in f.resolvedType);
      const listLike = ft.kind === 'map' || ft.kind === 'array';
      return {
        jsonName: f.name,
        id: f.id,
        type: ft,
        goValue: listLike ? false : isMessage ? value.has(f.name) || inline.has(f.name) : !ptr.has(f.name),
        omitEmpty: !req.has(f.name),
        inline: inline.has(f.name),
      };
    });
    const pkg = name.split('.');
    return { name, goName: type.name, goPackage: pkg[pkg.length - 2], fields, byId: new Map(fields.map((f) => [f.id, f])) };
  }

  /** A misspelt entry in goShape.ts would silently change the wire format: refuse to start instead. */
  private checkShapes(): void {
    const byGoName = new Map<string, MessageSchema>();
    for (const m of this.messages.values()) byGoName.set(m.goName, m);
    for (const [goName, shape] of Object.entries(goShapes)) {
      const msg = byGoName.get(goName);
      if (!msg) throw new Error(`goShape: no message ${goName}`);
      for (const key of ['value', 'ptr', 'req', 'inline'] as const) {
        for (const word of shapeWords(shape, key)) {
          const field = msg.fields.find((f) => f.jsonName === word);
          if (!field) throw new Error(`goShape: ${goName} has no field ${word}`);
          const isMessage = field.type.kind === 'object' || field.type.kind in kindsThatAreMessages;
          if ((key === 'value' || key === 'inline') && !isMessage) throw new Error(`goShape: ${goName}.${word} is not a message`);
          if (key === 'ptr' && isMessage) throw new Error(`goShape: ${goName}.${word} is a message (pointer is the default)`);
        }
      }
    }
  }
}

const kindsThatAreMessages: Record<string, true> = {
  time: true,
  microTime: true,
  duration: true,
  quantity: true,
  intOrString: true,
  fieldsV1: true,
  rawExtension: true,
  stringList: true,
};

/** One JSON key of a message: the field, and the inline field it is reached through (if any). */
export interface JsonField {
  field: FieldSchema;
  via?: FieldSchema;
}

const jsonViews = new WeakMap<MessageSchema, Map<string, JsonField>>();

/** The message's JSON keys in output order, with inline structs flattened. */
export function jsonFields(schema: Schema, msg: MessageSchema): Map<string, JsonField> {
  let view = jsonViews.get(msg);
  if (view) return view;
  view = new Map();
  for (const f of msg.fields) {
    if (f.inline && f.type.kind === 'object') {
      for (const [k, inner] of jsonFields(schema, schema.message(f.type.message))) view.set(k, { field: inner.field, via: f });
    } else {
      view.set(f.jsonName, { field: f });
    }
  }
  jsonViews.set(msg, view);
  return view;
}

let cachedSchema: Schema | undefined;

/** The process-wide schema (protos parsed on first use). */
export function kubeSchema(): Schema {
  return (cachedSchema ??= new Schema(kubeProtoRoot()));
}

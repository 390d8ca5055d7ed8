// kube JSON → protobuf bytes, exactly as gogo-protobuf's generated
// Marshal writes the Go struct that JSON decodes into:
//   - fields in ascending field-number order;
//   - Go value fields always written (a zero string is `tag 00`, a zero
//     value struct an empty message), pointers, lists and maps only when set;
//   - map entries {key=1, value=2} with keys in byte order;
//   - Time as {seconds, nanos=0} (sub-second precision dropped, as kube
//     does), zero Time as an empty message; MicroTime keeps microseconds;
//   - Quantity {string=1} in canonical form (quantity.ts); IntOrString {type, intVal, strVal};
//     FieldsV1 {Raw = the JSON bytes}; []byte fields from base64.
// Fields the schema does not know are dropped (strict decoding, not this
// module, reports them).

import { canonicalQuantityOrSame } from './quantity';
import { parseDuration, parseRfc3339 } from './specialTypes';
import type { FieldSchema, FieldType, MessageSchema, Schema } from './types';
import { WIRE_BYTES, WIRE_VARINT, WireWriter, utf8Bytes } from '../../common/protobufWire';

type Json = Record<string, unknown>;

const sortedFields = new WeakMap<MessageSchema, FieldSchema[]>();

function byNumber(msg: MessageSchema): FieldSchema[] {
  let fields = sortedFields.get(msg);
  if (!fields) sortedFields.set(msg, (fields = [...msg.fields].sort((a, b) => a.id - b.id)));
  return fields;
}

function asObject(v: unknown): Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
}

function asInteger(v: unknown): number | bigint {
  if (typeof v === 'bigint') return v;
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : typeof v === 'boolean' ? Number(v) : 0;
  return Number.isFinite(n) ? Math.trunc(n) : 0;
}

function base64Bytes(v: unknown): Uint8Array {
  if (typeof v !== 'string') return new Uint8Array();
  return new Uint8Array(Buffer.from(v, 'base64'));
}

/** Go sorts map keys as byte strings; JS compares UTF-16 units, which agrees for everything below U+D800. */
function compareKeys(a: string, b: string): number {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\ud7ff]*$/.test(a + b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export function encodeMessage(schema: Schema, msg: MessageSchema, obj: unknown): Uint8Array {
  const w = new WireWriter();
  writeFields(schema, msg, asObject(obj), w);
  return w.finish();
}

/** The message's fields written into w (the caller frames them: a field of an envelope, written in place). */
export function writeMessage(schema: Schema, msg: MessageSchema, obj: unknown, w: WireWriter): void {
  writeFields(schema, msg, asObject(obj), w);
}

type FieldsWriter = (obj: Json, w: WireWriter) => void;

const fieldsWriters = new WeakMap<MessageSchema, FieldsWriter>();

function writeFields(schema: Schema, msg: MessageSchema, obj: Json, w: WireWriter): void {
  let write = fieldsWriters.get(msg);
  if (!write) fieldsWriters.set(msg, (write = compileFieldsWriter(schema, msg)));
  write(obj, w);
}

/**
 * A message's fields written by a function made for it: one statement per
 * field in field-number order, each reading its property by name. A loop
 * over the schema's fields reads every property through one access site,
 * which V8 cannot specialise (most of a pod's ~200 schema fields are absent);
 * here each site sees one shape of object. The generated code holds no data
 * of its own: names enter as JSON string literals, types as closure values.
 */
function compileFieldsWriter(schema: Schema, msg: MessageSchema): FieldsWriter {
  const fields = byNumber(msg);
  const body = fields.map((f, i) => {
    const read = f.inline ? 'v = obj;' : `v = obj[${JSON.stringify(f.jsonName)}];`;
    const t = f.type;
    if (t.kind === 'array') return `${read} if (Array.isArray(v)) for (let j = 0; j < v.length; j++) writeValue(schema, ${f.id}, T[${i}].items, v[j], w);`;
    if (t.kind === 'map') return `${read} if (v !== null && typeof v === 'object') writeMap(schema, ${f.id}, T[${i}].value, v, w);`;
    if (f.goValue) return `${read} writeValue(schema, ${f.id}, T[${i}], v, w);`;
    return `${read} if (v !== undefined && v !== null) writeValue(schema, ${f.id}, T[${i}], v, w);`;
  });
  const make = new Function('schema', 'T', 'writeValue', 'writeMap', `return function writeFields(obj, w) {\n  let v;\n  ${body.join('\n  ')}\n};`);
  return make(
    schema,
    fields.map((f) => f.type),
    writeValue,
    writeMap,
  ) as FieldsWriter;
}

/** A map field: entries {key = 1, value = 2} in Go's key order. */
function writeMap(schema: Schema, id: number, valueType: FieldType, map: Json, w: WireWriter): void {
  for (const key of Object.keys(map).sort(compareKeys)) {
    const entry = w.tag(id, WIRE_BYTES).fork();
    w.tag(1, WIRE_BYTES).string(key);
    writeValue(schema, 2, valueType, map[key], w);
    w.ldelim(entry);
  }
}

/** One value of `type` under field `id`; undefined/null means the Go zero value. */
function writeValue(schema: Schema, id: number, type: FieldType, value: unknown, w: WireWriter): void {
  switch (type.kind) {
    case 'string':
      w.tag(id, WIRE_BYTES).string(value === undefined || value === null ? '' : String(value));
      return;
    case 'integer':
      w.tag(id, WIRE_VARINT).varint(asInteger(value));
      return;
    case 'boolean':
      w.tag(id, WIRE_VARINT).varint(value === true ? 1 : 0);
      return;
    case 'number':
      throw new Error('proto: floating-point fields are not used by the Kubernetes types we store');
    case 'bytes':
      // gogo writes a []byte field whenever it is non-nil.
      if (value !== undefined && value !== null) w.tag(id, WIRE_BYTES).bytes(base64Bytes(value));
      return;
    case 'object': {
      const start = w.tag(id, WIRE_BYTES).fork();
      writeFields(schema, schema.message(type.message), asObject(value), w);
      w.ldelim(start);
      return;
    }
    default: {
      const start = w.tag(id, WIRE_BYTES).fork();
      writeSpecial(type.kind, value, w);
      w.ldelim(start);
    }
  }
}

function writeSpecial(kind: FieldType['kind'], value: unknown, w: WireWriter): void {
  switch (kind) {
    case 'time': {
      // time_proto.go: a zero Time marshals to nothing; otherwise seconds, and nanos left at 0.
      if (typeof value !== 'string' || value === '') return;
      const { seconds } = parseRfc3339(value);
      w.tag(1, WIRE_VARINT).varint(seconds).tag(2, WIRE_VARINT).varint(0);
      return;
    }
    case 'microTime': {
      if (typeof value !== 'string' || value === '') return;
      const { seconds, nanos } = parseRfc3339(value);
      w.tag(1, WIRE_VARINT).varint(seconds).tag(2, WIRE_VARINT).varint(Math.floor(nanos / 1000) * 1000);
      return;
    }
    case 'duration':
      w.tag(1, WIRE_VARINT).varint(typeof value === 'string' ? parseDuration(value) : 0);
      return;
    case 'quantity':
      w.tag(1, WIRE_BYTES).string(value === undefined || value === null ? '0' : canonicalQuantityOrSame(value));
      return;
    case 'intOrString': {
      const isString = typeof value === 'string';
      w.tag(1, WIRE_VARINT).varint(isString ? 1 : 0);
      w.tag(2, WIRE_VARINT).varint(isString ? 0 : asInteger(value));
      w.tag(3, WIRE_BYTES).string(typeof value === 'string' ? value : '');
      return;
    }
    case 'fieldsV1':
    case 'rawExtension':
      if (value !== undefined) w.tag(1, WIRE_BYTES).bytes(utf8Bytes(JSON.stringify(value)));
      return;
    case 'stringList':
      if (Array.isArray(value)) for (const item of value) w.tag(1, WIRE_BYTES).string(item === null || item === undefined ? '' : String(item));
      return;
    default:
      throw new Error(`proto: no encoding for ${kind}`);
  }
}

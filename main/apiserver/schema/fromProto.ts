// protobuf bytes → the JSON kube-apiserver would send for the same Go
// object. encoding/json decides what appears, so we follow it:
//   - keys in Go struct order (the order of the .proto declarations);
//   - value structs always appear (`strategy: {}`, `status: {}`), a zero
//     Time as null (`creationTimestamp: null` in a pod template);
//   - omitempty scalars, empty lists and empty maps are left out, unless
//     they are pointers that were set (`replicas: 0`);
//   - scalars without omitempty appear even when zero (`restartCount: 0`).
// Unknown field numbers are skipped, as gogo's Unmarshal skips them.

import { formatDuration, formatMicroTime, formatTime } from './specialTypes';
import type { FieldType, MessageSchema, Schema } from './types';
import { WIRE_BYTES, WIRE_VARINT, WireReader, utf8String } from './wire';

type Json = Record<string, unknown>;

/** A field's raw occurrences: varints as numbers (int64 read as signed), length-delimited as bytes. */
type RawValue = number | Uint8Array;

function collect(bytes: Uint8Array): Map<number, RawValue[]> {
  const out = new Map<number, RawValue[]>();
  const r = new WireReader(bytes);
  while (!r.eof()) {
    const { id, wireType } = r.tag();
    let value: RawValue;
    if (wireType === WIRE_VARINT) value = r.number64();
    else if (wireType === WIRE_BYTES) value = r.bytes();
    else {
      r.skip(wireType);
      continue;
    }
    const list = out.get(id);
    if (list) list.push(value);
    else out.set(id, [value]);
  }
  return out;
}

const empty = new Uint8Array();

function asBytes(v: RawValue | undefined): Uint8Array {
  return v instanceof Uint8Array ? v : empty;
}

function asVarint(v: RawValue | undefined): number {
  return typeof v === 'number' ? v : 0;
}

function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false || v === null || (v instanceof Array && v.length === 0);
}

export function decodeMessage(schema: Schema, msg: MessageSchema, bytes: Uint8Array): Json {
  const raw = collect(bytes);
  const out: Json = {};
  for (const f of msg.fields) {
    const occurrences = raw.get(f.id);
    const last = occurrences?.[occurrences.length - 1];
    const t = f.type;
    if (f.inline && t.kind === 'object') {
      Object.assign(out, decodeMessage(schema, schema.message(t.message), asBytes(last)));
    } else if (t.kind === 'array') {
      if (occurrences) {
        const items = occurrences.flatMap((o) => unpack(t.items, o));
        if (items.length > 0) out[f.jsonName] = items.map((o) => decodeValue(schema, t.items, o));
      }
    } else if (t.kind === 'map') {
      if (occurrences) {
        const map: Json = {};
        for (const entry of occurrences) {
          const kv = collect(asBytes(entry));
          const key = utf8String(asBytes(kv.get(1)?.at(-1)));
          map[key] = decodeValue(schema, t.value, kv.get(2)?.at(-1));
        }
        out[f.jsonName] = map;
      }
    } else if (last !== undefined || f.goValue) {
      const value = decodeValue(schema, t, last);
      const isStruct = t.kind !== 'string' && t.kind !== 'integer' && t.kind !== 'boolean' && t.kind !== 'bytes';
      // A Go value scalar with omitempty vanishes when zero; pointers, structs and non-omitempty fields stay.
      if (isStruct || !f.goValue || !f.omitEmpty || !isZero(value)) out[f.jsonName] = value;
    }
  }
  return out;
}

/** A packed repeated scalar arrives as one length-delimited run of varints. */
function unpack(type: FieldType, raw: RawValue): RawValue[] {
  if (!(raw instanceof Uint8Array) || (type.kind !== 'integer' && type.kind !== 'boolean')) return [raw];
  const r = new WireReader(raw);
  const out: RawValue[] = [];
  while (!r.eof()) out.push(r.number64());
  return out;
}

/** One value; `raw` undefined means the field was absent (the Go zero value). */
function decodeValue(schema: Schema, type: FieldType, raw: RawValue | undefined): unknown {
  switch (type.kind) {
    case 'string':
      return utf8String(asBytes(raw));
    case 'integer':
      return type.format === 'int32' ? asVarint(raw) | 0 : asVarint(raw);
    case 'boolean':
      return asVarint(raw) !== 0;
    case 'bytes':
      return raw === undefined ? null : Buffer.from(asBytes(raw)).toString('base64');
    case 'number':
      throw new Error('proto: floating-point fields are not used by the Kubernetes types we store');
    case 'object':
      return decodeMessage(schema, schema.message(type.message), asBytes(raw));
    case 'map':
    case 'array':
      throw new Error('proto: nested collections do not occur in Kubernetes types');
    default:
      return decodeSpecial(type.kind, asBytes(raw));
  }
}

function decodeSpecial(kind: FieldType['kind'], bytes: Uint8Array): unknown {
  const f = collect(bytes);
  const varint = (id: number) => asVarint(f.get(id)?.at(-1));
  const text = (id: number) => utf8String(asBytes(f.get(id)?.at(-1)));
  switch (kind) {
    case 'time':
      // Unmarshal reads seconds only; an empty message is the zero time, which JSON shows as null.
      return bytes.length === 0 ? null : formatTime(varint(1));
    case 'microTime':
      return bytes.length === 0 ? null : formatMicroTime(varint(1), varint(2));
    case 'duration':
      return formatDuration(varint(1));
    case 'quantity':
      return f.has(1) ? text(1) : '0';
    case 'intOrString':
      return varint(1) === 1 ? text(3) : varint(2) | 0;
    case 'fieldsV1':
    case 'rawExtension': {
      const raw = asBytes(f.get(1)?.at(-1));
      return raw.length === 0 ? null : JSON.parse(utf8String(raw));
    }
    case 'stringList':
      // A map value is unmarshalled into a fresh ExtraValue{}: an empty list, never null.
      return (f.get(1) ?? []).map((item) => utf8String(asBytes(item)));
    default:
      throw new Error(`proto: no decoding for ${kind}`);
  }
}

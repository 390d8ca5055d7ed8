// protobuf bytes → the JSON kube-apiserver would send for the same Go
// object. encoding/json decides what appears, so we follow it:
//   - keys in Go struct order (the order of the .proto declarations);
//   - value structs always appear (`strategy: {}`, `status: {}`), a zero
//     Time as null (`creationTimestamp: null` in a pod template);
//   - omitempty scalars, empty lists and empty maps are left out, unless
//     they are pointers that were set (`replicas: 0`);
//   - scalars without omitempty appear even when zero (`restartCount: 0`).
// Unknown field numbers are skipped, as gogo's Unmarshal skips them; of a
// field given more than once, the last occurrence counts.
//
// Every object the API server reads from etcd (each watch event, each
// create's answer) passes through here, so the decoder allocates nothing but
// the output: one pass over a message notes where each field's last
// occurrence starts (repeated fields: every occurrence), then the fields are
// read in Go order straight from the buffer.

import { formatDuration, formatMicroTime, formatTime } from './specialTypes';
import type { FieldSchema, FieldType, MessageSchema, Schema } from './types';
import { WIRE_BYTES, WIRE_FIXED32, WIRE_FIXED64, WIRE_VARINT } from '../../common/protobufWire';

type Json = Record<string, unknown>;

/** A message's fields by protobuf number, and each field's message schema resolved once. */
interface Plan {
  fields: FieldSchema[];
  /** Field number → index into fields (undefined: unknown, skipped). */
  index: (number | undefined)[];
  /** Per field: the message of an object field, of an array's items or of a map's values. */
  inner: (MessageSchema | undefined)[];
  repeated: boolean[];
}

const plans = new WeakMap<MessageSchema, Plan>();

function planOf(schema: Schema, msg: MessageSchema): Plan {
  let plan = plans.get(msg);
  if (plan) return plan;
  const index: (number | undefined)[] = [];
  const inner: (MessageSchema | undefined)[] = [];
  const repeated: boolean[] = [];
  msg.fields.forEach((f, i) => {
    index[f.id] = i;
    const t = f.type;
    const el = t.kind === 'array' ? t.items : t.kind === 'map' ? t.value : t;
    inner.push(el.kind === 'object' ? schema.message(el.message) : undefined);
    repeated.push(t.kind === 'array' || t.kind === 'map');
  });
  plan = { fields: msg.fields, index, inner, repeated };
  plans.set(msg, plan);
  return plan;
}

// The position after the last varint or length read: the readers below
// return one value and leave the next position here, so no tuples are made.
let cursor = 0;

function truncated(): never {
  throw new Error('proto: truncated message');
}

/** A varint as a JS number: exact when it fits 53 bits, else read as a signed int64 (via bigint). */
function readNumber64(buf: Buffer, pos: number, end: number): number {
  let result = 0;
  let mul = 1;
  for (let i = 0, at = pos; i < 8; i++) {
    if (at >= end) truncated();
    const b = buf[at++];
    result += (b & 0x7f) * mul;
    if (b < 0x80) {
      cursor = at;
      return result;
    }
    mul *= 128;
  }
  return Number(BigInt.asIntN(64, readBigVarint(buf, pos, end)));
}

/** Any varint of up to 10 bytes, exactly. */
function readBigVarint(buf: Buffer, pos: number, end: number): bigint {
  let big = 0n;
  let shift = 0n;
  for (let i = 0; i < 10; i++) {
    if (pos >= end) truncated();
    const b = buf[pos++];
    big |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) {
      cursor = pos;
      return big;
    }
    shift += 7n;
  }
  throw new Error('proto: varint too long');
}

/** A varint known to fit 32 bits unsigned (tags, lengths); a longer one (a negative int32) keeps its low 32 bits. */
function readUint32(buf: Buffer, pos: number, end: number): number {
  const v = readNumber64(buf, pos, end);
  return v >= 0 && v < 2 ** 32 ? v : Number(BigInt.asUintN(32, readBigVarint(buf, pos, end)));
}

/** Past one field's value of this wire type (unknown fields). */
function skipValue(buf: Buffer, pos: number, end: number, wireType: number): number {
  switch (wireType) {
    case WIRE_VARINT:
      readNumber64(buf, pos, end);
      return cursor;
    case WIRE_FIXED64:
      return pos + 8;
    case WIRE_BYTES: {
      const n = readUint32(buf, pos, end);
      if (cursor + n > end) truncated();
      return cursor + n;
    }
    case WIRE_FIXED32:
      return pos + 4;
    default:
      throw new Error(`proto: unsupported wire type ${wireType}`);
  }
}

// An occurrence is kept as one number: the value's position × 8 + its wire
// type. Only varint and length-delimited values are kept; a value of the
// other wire type than the field expects reads as the zero value.
const ABSENT = -1;

function wireOf(occ: number): number {
  return occ & 7;
}

function posOf(occ: number): number {
  return (occ - (occ & 7)) / 8;
}

/** A length-delimited occurrence: its content's start, with the end left in `cursor`. */
function bytesAt(buf: Buffer, occ: number, end: number): number {
  const n = readUint32(buf, posOf(occ), end);
  const start = cursor;
  if (start + n > end) truncated();
  cursor = start + n;
  return start;
}

function varintAt(buf: Buffer, occ: number, end: number): number {
  return wireOf(occ) === WIRE_VARINT ? readNumber64(buf, posOf(occ), end) : 0;
}

// The field nextField() last stepped over: its number, and its occurrence
// (ABSENT for the fixed-width wire types, which no Kubernetes field uses).
let fieldId = 0;
let fieldOcc = ABSENT;

/** Steps over the field starting at pos (tag and value); returns the position after it. */
function nextField(buf: Buffer, pos: number, end: number): number {
  const tag = readUint32(buf, pos, end);
  const valueAt = cursor;
  const wireType = tag & 7;
  const next = skipValue(buf, valueAt, end, wireType);
  fieldId = (tag - wireType) / 8;
  fieldOcc = wireType === WIRE_VARINT || wireType === WIRE_BYTES ? valueAt * 8 + wireType : ABSENT;
  return next;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function decodeMessage(schema: Schema, msg: MessageSchema, bytes: Uint8Array): Json {
  const buf = asBuffer(bytes);
  return decodeRange(schema, msg, buf, 0, buf.length);
}

// Scratch arrays of last occurrences, one per nesting depth: a message's is
// in use while its fields are decoded, its children use the next depth.
const scratch: number[][] = [];
let depth = 0;

function decodeRange(schema: Schema, msg: MessageSchema, buf: Buffer, start: number, end: number): Json {
  const plan = planOf(schema, msg);
  const n = plan.fields.length;
  const last = (scratch[depth] ??= []);
  for (let i = 0; i < n; i++) last[i] = ABSENT;
  depth++;
  try {
    return decodeFields(schema, plan, buf, start, end, last);
  } finally {
    depth--;
  }
}

function decodeFields(schema: Schema, plan: Plan, buf: Buffer, start: number, end: number, last: number[]): Json {
  const n = plan.fields.length;
  let all: (number[] | undefined)[] | undefined;
  let pos = start;
  while (pos < end) {
    pos = nextField(buf, pos, end);
    const i = plan.index[fieldId];
    if (i === undefined || fieldOcc === ABSENT) continue;
    last[i] = fieldOcc;
    if (plan.repeated[i]) {
      all ??= [];
      const list = all[i];
      if (list) list.push(fieldOcc);
      else all[i] = [fieldOcc];
    }
  }

  const out: Json = {};
  for (let i = 0; i < n; i++) {
    const f = plan.fields[i];
    const t = f.type;
    const occ = last[i];
    if (t.kind === 'array') {
      const occurrences = all?.[i];
      if (occurrences) {
        const items = decodeArray(schema, t.items, plan.inner[i], buf, occurrences, end);
        if (items.length > 0) out[f.jsonName] = items;
      }
    } else if (t.kind === 'map') {
      const occurrences = all?.[i];
      if (occurrences) out[f.jsonName] = decodeMap(schema, t.value, plan.inner[i], buf, occurrences, end);
    } else if (f.inline && t.kind === 'object') {
      Object.assign(out, decodeObjectAt(schema, plan.inner[i]!, buf, occ, end));
    } else if (occ !== ABSENT || f.goValue) {
      const value = decodeValue(schema, t, plan.inner[i], buf, occ, end);
      const isStruct = t.kind !== 'string' && t.kind !== 'integer' && t.kind !== 'boolean' && t.kind !== 'bytes';
      // A Go value scalar with omitempty vanishes when zero; pointers, structs and non-omitempty fields stay.
      if (isStruct || !f.goValue || !f.omitEmpty || !isZero(value)) out[f.jsonName] = value;
    }
  }
  return out;
}

function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false || v === null || (v instanceof Array && v.length === 0);
}

function decodeObjectAt(schema: Schema, msg: MessageSchema, buf: Buffer, occ: number, end: number): Json {
  if (occ === ABSENT || wireOf(occ) !== WIRE_BYTES) return decodeRange(schema, msg, buf, 0, 0);
  const start = bytesAt(buf, occ, end);
  return decodeRange(schema, msg, buf, start, cursor);
}

function decodeArray(schema: Schema, items: FieldType, inner: MessageSchema | undefined, buf: Buffer, occurrences: number[], end: number): unknown[] {
  const out: unknown[] = [];
  const scalar = items.kind === 'integer' || items.kind === 'boolean';
  for (const occ of occurrences) {
    if (scalar && wireOf(occ) === WIRE_BYTES) {
      // A packed repeated scalar arrives as one length-delimited run of varints.
      let pos = bytesAt(buf, occ, end);
      const runEnd = cursor;
      while (pos < runEnd) {
        const v = readNumber64(buf, pos, runEnd);
        pos = cursor;
        out.push(items.kind === 'boolean' ? v !== 0 : items.format === 'int32' ? v | 0 : v);
      }
    } else {
      out.push(decodeValue(schema, items, inner, buf, occ, end));
    }
  }
  return out;
}

function decodeMap(schema: Schema, value: FieldType, inner: MessageSchema | undefined, buf: Buffer, entries: number[], end: number): Json {
  const map: Json = {};
  for (const entry of entries) {
    let keyOcc = ABSENT;
    let valueOcc = ABSENT;
    let entryEnd = 0;
    if (wireOf(entry) === WIRE_BYTES) {
      let pos = bytesAt(buf, entry, end);
      entryEnd = cursor;
      while (pos < entryEnd) {
        pos = nextField(buf, pos, entryEnd);
        if (fieldOcc === ABSENT) continue;
        if (fieldId === 1) keyOcc = fieldOcc;
        else if (fieldId === 2) valueOcc = fieldOcc;
      }
    }
    const key = stringAt(buf, keyOcc, entryEnd);
    map[key] = decodeValue(schema, value, inner, buf, valueOcc, entryEnd);
  }
  return map;
}

function stringAt(buf: Buffer, occ: number, end: number): string {
  if (occ === ABSENT || wireOf(occ) !== WIRE_BYTES) return '';
  const start = bytesAt(buf, occ, end);
  return buf.toString('utf8', start, cursor);
}

/** One value at occurrence `occ`; ABSENT means the field was not there (the Go zero value). */
function decodeValue(schema: Schema, type: FieldType, inner: MessageSchema | undefined, buf: Buffer, occ: number, end: number): unknown {
  switch (type.kind) {
    case 'string':
      return stringAt(buf, occ, end);
    case 'integer': {
      const v = occ === ABSENT ? 0 : varintAt(buf, occ, end);
      return type.format === 'int32' ? v | 0 : v;
    }
    case 'boolean':
      return occ !== ABSENT && varintAt(buf, occ, end) !== 0;
    case 'bytes': {
      if (occ === ABSENT) return null;
      if (wireOf(occ) !== WIRE_BYTES) return '';
      const start = bytesAt(buf, occ, end);
      return buf.toString('base64', start, cursor);
    }
    case 'number':
      throw new Error('proto: floating-point fields are not used by the Kubernetes types we store');
    case 'object':
      return decodeObjectAt(schema, inner!, buf, occ, end);
    case 'map':
    case 'array':
      throw new Error('proto: nested collections do not occur in Kubernetes types');
    default: {
      if (occ === ABSENT || wireOf(occ) !== WIRE_BYTES) return decodeSpecial(type.kind, buf, 0, 0);
      const start = bytesAt(buf, occ, end);
      return decodeSpecial(type.kind, buf, start, cursor);
    }
  }
}

/** The small well-known messages kube writes as plain JSON values: Time, Quantity, IntOrString, FieldsV1, … */
function decodeSpecial(kind: FieldType['kind'], buf: Buffer, start: number, end: number): unknown {
  // Last occurrence of fields 1–3; stringList needs every field 1.
  const occ = [ABSENT, ABSENT, ABSENT, ABSENT];
  let list: string[] | undefined = kind === 'stringList' ? [] : undefined;
  let pos = start;
  while (pos < end) {
    pos = nextField(buf, pos, end);
    if (fieldId > 3 || fieldOcc === ABSENT) continue;
    occ[fieldId] = fieldOcc;
    if (list && fieldId === 1) list.push(stringAt(buf, fieldOcc, end));
  }
  const varint = (id: number) => (occ[id] === ABSENT ? 0 : varintAt(buf, occ[id], end));
  const text = (id: number) => stringAt(buf, occ[id], end);
  switch (kind) {
    case 'time':
      // Unmarshal reads seconds only; an empty message is the zero time, which JSON shows as null.
      return end === start ? null : formatTime(varint(1));
    case 'microTime':
      return end === start ? null : formatMicroTime(varint(1), varint(2));
    case 'duration':
      return formatDuration(varint(1));
    case 'quantity':
      return occ[1] !== ABSENT ? text(1) : '0';
    case 'intOrString':
      return varint(1) === 1 ? text(3) : varint(2) | 0;
    case 'fieldsV1':
    case 'rawExtension': {
      if (occ[1] === ABSENT || wireOf(occ[1]) !== WIRE_BYTES) return null;
      const s = bytesAt(buf, occ[1], end);
      return cursor === s ? null : JSON.parse(buf.toString('utf8', s, cursor));
    }
    case 'stringList':
      // A map value is unmarshalled into a fresh ExtraValue{}: an empty list, never null.
      list ??= [];
      return list;
    default:
      throw new Error(`proto: no decoding for ${kind}`);
  }
}

// The bytes kube-apiserver keeps in etcd, in both of its storage media types.
//
// application/vnd.kubernetes.protobuf (the default):
//
//   6b 38 73 00                      "k8s\0" magic
//   runtime.Unknown {
//     1: typeMeta { 1: apiVersion, 2: kind }
//     2: raw      (the object's own message, gogo-encoded: schema/toProto.ts)
//     3: contentEncoding ""          always written: `1a 00`
//     4: contentType ""              always written: `22 00`
//   }
//
// application/json (--storage-media-type=application/json): the object as
// compact JSON, kind and apiVersion first, with the newline json.Encoder adds.
//
// Either codec decodes either format (the first byte tells them apart), so a
// cluster can switch media types and still read what it wrote before. Before
// encoding, metadata.resourceVersion and selfLink are dropped (kube's
// PrepareObjectForStorage): the revision is etcd's mod_revision, not data.
// Kinds without a protobuf schema are stored as JSON, as kube stores CRDs.

import type { KObject } from './object';
import { parseApiVersion } from './object';
import { fromProto, messageForGvk, normalize, writeProto } from './schema/index';
import { WIRE_BYTES, WireReader, WireWriter, utf8Bytes, utf8String } from '../common/protobufWire';

/** Turns objects into the bytes stored in etcd and back. */
export interface Codec {
  /** 'application/vnd.kubernetes.protobuf' or 'application/json'. */
  readonly mediaType: string;
  /** obj must carry apiVersion and kind; resourceVersion and selfLink are dropped. */
  encode(obj: KObject): Uint8Array;
  /** Any value this codec or the other supported encoding wrote (protobuf envelope or JSON). */
  decode(data: Uint8Array): KObject;
}

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
export const JSON_MEDIA_TYPE = 'application/json';

/** "k8s\0": the prefix of every protobuf-encoded value. */
export const PROTOBUF_MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

export function isProtobufValue(data: Uint8Array): boolean {
  return data.length >= 4 && PROTOBUF_MAGIC.every((b, i) => data[i] === b);
}

function typeOf(obj: KObject): { apiVersion: string; kind: string; message?: string } {
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== 'string' || apiVersion === '' || typeof kind !== 'string' || kind === '') {
    throw new Error('codec: object has no apiVersion/kind');
  }
  const gv = parseApiVersion(apiVersion);
  return { apiVersion, kind, message: messageForGvk({ ...gv, kind }) };
}

function forStorage(obj: KObject): KObject {
  const metadata = { ...(obj.metadata ?? {}) };
  delete metadata.resourceVersion;
  delete metadata.selfLink;
  return { ...obj, metadata };
}

/** kind and apiVersion first, as TypeMeta leads every kube object. */
function typeFirst(kind: unknown, apiVersion: unknown, body: Record<string, unknown>): KObject {
  const out: Record<string, unknown> = {};
  if (kind !== undefined) out.kind = kind;
  if (apiVersion !== undefined) out.apiVersion = apiVersion;
  for (const [k, v] of Object.entries(body)) if (k !== 'kind' && k !== 'apiVersion') out[k] = v;
  if (out.metadata === undefined) out.metadata = {};
  return out as KObject;
}

function encodeJson(obj: KObject): Uint8Array {
  const stored = forStorage(obj);
  const { apiVersion, kind, message } = typeOf(stored);
  const body = message ? normalize(message, stored) : stored;
  return utf8Bytes(`${JSON.stringify(typeFirst(kind, apiVersion, body))}\n`);
}

/** The buffer encodes write into, kept between them (encoding is synchronous; a re-entered encode gets its own). */
let scratch: Uint8Array | undefined = new Uint8Array(16 * 1024);
const MAX_SCRATCH = 1024 * 1024;

function encodeProtobuf(obj: KObject): Uint8Array {
  const stored = forStorage(obj);
  const { apiVersion, kind, message } = typeOf(stored);
  if (!message) return encodeJson(stored);
  // One writer for the whole value: magic, then the runtime.Unknown's fields,
  // each length-delimited field written in place (fork/ldelim) instead of
  // encoded apart and copied in.
  const w = new WireWriter(scratch);
  scratch = undefined;
  try {
    w.raw(PROTOBUF_MAGIC);
    const typeMeta = w.tag(1, WIRE_BYTES).fork();
    w.tag(1, WIRE_BYTES).string(apiVersion).tag(2, WIRE_BYTES).string(kind).ldelim(typeMeta);
    const raw = w.tag(2, WIRE_BYTES).fork();
    writeProto(message, stored, w);
    w.ldelim(raw);
    w.tag(3, WIRE_BYTES).string('').tag(4, WIRE_BYTES).string('');
    return w.finish();
  } finally {
    // A buffer grown for one huge object is not kept.
    scratch = w.buffer.length <= MAX_SCRATCH ? w.buffer : new Uint8Array(16 * 1024);
  }
}

/** The runtime.Unknown inside a protobuf value. */
export interface ProtobufEnvelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

export function readEnvelope(data: Uint8Array): ProtobufEnvelope {
  if (!isProtobufValue(data)) throw new Error('codec: not a protobuf value (no k8s\\0 prefix)');
  const env: ProtobufEnvelope = { apiVersion: '', kind: '', raw: new Uint8Array(), contentEncoding: '', contentType: '' };
  const r = new WireReader(data.subarray(4));
  while (!r.eof()) {
    const { id, wireType } = r.tag();
    if (wireType !== WIRE_BYTES) {
      r.skip(wireType);
      continue;
    }
    const bytes = r.bytes();
    if (id === 1) {
      const tm = new WireReader(bytes);
      while (!tm.eof()) {
        const t = tm.tag();
        if (t.wireType !== WIRE_BYTES) tm.skip(t.wireType);
        else if (t.id === 1) env.apiVersion = tm.string();
        else if (t.id === 2) env.kind = tm.string();
        else tm.bytes();
      }
    } else if (id === 2) env.raw = bytes;
    else if (id === 3) env.contentEncoding = utf8String(bytes);
    else if (id === 4) env.contentType = utf8String(bytes);
  }
  return env;
}

/** Either storage format back to the object (resourceVersion is the caller's to set). */
export function decodeStored(data: Uint8Array): KObject {
  if (isProtobufValue(data)) {
    const env = readEnvelope(data);
    if (env.contentEncoding !== '') throw new Error(`codec: unsupported content encoding "${env.contentEncoding}"`);
    const message = messageForGvk({ ...parseApiVersion(env.apiVersion), kind: env.kind });
    if (!message) throw new Error(`no kind "${env.kind}" is registered for version "${env.apiVersion}"`);
    return typeFirst(env.kind, env.apiVersion, fromProto(message, env.raw));
  }
  const parsed: unknown = JSON.parse(utf8String(data));
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('codec: stored JSON is not an object');
  const obj = parsed as Record<string, unknown>;
  return typeFirst(obj.kind, obj.apiVersion, obj);
}

export function protobufCodec(): Codec {
  return { mediaType: PROTOBUF_MEDIA_TYPE, encode: encodeProtobuf, decode: decodeStored };
}

export function jsonCodec(): Codec {
  return { mediaType: JSON_MEDIA_TYPE, encode: encodeJson, decode: decodeStored };
}

/** --storage-media-type: 'application/json' or the protobuf default. */
export function codecFor(mediaType: string | undefined): Codec {
  return mediaType === JSON_MEDIA_TYPE ? jsonCodec() : protobufCodec();
}

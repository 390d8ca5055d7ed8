// Kubernetes type schemas: what other modules use.
//
//   kubeSchema().message('k8s.io.api.apps.v1.Deployment')  the JSON-oriented type tree
//   jsonFields(schema, msg)                               a message's JSON keys (inline structs flattened)
//   messageForGvk({group:'apps',version:'v1',kind:'Deployment'}) → 'k8s.io.api.apps.v1.Deployment'
//   toProto(message, json) / fromProto(message, bytes)     gogo-compatible bytes ⇄ kube's JSON
//   normalize(message, json)                               the JSON kube would echo back for this body
//   canonicalQuantity('1.5Gi') → '1536Mi'                  kube's Quantity.String()
//   strictDecode(gvk, body) / strictDecodingMessage(...)   unknown fields and type errors, kube's wording

import type { GroupVersionKind } from '../object';
import { decodeMessage } from './fromProto';
import { messageForGvk } from './gvk';
import { encodeMessage, writeMessage } from './toProto';
import type { WireWriter } from '../../common/protobufWire';
import { kubeSchema, type MessageSchema } from './types';

export { kubeSchema, jsonFields, Schema } from './types';
export type { FieldSchema, FieldType, JsonField, MessageSchema } from './types';
export { messageForGvk, gvkForMessage } from './gvk';
export { formatDuration, formatMicroTime, formatTime, parseDuration, parseRfc3339 } from './specialTypes';
export * from './strictDecoding';
export { canonicalQuantity } from './quantity';

/** The object (without kind/apiVersion, which live in the envelope) as gogo-protobuf bytes. */
export function toProto(message: string, obj: unknown): Uint8Array {
  const schema = kubeSchema();
  return encodeMessage(schema, schema.message(message), obj);
}

/** toProto written into w (in place, for an envelope that frames it). */
export function writeProto(message: string, obj: unknown, w: WireWriter): void {
  const schema = kubeSchema();
  writeMessage(schema, schema.message(message), obj, w);
}

/** Bytes of `message` as kube's JSON (no kind/apiVersion). */
export function fromProto(message: string, bytes: Uint8Array): Record<string, unknown> {
  const schema = kubeSchema();
  return decodeMessage(schema, schema.message(message), bytes);
}

/**
 * What kube would hold after decoding this JSON into its Go struct and
 * encoding it again: unknown fields dropped, Time truncated to seconds, zero
 * omitempty values removed, value structs filled in. kind/apiVersion are kept in front.
 */
export function normalize(message: string, obj: Record<string, unknown>): Record<string, unknown> {
  const body = fromProto(message, toProto(message, obj));
  const head: Record<string, unknown> = {};
  if (obj.kind !== undefined) head.kind = obj.kind;
  if (obj.apiVersion !== undefined) head.apiVersion = obj.apiVersion;
  return { ...head, ...body };
}

export function messageSchemaForGvk(gvk: GroupVersionKind): MessageSchema | undefined {
  const name = messageForGvk(gvk);
  return name ? kubeSchema().message(name) : undefined;
}

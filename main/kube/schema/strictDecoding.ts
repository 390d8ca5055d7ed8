// Strict decoding of a request body against the schema, with kube's words.
//
// kube-apiserver decodes bodies with sigs.k8s.io/json, which reports
//   - type mismatches as Go's encoding/json does, e.g.
//       json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32
//     (the innermost struct, the JSON path without list indices, the Go type) — always a 400;
//   - unknown and repeated keys, in document order, with full paths:
//       unknown field "spec.template.spec.containers[0].imagePullPolicyy"
//       duplicate field "spec.replicas"
//     which fieldValidation=Strict turns into a 400 and Warn into warnings.
// The 400's message wraps either one:
//   Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "a", unknown field "b"

import type { GroupVersionKind } from '../object';
import { messageForGvk } from './gvk';
import { astOf, parseJsonAst, type JsonNode } from './jsonAst';
import { namedGoType } from './goTypes';
import { canonicalQuantity } from './quantity';
import { parseDuration, parseRfc3339 } from './specialTypes';
import { jsonFields, kubeSchema, type FieldType, type MessageSchema, type Schema } from './types';

export interface StrictDecodeResult {
  /** The first type error in document order (Go's wording). A hard 400 whatever fieldValidation says. */
  typeError?: string;
  /** `unknown field "…"` / `duplicate field "…"` in document order (empty when clean). */
  strictErrors: string[];
}

interface Walk {
  schema: Schema;
  typeError?: string;
  strictErrors: string[];
}

/**
 * Checks a body for `gvk`. Pass the raw JSON text as well to find duplicate
 * keys and keep number literals exact; with only the parsed body, duplicates
 * cannot be seen. Kinds we have no schema for come back clean.
 */
export function strictDecode(gvk: GroupVersionKind, body: unknown, rawJson?: string): StrictDecodeResult {
  const message = messageForGvk(gvk);
  if (!message) return { strictErrors: [] };
  const schema = kubeSchema();
  const walk: Walk = { schema, strictErrors: [] };
  const root = rawJson !== undefined ? parseJsonAst(rawJson) : astOf(body);
  const msg = schema.message(message);
  if (root.type === 'object') walkMessage(walk, msg, root, undefined, true);
  else if (root.type !== 'null') walk.typeError = `json: cannot unmarshal ${describe(root)} into Go value of type ${msg.goPackage}.${msg.goName}`;
  return walk.typeError ? { typeError: walk.typeError, strictErrors: walk.strictErrors } : { strictErrors: walk.strictErrors };
}

/** `<Kind> in version "<v>" cannot be handled as a <Kind>: <detail>` — kube's 400 message for undecodable bodies. */
export function cannotBeHandledMessage(gvk: GroupVersionKind, detail: string): string {
  return `${gvk.kind} in version "${gvk.version}" cannot be handled as a ${gvk.kind}: ${detail}`;
}

/** The 400 message for fieldValidation=Strict: `... strict decoding error: unknown field "a", unknown field "b"`. */
export function strictDecodingMessage(gvk: GroupVersionKind, strictErrors: string[]): string {
  return cannotBeHandledMessage(gvk, `strict decoding error: ${strictErrors.join(', ')}`);
}

/**
 * The 400 message this result calls for, or undefined when the body decodes.
 * A type error always fails; strict errors fail only when `strict` (fieldValidation=Strict).
 */
export function decodeErrorMessage(gvk: GroupVersionKind, result: StrictDecodeResult, strict: boolean): string | undefined {
  if (result.typeError) return cannotBeHandledMessage(gvk, result.typeError);
  if (strict && result.strictErrors.length > 0) return strictDecodingMessage(gvk, result.strictErrors);
  return undefined;
}

function describe(node: JsonNode): string {
  switch (node.type) {
    case 'object':
      return 'object';
    case 'array':
      return 'array';
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'bool':
      return 'bool';
    case 'null':
      return 'null';
  }
}

function goTypeName(schema: Schema, type: FieldType): string {
  switch (type.kind) {
    case 'string':
      return 'string';
    case 'integer':
      return type.format;
    case 'boolean':
      return 'bool';
    case 'number':
      return 'float64';
    case 'bytes':
      return '[]uint8';
    case 'object': {
      const msg = schema.message(type.message);
      return `${msg.goPackage}.${msg.goName}`;
    }
    case 'array':
      return `[]${goTypeName(schema, type.items)}`;
    case 'map':
      return `map[string]${goTypeName(schema, type.value)}`;
    case 'time':
      return 'v1.Time';
    case 'microTime':
      return 'v1.MicroTime';
    case 'duration':
      return 'v1.Duration';
    case 'quantity':
      return 'resource.Quantity';
    case 'intOrString':
      return 'intstr.IntOrString';
    case 'fieldsV1':
      return 'v1.FieldsV1';
    case 'rawExtension':
      return 'runtime.RawExtension';
    case 'stringList':
      return 'v1.ExtraValue';
  }
}

/**
 * Where the walk is, kept as links to the parent and turned into text only
 * for an error message: a body that decodes cleanly builds no path strings.
 * It gives the JSON path (spec.containers[0].name) and, for type errors,
 * the Go field path from the root (list items and map keys left out), as
 * encoding/json names a field: <innermost struct>.spec.containers.name.
 */
interface Place {
  readonly up: Place | undefined;
  /** A JSON key, or an index for a list item (JSON path only). */
  readonly key: string | number;
  /** Whether the step is a Go struct field (list items and map keys are not). */
  readonly goField: boolean;
}

function step(up: Place | undefined, key: string | number, goField: boolean): Place {
  return { up, key, goField };
}

function jsonPath(p: Place | undefined): string {
  const parts: string[] = [];
  for (let at = p; at; at = at.up) parts.push(typeof at.key === 'number' ? `[${at.key}]` : at.up ? `.${at.key}` : at.key);
  return parts.reverse().join('');
}

/** structName.f1.f2: the Go struct fields from the root down to p. */
function goWhere(structName: string, p: Place | undefined): string {
  const keys: string[] = [];
  for (let at = p; at; at = at.up) if (at.goField) keys.push(String(at.key));
  return `${structName}.${keys.reverse().join('.')}`;
}

function walkMessage(walk: Walk, msg: MessageSchema, node: JsonNode & { type: 'object' }, path: Place | undefined, isRoot: boolean): void {
  const fields = jsonFields(walk.schema, msg);
  const seen = new Set<string>();
  for (const [key, child] of node.entries) {
    if (seen.has(key)) walk.strictErrors.push(`duplicate field "${jsonPath(step(path, key, true))}"`);
    seen.add(key);
    const jf = fields.get(key);
    if (!jf) {
      // TypeMeta is inlined into every kind.
      if (isRoot && (key === 'apiVersion' || key === 'kind')) {
        if (child.type !== 'string' && child.type !== 'null') typeError(walk, child, `${msg.goName}.${key}`, 'string');
        continue;
      }
      walk.strictErrors.push(`unknown field "${jsonPath(step(path, key, true))}"`);
      continue;
    }
    const owner = () => (jf.via ? walk.schema.message((jf.via.type as { message: string }).message).goName : msg.goName);
    walkValue(walk, jf.field.type, child, step(path, key, true), msg.goName, () => namedGoType(owner(), key));
  }
}

function typeError(walk: Walk, node: JsonNode, structField: string, goType: string, value = describe(node)): void {
  walk.typeError ??= `json: cannot unmarshal ${value} into Go struct field ${structField} of type ${goType}`;
}

function fail(walk: Walk, message: string): void {
  walk.typeError ??= message;
}

const intRange = { int32: [-(2n ** 31n), 2n ** 31n - 1n], int64: [-(2n ** 63n), 2n ** 63n - 1n] } as const;

/** `named`: the field's Go named type (for lists, the element's), when it has one (goTypes.ts). */
function walkValue(walk: Walk, type: FieldType, node: JsonNode, path: Place, structName: string, named?: () => string | undefined): void {
  if (node.type === 'null') return; // null leaves any Go field at its zero value
  const err = (goType: string, value?: string) => typeError(walk, node, goWhere(structName, path), goType, value);
  const goType = (): string => {
    const n = named?.();
    return type.kind === 'array' && n ? `[]${n}` : (n ?? goTypeName(walk.schema, type));
  };
  switch (type.kind) {
    case 'string':
    case 'bytes':
      if (node.type !== 'string') err(goType());
      return;
    case 'boolean':
      if (node.type !== 'bool') err(goType());
      return;
    case 'number':
      if (node.type !== 'number') err(goType());
      return;
    case 'integer': {
      if (node.type !== 'number') return err(goType());
      const [min, max] = intRange[type.format];
      if (!/^-?[0-9]+$/.test(node.text) || BigInt(node.text) < min || BigInt(node.text) > max) err(goType(), `number ${node.text}`);
      return;
    }
    case 'object':
      if (node.type !== 'object') return err(goType());
      walkMessage(walk, walk.schema.message(type.message), node, path, false);
      return;
    case 'array':
      if (node.type !== 'array') return err(goType());
      node.items.forEach((item, i) => walkValue(walk, type.items, item, step(path, i, false), structName, named));
      return;
    case 'map': {
      if (node.type !== 'object') return err(goType());
      const seen = new Set<string>();
      for (const [key, child] of node.entries) {
        const at = step(path, key, false);
        if (seen.has(key)) walk.strictErrors.push(`duplicate field "${jsonPath(at)}"`);
        seen.add(key);
        walkValue(walk, type.value, child, at, structName);
      }
      return;
    }
    case 'time':
    case 'microTime':
      if (node.type !== 'string') return fail(walk, `json: cannot unmarshal ${describe(node)} into Go value of type string`);
      try {
        parseRfc3339(node.value);
      } catch (err) {
        fail(walk, (err as Error).message);
      }
      return;
    case 'duration':
      if (node.type !== 'string') return fail(walk, `json: cannot unmarshal ${describe(node)} into Go value of type string`);
      try {
        parseDuration(node.value);
      } catch (err) {
        fail(walk, (err as Error).message);
      }
      return;
    case 'quantity': {
      const text = node.type === 'string' ? node.value : node.type === 'number' ? node.text : describe(node);
      try {
        canonicalQuantity(text);
      } catch (err) {
        fail(walk, (err as Error).message);
      }
      return;
    }
    case 'intOrString':
      if (node.type === 'string') return;
      if (node.type !== 'number') return fail(walk, `json: cannot unmarshal ${describe(node)} into Go value of type int32`);
      if (!/^-?[0-9]+$/.test(node.text) || BigInt(node.text) < intRange.int32[0] || BigInt(node.text) > intRange.int32[1]) {
        fail(walk, `json: cannot unmarshal number ${node.text} into Go value of type int32`);
      }
      return;
    case 'fieldsV1':
    case 'rawExtension':
      return; // free JSON
    case 'stringList':
      if (node.type !== 'array') return err('v1.ExtraValue');
      for (const item of node.items) if (item.type !== 'string' && item.type !== 'null') typeError(walk, item, goWhere(structName, path), 'string');
      return;
  }
}

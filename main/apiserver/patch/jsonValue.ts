// JSON values as the patch code handles them: plain parsed JSON (no
// undefined, no class instances). Every patch function copies before it
// mutates, so callers may pass live objects straight from storage.

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Structural equality with JSON semantics (object key order does not matter). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) if (!Object.prototype.hasOwnProperty.call(b, k) || !deepEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}

/** Whether a and b are the same JSON document: keys holding undefined count as absent, key order does not matter. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let keys = 0;
  for (const k in ra) {
    const v = ra[k];
    if (v === undefined) continue;
    keys++;
    if (!Object.prototype.hasOwnProperty.call(rb, k) || !sameJson(v, rb[k])) return false;
  }
  for (const k in rb) if (rb[k] !== undefined) keys--;
  return keys === 0;
}

/** A deep copy as JSON.parse(JSON.stringify(v)) makes it of JSON data (undefined keys dropped, undefined in arrays as null), without the text. */
export function jsonCopy<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    const out: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = v[i] === undefined ? null : jsonCopy(v[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  const src = v as Record<string, unknown>;
  for (const k in src) {
    const e = src[k];
    if (e !== undefined) out[k] = jsonCopy(e);
  }
  return out as T;
}

/** A deep copy of JSON data (jsonCopy: the JSON round trip's result, without the text). */
export function clone<T>(v: T): T {
  return jsonCopy(v);
}

/** The kind names Go's encoding/json uses in "cannot unmarshal X into ..." errors. */
export function goJsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'boolean') return 'bool';
  return typeof v; // 'number' | 'string'
}

/**
 * Parses a request body as Go's encoding/json would, turning a syntax error
 * into Go's wording ("invalid character 'x' looking for beginning of value",
 * "unexpected end of JSON input"). The wording is approximate past the first
 * bad character; kube only forwards it inside a 400 message.
 */
export function parseJsonBody(body: string | Uint8Array): { ok: true; value: JsonValue } | { ok: false; error: string } {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch {
    return { ok: false, error: goSyntaxError(text) };
  }
}

function goSyntaxError(text: string): string {
  const first = /\S/.exec(text);
  if (!first) return 'unexpected end of JSON input';
  if (!/[{["\-0-9tfn]/.test(first[0])) return `invalid character '${first[0]}' looking for beginning of value`;
  let message = '';
  try {
    JSON.parse(text);
  } catch (e) {
    message = (e as Error).message;
  }
  if (/end of JSON input/i.test(message)) return 'unexpected end of JSON input';
  const after = /after JSON at position (\d+)/.exec(message);
  if (after) return `invalid character '${text[Number(after[1])]}' after top-level value`;
  const token = /Unexpected token '?(.)'?/.exec(message);
  if (token) return `invalid character '${token[1]}' looking for beginning of value`;
  return message;
}

/** Go's %v rendering of a decoded JSON value, as error messages print it (map keys sorted). */
export function goFormat(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goFormat).join(' ')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goFormat(v[k])}`).join(' ')}]`;
  }
  if (typeof v === 'number') return goFloat(v);
  return String(v);
}

/** strconv.FormatFloat(f, 'g', -1, 64) as %v prints a float64: 1, 0.5, 1e+21. */
export function goFloat(f: number): string {
  if (Number.isInteger(f) && Math.abs(f) < 1e21) return String(f);
  const s = String(f);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

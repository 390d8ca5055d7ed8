// Media types as kube negotiates them: the Accept header is a list of media
// ranges with parameters (`application/json;as=Table;v=v1;g=meta.k8s.io`),
// tried in order; the first one we can produce wins (Go's
// negotiation ignores q-values' order for equal types, and kubectl lists its
// preference first). We produce JSON and YAML — protobuf responses are not
// served, so a client asking only for protobuf gets 406.

import { notAcceptable } from '../api/status';

export interface MediaRange {
  type: string; // 'application'
  subtype: string; // 'json'
  params: Record<string, string>;
}

export function parseMediaRanges(header: string | undefined): MediaRange[] {
  if (!header || header.trim() === '') return [];
  return header
    .split(',')
    .map((part) => parseMediaType(part))
    .filter((r): r is MediaRange => r !== undefined);
}

export function parseMediaType(text: string): MediaRange | undefined {
  const [full, ...paramParts] = text.split(';');
  const [type, subtype] = (full ?? '').trim().toLowerCase().split('/');
  if (!type || !subtype) return undefined;
  const params: Record<string, string> = {};
  for (const p of paramParts) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim().replace(/^"|"$/g, '');
  }
  return { type, subtype, params };
}

export type Serialization = 'json' | 'yaml';

/** JSON or YAML for `application/json`, `application/yaml`, wildcards; undefined for anything else. */
export function serializationOf(r: MediaRange): Serialization | undefined {
  if ((r.type === 'application' || r.type === '*') && (r.subtype === 'json' || r.subtype === '*')) return 'json';
  if (r.type === 'application' && r.subtype === 'yaml') return 'yaml';
  return undefined;
}

/** The plain serialization an Accept header asks for (ranges with `as=` are the REST layer's business). */
export function negotiatePlain(accept: string | undefined): Serialization {
  const ranges = parseMediaRanges(accept);
  if (ranges.length === 0) return 'json';
  for (const r of ranges) {
    if (r.params.as !== undefined) continue;
    const s = serializationOf(r);
    if (s) return s;
  }
  throw notAcceptable();
}

export function contentTypeOf(s: Serialization): string {
  return s === 'yaml' ? 'application/yaml' : 'application/json';
}

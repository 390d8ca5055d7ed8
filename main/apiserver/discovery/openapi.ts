// OpenAPI v3 as kube-apiserver serves it, built from the registry's
// ResourceDefs and the protobuf schema:
//
//   GET /openapi/v3            openApiIndex(resources)
//     {"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=<HASH>"}, "apis/apps/v1":{...}}}
//   GET /openapi/v3/apis/apps/v1[?hash=...]   openApiDocument(resources, 'apis/apps/v1')
//   GET /openapi/v2            openApiV2(resources): one Swagger 2.0 document
//     for everything, as JSON or gnostic protobuf (openapi/swagger.ts, openapi/gnostic.ts)
//
// HASH is the SHA-512 of the document, upper-case hex as kube writes it; the
// server uses it as the ETag and may cache a hashed URL for ever. kubectl
// needs this for `kubectl explain` and to know that the server checks fields
// itself (fieldValidation), so `kubectl apply` works without --validate=false.

import { createHash } from 'node:crypto';
import type { ResourceDef } from '../registry/rest/resourceDef';
import { Components, type JsonObject } from './openapi/components';
import { encodeGnosticDocument } from './openapi/gnostic';
import { addResourcePaths } from './openapi/paths';
import { swaggerDocument } from './openapi/swagger';

/** 'api/v1' for the core group, 'apis/<group>/<version>' otherwise. */
export function groupVersionPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** Accepts 'apis/apps/v1', 'api/v1', 'apps/v1' or 'v1'. */
function parseGroupVersion(groupVersion: string): { group: string; version: string } | undefined {
  const parts = groupVersion.replace(/^\/+|\/+$/g, '').split('/');
  if (parts[0] === 'api' && parts.length === 2) return { group: '', version: parts[1] };
  if (parts[0] === 'apis' && parts.length === 3) return { group: parts[1], version: parts[2] };
  if (parts.length === 1 && parts[0] !== '') return { group: '', version: parts[0] };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return undefined;
}

function servedGroupVersions(resources: ResourceDef[]): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const r of resources) seen.set(groupVersionPath(r.group, r.version), { group: r.group, version: r.version });
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, gv]) => gv);
}

// Documents are pure functions of the resource list, which is fixed for a
// running server: remember them per list (and hand out the same, read-only, objects).
const documentCache = new WeakMap<ResourceDef[], Map<string, JsonObject | undefined>>();
const indexCache = new WeakMap<ResourceDef[], { paths: Record<string, { serverRelativeURL: string }> }>();
const v2Cache = new WeakMap<ResourceDef[], OpenApiV2>();

const INFO = { title: 'Kubernetes', version: 'v1.32.0' };

/** The /openapi/v2 document in both encodings, built once per resource list. */
export interface OpenApiV2 {
  json: string;
  /** Built on first use: only clients that validate on their side ask for it. */
  protobuf(): Uint8Array;
}

/** The document for one group-version, or undefined when nothing is served there. Treat it as read-only. */
export function openApiDocument(resources: ResourceDef[], groupVersion: string): JsonObject | undefined {
  let docs = documentCache.get(resources);
  if (!docs) documentCache.set(resources, (docs = new Map()));
  const gv = parseGroupVersion(groupVersion);
  const key = gv ? groupVersionPath(gv.group, gv.version) : groupVersion;
  if (!docs.has(key)) docs.set(key, buildDocument(resources, groupVersion));
  return docs.get(key);
}

function buildDocument(resources: ResourceDef[], groupVersion: string): JsonObject | undefined {
  const gv = parseGroupVersion(groupVersion);
  if (!gv) return undefined;
  const defs = resources.filter((r) => r.group === gv.group && r.version === gv.version).sort((a, b) => (a.resource < b.resource ? -1 : 1));
  if (defs.length === 0) return undefined;
  const components = new Components();
  const paths: Record<string, JsonObject> = {};
  for (const def of defs) addResourcePaths(paths, def, components);
  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : 1)));
  const schemas = Object.fromEntries(Object.entries(components.schemas).sort(([a], [b]) => (a < b ? -1 : 1)));
  return {
    openapi: '3.0.0',
    info: INFO,
    paths: sortedPaths,
    components: {
      schemas,
      securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } },
    },
  };
}

/** SHA-512 of the document's JSON, upper-case hex (the ?hash= and the ETag). */
export function openApiHash(doc: JsonObject): string {
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase();
}

/** The /openapi/v3 index: one entry per served group-version. */
export function openApiIndex(resources: ResourceDef[]): { paths: Record<string, { serverRelativeURL: string }> } {
  const cached = indexCache.get(resources);
  if (cached) return cached;
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const gv of servedGroupVersions(resources)) {
    const path = groupVersionPath(gv.group, gv.version);
    const doc = openApiDocument(resources, path);
    if (doc) paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${openApiHash(doc)}` };
  }
  const index = { paths };
  indexCache.set(resources, index);
  return index;
}

/** The Swagger 2.0 document for every served group-version (kube's /openapi/v2). */
export function openApiV2(resources: ResourceDef[]): OpenApiV2 {
  const cached = v2Cache.get(resources);
  if (cached) return cached;
  const docs = servedGroupVersions(resources)
    .map((gv) => openApiDocument(resources, groupVersionPath(gv.group, gv.version)))
    .filter((d): d is JsonObject => d !== undefined);
  const doc = swaggerDocument(docs, INFO);
  let bytes: Uint8Array | undefined;
  const v2: OpenApiV2 = { json: JSON.stringify(doc), protobuf: () => (bytes ??= encodeGnosticDocument(doc)) };
  v2Cache.set(resources, v2);
  return v2;
}

/**
 * What the discovery handler serves: the index and the documents of the
 * current resource list (computed once per list, see the caches above).
 */
export function openApiSource(resources: () => ResourceDef[]): {
  index(): Record<string, unknown>;
  document(groupVersionPath: string): Record<string, unknown> | undefined;
  v2(): OpenApiV2;
} {
  return {
    index: () => openApiIndex(resources()),
    document: (path: string) => openApiDocument(resources(), path),
    v2: () => openApiV2(resources()),
  };
}

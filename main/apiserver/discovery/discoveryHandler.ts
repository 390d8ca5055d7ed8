// Serves the non-resource meta paths: /api, /apis (aggregated or legacy,
// negotiated per request), /api/v1, /apis/<g>, /apis/<g>/<v>, /version,
// /healthz|/livez|/readyz[/<check>], /openapi/v3[/<gv>] and /openapi/v2
// (documents built by discovery/openapi.ts, with their ETag; v2 as JSON or
// gnostic protobuf by Accept). Returns false for paths it does not own.

import { createHash } from 'node:crypto';
import type { ResourceDef } from '../registry/rest/resourceDef';
import { parseMediaRanges } from '../server/mediaType';
import type { OpenApiV2 } from './openapi';
import { failure } from '../api/status';
import type { RequestContext } from '../server/context';
import { writeObject, writeRaw } from '../server/responseWriter';
import { AGGREGATED_CONTENT_TYPE, aggregatedList, etagOf, wantsAggregated } from './aggregatedDiscovery';
import { runHealth, type HealthCheck } from './health';
import { apiGroupDoc, apiGroupList, apiResourceList, apiVersions } from './legacyDiscovery';
import { versionInfo } from './version';

export interface OpenApiSource {
  index(): Record<string, unknown>;
  /** 'api/v1' or 'apis/apps/v1'; undefined when not served. */
  document(groupVersionPath: string): Record<string, unknown> | undefined;
  v2(): OpenApiV2;
}

const OPENAPI_V2_PROTOBUF = 'com.github.proto-openapi.spec.v2.v1.0+protobuf';
const OPENAPI_V2_PROTOBUF_DEPRECATED = 'com.github.proto-openapi.spec.v2@v1.0+protobuf';

/** kube-openapi's negotiation for /openapi/v2: JSON, protobuf (either name), or nothing acceptable. */
export function openApiV2Encoding(accept: string | undefined): 'json' | 'protobuf' | undefined {
  const ranges = parseMediaRanges(accept && accept.trim() !== '' ? accept : '*/*');
  for (const r of ranges) {
    if (r.type !== 'application' && r.type !== '*') continue;
    if (r.subtype === 'json' || r.subtype === '*') return 'json';
    if (r.subtype === OPENAPI_V2_PROTOBUF || r.subtype === OPENAPI_V2_PROTOBUF_DEPRECATED) return 'protobuf';
  }
  return undefined;
}

export interface DiscoveryOptions {
  resources: () => ResourceDef[];
  serverAddress: string;
  health: { livez: HealthCheck[]; readyz: HealthCheck[] };
  openapi?: OpenApiSource;
}

export const NOT_FOUND_MESSAGE = 'the server could not find the requested resource';

export function notFoundStatus() {
  return failure(404, 'NotFound', NOT_FOUND_MESSAGE, {});
}

export function createDiscoveryHandler(opts: DiscoveryOptions): (ctx: RequestContext) => Promise<boolean> {
  return async (ctx) => {
    const method = ctx.req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') return false;
    const path = ctx.url.pathname.replace(/\/+$/, '') || '/';
    const parts = path.split('/').filter((p) => p !== '');
    const defs = opts.resources();

    if (parts[0] === 'healthz' || parts[0] === 'livez' || parts[0] === 'readyz') {
      const checks = parts[0] === 'readyz' ? opts.health.readyz : opts.health.livez;
      const ans = await runHealth(parts[0], parts.slice(1).join('/'), ctx.url.searchParams, checks);
      if (!ans) return false;
      writeRaw(ctx, ans.code, 'text/plain; charset=utf-8', ans.body, { 'X-Content-Type-Options': 'nosniff' });
      return true;
    }
    if (path === '/version') {
      writeObject(ctx, 200, versionInfo(), 'json');
      return true;
    }
    if (path === '/api' || path === '/apis') {
      if (wantsAggregated(ctx.req.headers.accept)) {
        serveAggregated(ctx, aggregatedList(defs, path === '/api'));
      } else {
        writeObject(ctx, 200, path === '/api' ? apiVersions(opts.serverAddress) : apiGroupList(defs));
      }
      return true;
    }
    if (parts[0] === 'api' && parts.length === 2) {
      const doc = apiResourceList(defs, '', parts[1]!);
      if (!doc) return false;
      writeObject(ctx, 200, doc);
      return true;
    }
    if (parts[0] === 'apis' && (parts.length === 2 || parts.length === 3)) {
      const doc = parts.length === 2 ? apiGroupDoc(defs, parts[1]!) : apiResourceList(defs, parts[1]!, parts[2]!);
      if (!doc) return false;
      writeObject(ctx, 200, doc);
      return true;
    }
    if (path === '/openapi/v2' && opts.openapi) {
      serveOpenApiV2(ctx, opts.openapi.v2());
      return true;
    }
    if (parts[0] === 'openapi' && parts[1] === 'v3' && opts.openapi) {
      const doc = parts.length === 2 ? opts.openapi.index() : opts.openapi.document(parts.slice(2).join('/'));
      if (!doc) return false;
      serveCached(ctx, 'application/json', JSON.stringify(doc), parts.length > 2 && ctx.url.searchParams.has('hash'));
      return true;
    }
    return false;
  };
}

function serveAggregated(ctx: RequestContext, doc: Record<string, unknown>): void {
  const body = JSON.stringify(doc);
  const etag = etagOf(body);
  const headers = { ETag: etag, Vary: 'Accept', 'Cache-Control': 'public' };
  if (ctx.req.headers['if-none-match'] === etag) {
    writeRaw(ctx, 304, AGGREGATED_CONTENT_TYPE, '', headers);
    return;
  }
  writeRaw(ctx, 200, AGGREGATED_CONTENT_TYPE, `${body}\n`, headers);
}

/** OpenAPI documents: ETag + 304; a request naming the hash may be cached for good, as kube allows. */
function serveCached(ctx: RequestContext, contentType: string, body: string, immutable: boolean): void {
  const etag = etagOf(body);
  const headers: Record<string, string> = { ETag: etag, Vary: 'Accept' };
  headers['Cache-Control'] = immutable ? 'public, immutable' : 'no-cache, private';
  if (ctx.req.headers['if-none-match'] === etag) {
    writeRaw(ctx, 304, contentType, '', headers);
    return;
  }
  writeRaw(ctx, 200, contentType, body, headers);
}

function serveOpenApiV2(ctx: RequestContext, doc: OpenApiV2): void {
  const encoding = openApiV2Encoding(ctx.req.headers.accept);
  if (!encoding) {
    writeRaw(ctx, 406, 'text/plain; charset=utf-8', '', { Vary: 'Accept' });
    return;
  }
  const body = encoding === 'json' ? doc.json : Buffer.from(doc.protobuf());
  const contentType = encoding === 'json' ? 'application/json' : `application/${OPENAPI_V2_PROTOBUF}`;
  // kube's ETag for /openapi/v2: the quoted SHA-512 of the body, upper-case hex.
  const etag = `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"`;
  const headers = { ETag: etag, Vary: 'Accept', 'Cache-Control': 'no-cache, private' };
  if (ctx.req.headers['if-none-match'] === etag) {
    writeRaw(ctx, 304, contentType, '', headers);
    return;
  }
  writeRaw(ctx, 200, contentType, body, headers);
}

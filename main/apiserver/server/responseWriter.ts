// Writing responses as kube-apiserver does: JSON (newline-terminated, as Go's
// json.Encoder writes it) or YAML (keys sorted, as sigs.k8s.io/yaml writes
// it), `Cache-Control: no-cache, private`, the request's Audit-Id, and the
// warnings collected during the request as `Warning: 299 - "..."` headers.
// Errors are metav1.Status bodies with their HTTP code. Bodies over 128 KiB
// go out gzipped (level 1) when the client's Accept-Encoding names gzip, as
// kube's deferredResponseWriter does (APIResponseCompression, on by default).

import { Readable, pipeline } from 'node:stream';
import { createGzip, gzip } from 'node:zlib';
import { stringify as toYaml } from 'yaml';
import { internalError, StatusError, type Status } from '../api/status';
import type { RequestContext } from './context';
import { contentTypeOf, negotiatePlain, type Serialization } from './mediaType';

export function encodeBody(obj: unknown, s: Serialization): string {
  return s === 'yaml' ? toYaml(obj, { sortMapEntries: true, lineWidth: 0 }) : `${JSON.stringify(obj)}\n`;
}

export function commonHeaders(ctx: RequestContext, contentType: string): Record<string, string | string[]> {
  const h: Record<string, string | string[]> = {
    'Content-Type': contentType,
    'Cache-Control': 'no-cache, private',
    'Audit-Id': ctx.trace.trace.id,
  };
  if (ctx.warnings.length > 0) h['Warning'] = ctx.warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  return h;
}

/** An object in the serialization the client's Accept header asks for. */
export function writeObject(ctx: RequestContext, code: number, obj: unknown, serialization?: Serialization): void {
  let s: Serialization;
  try {
    s = serialization ?? negotiatePlain(ctx.req.headers.accept);
  } catch (err) {
    writeError(ctx, err);
    return;
  }
  writeRaw(ctx, code, contentTypeOf(s), encodeBody(isStatus(obj) ? inKubeOrder(obj) : obj, s));
  ctx.trace.respond(code, isStatus(obj) ? obj : undefined);
}

/** kube's defaultGzipThresholdBytes and defaultGzipContentEncodingLevel. */
const GZIP_THRESHOLD_BYTES = 128 * 1024;
const GZIP_LEVEL = 1;
/** Input per zlib call when gzipping a streamed body: large enough that the per-call round trip to the thread pool does not dominate. */
const GZIP_INPUT_BYTES = 1024 * 1024;

/** negotiateContentEncoding: a comma-separated token that is exactly "gzip" (q-values are not read). */
export function wantsGzip(acceptEncoding: string | string[] | undefined): boolean {
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding;
  return header ? header.split(',').some((token) => token.trim() === 'gzip') : false;
}

export function writeRaw(ctx: RequestContext, code: number, contentType: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  if (ctx.res.headersSent) {
    ctx.res.end();
    return;
  }
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  if (ctx.req.method !== 'HEAD' && size > GZIP_THRESHOLD_BYTES && wantsGzip(ctx.req.headers['accept-encoding'])) {
    // Headers now (so nothing else writes a response meanwhile), the body once
    // zlib's thread pool has compressed it: a 20 MB list does not block the loop.
    ctx.res.writeHead(code, { ...commonHeaders(ctx, contentType), ...extra, 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
    gzip(body, { level: GZIP_LEVEL }, (err, compressed) => {
      // Compressing a buffer in memory only fails on exhaustion; the client then sees the connection end.
      if (err) ctx.res.destroy(err);
      else ctx.res.end(compressed);
    });
    ctx.trace.respond(code);
    return;
  }
  // With its length known, Node sends the header and a string body in one
  // socket write (one TLS record); without, chunked framing made it four pieces.
  // (A 204 or 304 has no body and no length.)
  const length: Record<string, string> = code === 204 || code === 304 ? {} : { 'Content-Length': String(size) };
  ctx.res.writeHead(code, { ...commonHeaders(ctx, contentType), ...extra, ...length });
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : body);
  ctx.trace.respond(code);
}

/** Bytes per write when streaming a body made of parts (each write is one TLS encryption and one socket write). */
const STREAM_CHUNK_BYTES = 64 * 1024;
/** Chunk buffers kept for reuse between writes and responses (64 × 64 KiB = 4 MiB at most). */
const CHUNK_POOL_MAX = 64;
const chunkPool: Buffer[] = [];

function takeChunk(): Buffer {
  return chunkPool.pop() ?? Buffer.allocUnsafeSlow(STREAM_CHUNK_BYTES);
}

function giveBack(chunk: Buffer): void {
  if (chunkPool.length < CHUNK_POOL_MAX) chunkPool.push(chunk);
}

/** Parts joined into buffers of about `size` bytes (a part that size or larger goes alone). */
function* chunksOf(parts: Buffer[], size: number): Generator<Buffer> {
  let group: Buffer[] = [];
  let bytes = 0;
  for (const p of parts) {
    if (bytes + p.length > size && group.length > 0) {
      yield Buffer.concat(group, bytes);
      group = [];
      bytes = 0;
    }
    group.push(p);
    bytes += p.length;
  }
  if (group.length > 0) yield Buffer.concat(group, bytes);
}

/**
 * A body given as parts (a list's cached item JSON): the same bytes, headers
 * and gzip rule as writeRaw, but without first copying everything into one
 * buffer. Gzipped bodies stream through zlib. Plain ones are copied into
 * pooled 64 KiB chunks, written as the socket drains, each chunk back in the
 * pool once the socket has taken it: TLS encrypts chunk by chunk while the
 * client is already reading, and a 20 MB list allocates nothing new per response (joined, it cost three fresh 20 MB
 * buffers: the body, the header+body copy the TLS layer makes for a writev,
 * its output; and the GC work that external memory brings).
 */
export function writeParts(ctx: RequestContext, code: number, contentType: string, parts: Buffer[]): void {
  let size = 0;
  for (const p of parts) size += p.length;
  const gzipped = wantsGzip(ctx.req.headers['accept-encoding']);
  if (ctx.res.headersSent || ctx.req.method === 'HEAD' || size <= STREAM_CHUNK_BYTES || (gzipped && size <= GZIP_THRESHOLD_BYTES)) {
    writeRaw(ctx, code, contentType, Buffer.concat(parts, size));
    return;
  }
  const res = ctx.res;
  if (gzipped) {
    // Compressed as it goes out, 1 MiB at a time on zlib's thread pool, as
    // kube's gzip writer compresses a streamed list: no 20 MB join first, the
    // client reads while the rest is compressed, and backpressure runs from
    // the socket through zlib to the parts.
    res.writeHead(code, { ...commonHeaders(ctx, contentType), 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
    ctx.trace.respond(code);
    pipeline(Readable.from(chunksOf(parts, GZIP_INPUT_BYTES)), createGzip({ level: GZIP_LEVEL }), res, (err) => {
      if (err) res.destroy(err);
    });
    return;
  }
  res.writeHead(code, { ...commonHeaders(ctx, contentType), 'Content-Length': String(size) });
  ctx.trace.respond(code);
  let next = 0;
  const pump = (): void => {
    while (next < parts.length) {
      let ok: boolean;
      if (parts[next].length >= STREAM_CHUNK_BYTES) {
        ok = res.write(parts[next++]);
      } else {
        const chunk = takeChunk();
        let used = 0;
        while (next < parts.length && used + parts[next].length <= STREAM_CHUNK_BYTES) used += parts[next++].copy(chunk, used);
        ok = res.write(chunk.subarray(0, used), () => giveBack(chunk));
      }
      if (!ok) {
        if (next < parts.length) res.once('drain', pump);
        else res.end();
        return;
      }
    }
    res.end();
  };
  pump();
}

/** Any thrown value as a Status response (non-StatusErrors become 500 InternalError). */
export function writeError(ctx: RequestContext, err: unknown): void {
  const status = toStatus(err);
  let s: Serialization = 'json';
  try {
    s = negotiatePlain(ctx.req.headers.accept);
  } catch {
    s = 'json';
  }
  ctx.trace.respond(status.code, status);
  writeRaw(ctx, status.code, contentTypeOf(s), encodeBody(status, s), retryAfter(status));
}

export function toStatus(err: unknown): Status {
  return inKubeOrder(err instanceof StatusError ? err.status : internalError(err).status);
}

/** metav1.Status with its fields in Go's struct order (kind, apiVersion, metadata, status, message, reason, details, code). */
export function inKubeOrder(s: Status): Status {
  const o: Record<string, unknown> = { kind: s.kind, apiVersion: s.apiVersion, metadata: s.metadata, status: s.status };
  if (s.message !== undefined) o.message = s.message;
  if (s.reason !== undefined) o.reason = s.reason;
  if (s.details !== undefined) o.details = s.details;
  if (s.code !== undefined) o.code = s.code;
  return o as unknown as Status;
}

function retryAfter(status: Status): Record<string, string> {
  const secs = status.details?.retryAfterSeconds;
  return secs !== undefined && (status.code === 429 || status.code === 503 || status.code === 504) ? { 'Retry-After': String(secs) } : {};
}

function isStatus(obj: unknown): obj is Status {
  return typeof obj === 'object' && obj !== null && (obj as { kind?: unknown }).kind === 'Status';
}

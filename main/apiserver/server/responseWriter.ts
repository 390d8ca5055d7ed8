// Writing responses as kube-apiserver does: JSON (newline-terminated, as Go's
// json.Encoder writes it) or YAML (keys sorted, as sigs.k8s.io/yaml writes
// it), `Cache-Control: no-cache, private`, the request's Audit-Id, and the
// warnings collected during the request as `Warning: 299 - "..."` headers.
// Errors are metav1.Status bodies with their HTTP code.

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

export function writeRaw(ctx: RequestContext, code: number, contentType: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  if (ctx.res.headersSent) {
    ctx.res.end();
    return;
  }
  ctx.res.writeHead(code, { ...commonHeaders(ctx, contentType), ...extra });
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : body);
  ctx.trace.respond(code);
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

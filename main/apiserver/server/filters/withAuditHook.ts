// The audit hook points (k8s.io/apiserver pkg/endpoints/filters/audit.go and
// authn_audit.go). WithAudit sits right after authentication, so events name
// the user; a request that fails authentication never gets there and is
// reported by withFailedAuthenticationAudit, which wraps authentication.
//
// Per audited request the filter gives the sink's recorder what kube's
// decorated ResponseWriter sees: the status code when the header is written
// (ResponseStarted, which sinks emit for long-running requests), the body the
// client sent (only when asked: the request object), the response body (for
// its Status, or the whole object at RequestResponse), a panic, and the end.
// A StatusError thrown further in is written here rather than by
// panicRecovery, so ResponseComplete carries the code the client got.
// The time the sinks take at arrival is the trace's 'audit' stage.

import { StatusError, type Status } from '../../api/status';
import type { NamedFilter, RequestContext } from '../context';
import { writeError } from '../responseWriter';

/** What the client was sent, as far as the recorder asked for it. */
export interface CapturedResponse {
  /** The status code written, or undefined when the handler wrote nothing (connection closed early). */
  code?: number;
  contentType?: string;
  /** The body bytes, when captured. */
  body?: Buffer;
  /** The Status written for a thrown StatusError (its bounded fields go into the event). */
  status?: Status;
}

/** One sink's view of one request it audits. */
export interface AuditRecorder {
  /** Keep the bytes the handler reads from the request (the request object). */
  captureRequestBody: boolean;
  /** Keep every response body (RequestResponse); otherwise only Status bodies are kept. */
  captureResponseBody: boolean;
  responseStarted(code: number): void;
  panic(err: unknown): void;
  complete(requestBody: Buffer | undefined, response: CapturedResponse): void;
}

export interface AuditSink {
  /** A request passed authentication: its recorder, or undefined when the sink does not audit it. */
  begin?(ctx: RequestContext): AuditRecorder | undefined;
  /** A request failed authentication (401) with this Status. */
  authenticationFailed?(ctx: RequestContext, status: Status): void;
  /** Plain observers (every authenticated request, at arrival and once answered). */
  requestReceived?(ctx: RequestContext): void;
  responseComplete?(ctx: RequestContext): void;
  /** Flush and close (the server is stopping). */
  close?(): Promise<void> | void;
}

/** Response bodies above this size are not kept for the audit event. */
const MAX_CAPTURED_BODY = 3 * 1024 * 1024;

export function withAuditHook(sinks: AuditSink[]): NamedFilter {
  return {
    name: 'audit',
    run: async (ctx, next) => {
      if (sinks.length === 0) {
        await next();
        return;
      }
      const t0 = performance.now();
      const recorders: AuditRecorder[] = [];
      for (const s of sinks) {
        s.requestReceived?.(ctx);
        const r = s.begin?.(ctx);
        if (r) recorders.push(r);
      }
      ctx.trace.add({ stage: 'audit', verdict: 'ok', latencyMs: performance.now() - t0 });
      const observers = sinks.filter((s) => s.responseComplete);
      if (recorders.length === 0 && observers.length === 0) {
        await next();
        return;
      }
      const requestBody = recorders.some((r) => r.captureRequestBody) ? captureRequestBody(ctx) : undefined;
      const response = captureResponse(ctx, recorders);
      try {
        await next();
      } catch (err) {
        if (!(err instanceof StatusError)) {
          for (const r of recorders) r.panic(err);
          throw err;
        }
        response.captured.status = err.status;
        writeError(ctx, err);
      }
      for (const r of recorders) r.complete(requestBody?.(), response.captured);
      for (const s of observers) s.responseComplete!(ctx);
    },
  };
}

/**
 * Placed right before authentication: sets the Audit-Id response header, and
 * a request authentication refuses (401) is answered here and reported to
 * the sinks, as kube's failed-authentication handler does.
 */
export function withFailedAuthenticationAudit(sinks: AuditSink[]): NamedFilter {
  return {
    name: 'failedAuthenticationAudit',
    run: async (ctx, next) => {
      // Every response names its audit ID (kube's WithAuditInit), panics and 401s included.
      ctx.res.setHeader('Audit-Id', ctx.trace.trace.id);
      try {
        await next();
      } catch (err) {
        if (!(err instanceof StatusError) || err.status.code !== 401 || ctx.user !== undefined || sinks.length === 0) throw err;
        writeError(ctx, err);
        for (const s of sinks) s.authenticationFailed?.(ctx, err.status);
      }
    },
  };
}

/** Keeps what the handler reads from the request body (readBody hands each chunk to ctx.bodyTap). */
function captureRequestBody(ctx: RequestContext): () => Buffer | undefined {
  const chunks: Buffer[] = [];
  let size = 0;
  ctx.bodyTap = (chunk) => {
    size += chunk.length;
    if (size <= MAX_CAPTURED_BODY) chunks.push(chunk);
  };
  return () => (chunks.length > 0 && size <= MAX_CAPTURED_BODY ? Buffer.concat(chunks) : undefined);
}

/** Decorates the response as kube's auditResponseWriter: the first header write reports the code; bodies are kept when wanted. */
function captureResponse(ctx: RequestContext, recorders: AuditRecorder[]): { captured: CapturedResponse } {
  const captured: CapturedResponse = {};
  const res = ctx.res;
  const keepAll = recorders.some((r) => r.captureResponseBody);
  const started = (code: number, headers?: Record<string, unknown>): void => {
    if (captured.code !== undefined) return;
    captured.code = code;
    const ct = headers ? Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] : res.getHeader('content-type');
    if (typeof ct === 'string') captured.contentType = ct;
    for (const r of recorders) r.responseStarted(code);
  };
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => typeof res;
  res.writeHead = ((code: number, ...rest: unknown[]) => {
    const out = writeHead(code, ...rest);
    // writeHead(code[, message][, headers]): headers given here are not readable through getHeader.
    const headers = rest.find((a): a is Record<string, unknown> => typeof a === 'object' && a !== null && !Array.isArray(a));
    started(code, headers);
    return out;
  }) as typeof res.writeHead;
  const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
  res.end = ((...args: unknown[]) => {
    const body = args[0];
    started(res.statusCode);
    if ((typeof body === 'string' || Buffer.isBuffer(body)) && body.length <= MAX_CAPTURED_BODY) {
      // Without RequestResponse only a failure Status body is of use (its fields go into responseStatus).
      if (keepAll || (captured.code ?? 200) >= 300 || looksLikeStatus(body)) captured.body = Buffer.isBuffer(body) ? body : Buffer.from(body);
    }
    return end(...args);
  }) as typeof res.end;
  return { captured };
}

function looksLikeStatus(b: Buffer | string): boolean {
  return (typeof b === 'string' ? b.slice(0, 40) : b.subarray(0, 40).toString('latin1')).includes('"kind":"Status"');
}

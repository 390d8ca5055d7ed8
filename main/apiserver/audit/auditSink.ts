// The audit log sink: the policy decides each request's level and omitted
// stages; the event is built as kube's WithAudit builds it and written, one
// line per stage, to the log backend. Stages:
//   RequestReceived   as soon as the request is authenticated
//   ResponseStarted   long-running requests (watch, exec, attach, log,
//                     portforward, proxy) when the header is written; and a
//                     request that failed authentication (its only event)
//   ResponseComplete  when the handler is done, with the final status
//   Panic             the handler threw something that is not a Status
// Levels: Metadata = who/what/result; Request adds the request object;
// RequestResponse adds the response object (never for watches). Request
// objects of create/update also fill objectRef's name/uid/resourceVersion at
// every level (kube's LogRequestObject). Audit annotations (authorization
// decision, admission plugins) are those set by the time of each stage.

import { parse as parseYaml } from 'yaml';
import type { Status } from '../api/status';
import type { KObject } from '../../kube/object';
import type { ResourceDef } from '../registry/rest/resourceDef';
import type { UserInfo } from '../authn/user';
import { messageForGvk, normalize } from '../../kube/schema/index';
import type { RequestContext } from '../server/context';
import type { AuditRecorder, AuditSink, CapturedResponse } from '../server/filters/withAuditHook';
import type { RequestInfo } from '../server/requestInfo';
import { PROTOBUF_MEDIA_TYPE, decodeStored } from '../../kube/codec';
import { auditUser, compactRef, eventJson, eventLegacy, microTime, newEvent, nowMicros, statusOf, type AuditEvent } from './event';
import type { AuditLogWriter } from './logBackend';
import { levelAtLeast, type AuditConfig, type PolicyAttributes, type PolicyChecker, type Stage } from './policy';

export interface AuditLogSinkOptions {
  checker: PolicyChecker;
  writer: AuditLogWriter;
  format?: 'json' | 'legacy';
  /** Served resources, to default and order request objects as kube decodes them. */
  resources?: () => ResourceDef[];
  now?: () => number;
}

const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/** kube's BasicLongRunningRequestCheck with the API server's defaults. */
export function isLongRunning(info: RequestInfo): boolean {
  return LONG_RUNNING_VERBS.has(info.verb) || (info.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(info.subresource));
}

export function policyAttributes(info: RequestInfo, user: UserInfo | undefined): PolicyAttributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
}

export function auditLogSink(opts: AuditLogSinkOptions): AuditSink {
  const now = opts.now ?? nowMicros;
  const format = opts.format === 'legacy' ? eventLegacy : eventJson;
  const emit = (ctx: RequestContext, ev: AuditEvent, cfg: AuditConfig, stage: Stage): void => {
    if (cfg.omitStages.includes(stage)) return;
    ev.stage = stage;
    ev.stageTimestamp = stage === 'RequestReceived' ? ev.requestReceivedTimestamp : microTime(now());
    ev.annotations = Object.keys(ctx.auditAnnotations).length > 0 ? { ...ctx.auditAnnotations } : undefined;
    opts.writer.write(format(ev));
  };
  const received = (ctx: RequestContext): number => {
    const ms = Date.parse(ctx.trace.trace.receivedAt);
    return Number.isNaN(ms) ? now() : ms * 1000;
  };

  return {
    begin(ctx) {
      const cfg = opts.checker.evaluate(policyAttributes(ctx.info, ctx.user));
      if (cfg.level === 'None') return undefined;
      const ev = newEvent({ level: cfg.level, auditID: ctx.trace.trace.id, req: ctx.req, info: ctx.info, user: ctx.user, receivedMicros: received(ctx) });
      const user = ctx.user;
      const longRunning = isLongRunning(ctx.info);
      const verb = ctx.info.verb;
      const decodesObject = verb === 'create' || verb === 'update';
      emit(ctx, ev, cfg, 'RequestReceived');
      let started = false;
      const recorder: AuditRecorder = {
        // Below Request only the objectRef is wanted from the body; it comes from ctx.requestObjectMeta.
        captureRequestBody: levelAtLeast(cfg.level, 'Request') && (decodesObject || verb === 'patch' || verb === 'delete' || verb === 'deletecollection'),
        captureResponseBody: cfg.level === 'RequestResponse' && !longRunning,
        responseStarted(code) {
          ev.responseStatus = { metadata: {}, code };
          if (!longRunning) return;
          started = true;
          emit(ctx, ev, cfg, 'ResponseStarted');
        },
        panic(err) {
          ev.responseStatus = { metadata: {}, status: 'Failure', message: `APIServer panic'd: ${err instanceof Error ? err.message : String(err)}`, reason: 'InternalError', code: 500 };
          emit(ctx, ev, cfg, 'Panic');
        },
        complete(requestBody, response) {
          // The impersonation filter runs after this one and swaps ctx.user (keeping the requestor in
          // impersonatedBy): kube logs the requestor as user and ctx.user as impersonatedUser.
          if (ctx.user && (ctx.impersonatedBy !== undefined || ctx.user !== user)) ev.impersonatedUser = auditUser(ctx.user);
          if (decodesObject && ctx.requestObjectMeta) completeObjectRef(ev, ctx.requestObjectMeta);
          if (requestBody) logRequestObject(ev, cfg, ctx, requestBody, opts.resources);
          const closedEarly = response.code === undefined;
          if (closedEarly) {
            ev.responseStatus = { metadata: {}, status: 'Success', message: 'Connection closed early', code: 200 };
            if (longRunning && !started) emit(ctx, ev, cfg, 'ResponseStarted');
          } else {
            logResponse(ev, cfg, response);
          }
          emit(ctx, ev, cfg, 'ResponseComplete');
        },
      };
      return recorder;
    },
    authenticationFailed(ctx, status) {
      const cfg = opts.checker.evaluate(policyAttributes(ctx.info, undefined));
      if (cfg.level === 'None') return;
      const ev = newEvent({ level: cfg.level, auditID: ctx.trace.trace.id, req: ctx.req, info: ctx.info, user: undefined, receivedMicros: received(ctx) });
      ev.responseStatus = statusOf(status);
      emit(ctx, ev, cfg, 'ResponseStarted');
    },
    close: () => opts.writer.close(),
  };
}

/** The body as JSON, whatever it was sent as (JSON, YAML, or kube protobuf); undefined when it does not parse. */
export function bodyValue(body: Buffer, contentType: string | undefined): unknown {
  const ct = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  try {
    if (ct === PROTOBUF_MEDIA_TYPE) return decodeStored(body);
    if (ct.endsWith('yaml')) return parseYaml(body.toString('utf8'));
    if (ct === '' || ct.endsWith('json')) return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  return undefined;
}

/** LogRequestObject / LogRequestPatch. */
function logRequestObject(ev: AuditEvent, cfg: AuditConfig, ctx: RequestContext, body: Buffer, resources: (() => ResourceDef[]) | undefined): void {
  const value = bodyValue(body, ctx.req.headers['content-type']);
  if (value === undefined) return;
  const verb = ctx.info.verb;
  if (verb === 'create' || verb === 'update') {
    const meta = (value as KObject).metadata;
    if (meta && typeof meta === 'object') completeObjectRef(ev, meta);
  }
  if (!levelAtLeast(cfg.level, 'Request')) return;
  let obj: unknown = value;
  if ((verb === 'create' || verb === 'update') && !ctx.info.subresource) obj = asDecoded(value as KObject, ctx.info, resources);
  ev.requestObject = cfg.omitManagedFields ? withoutManagedFields(obj) : obj;
}

/** LogRequestObject's first part: the objectRef's empty fields from the sent object's metadata. */
function completeObjectRef(ev: AuditEvent, meta: { namespace?: string; name?: string; uid?: string; resourceVersion?: string }): void {
  const ref = ev.objectRef ?? {};
  ev.objectRef = compactRef({
    ...ref,
    namespace: ref.namespace || meta.namespace,
    name: ref.name || meta.name,
    uid: ref.uid || meta.uid,
    resourceVersion: ref.resourceVersion || meta.resourceVersion,
  });
}

/** The object as kube's decoder hands it over: scheme defaults applied, fields in the Go struct's order. */
function asDecoded(obj: KObject, info: RequestInfo, resources: (() => ResourceDef[]) | undefined): unknown {
  const def = resources?.().find((d) => d.group === info.apiGroup && d.version === info.apiVersion && d.resource === info.resource);
  if (!def || typeof obj !== 'object' || obj === null) return obj;
  try {
    const copy = structuredClone(obj);
    def.strategy.defaults(copy);
    const message = messageForGvk({ group: def.group, version: def.version, kind: def.kind });
    return message ? normalize(message, copy as unknown as Record<string, unknown>) : copy;
  } catch {
    return obj;
  }
}

/** LogResponseObject: a Status response's bounded fields, and the object itself at RequestResponse. */
function logResponse(ev: AuditEvent, cfg: AuditConfig, r: CapturedResponse): void {
  const value = r.status ?? (r.body ? bodyValue(r.body, r.contentType) : undefined);
  const isStatus = typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status';
  ev.responseStatus = isStatus ? statusOf(value as Status) : { metadata: {} };
  ev.responseStatus.code = r.code;
  if (cfg.level === 'RequestResponse' && value !== undefined) ev.responseObject = cfg.omitManagedFields ? withoutManagedFields(value) : value;
}

/** copyWithoutManagedFields: the object, each list item, each table row's object. */
export function withoutManagedFields(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  const copy = structuredClone(v) as Record<string, unknown>;
  const strip = (o: unknown) => {
    const m = (o as { metadata?: Record<string, unknown> } | undefined)?.metadata;
    if (m && typeof m === 'object') delete m.managedFields;
  };
  strip(copy);
  if (Array.isArray(copy.items)) copy.items.forEach(strip);
  if (Array.isArray(copy.rows)) for (const row of copy.rows as { object?: unknown }[]) strip(row.object);
  return copy;
}

// One audit event (audit.k8s.io/v1 Event) as kube-apiserver writes it: the
// fields in the Go struct's order, empty optional fields left out, times as
// metav1.MicroTime (RFC 3339 with microseconds, UTC). The shape, from a real
// log line:
//
//   {"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"…",
//    "stage":"ResponseComplete","requestURI":"/api/v1/namespaces/default/pods?limit=500",
//    "verb":"list","user":{"username":"admin","groups":["system:masters","system:authenticated"]},
//    "sourceIPs":["127.0.0.1"],"userAgent":"kubectl/v1.32.0 (linux/amd64) kubernetes/…",
//    "objectRef":{"resource":"pods","namespace":"default","apiVersion":"v1"},
//    "responseStatus":{"metadata":{},"code":200},
//    "requestReceivedTimestamp":"…","stageTimestamp":"…",
//    "annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}}

import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Status } from '../api/status';
import type { UserInfo } from '../authn/user';
import type { RequestInfo } from '../server/requestInfo';
import type { Level, Stage } from './policy';
import { jsonCopy } from '../patch/jsonValue';

export interface AuditUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

export interface ResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code?: number;
}

export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: ResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

const MAX_USER_AGENT = 1024;

/** metav1.MicroTime as JSON: 2026-11-30T22:30:00.123456Z. */
export function microTime(epochMicros: number): string {
  const ms = Math.floor(epochMicros / 1000);
  const micros = String(Math.floor(epochMicros) % 1_000_000).padStart(6, '0');
  return `${new Date(ms).toISOString().slice(0, 19)}.${micros}Z`;
}

/** Microseconds since the epoch, from the monotonic clock's origin (Date only has milliseconds). */
export function nowMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

/** authnv1.UserInfo: username, uid, groups, extra — empty ones left out. */
export function auditUser(u: UserInfo | undefined): AuditUser {
  if (!u) return {};
  const out: AuditUser = {};
  if (u.username) out.username = u.username;
  if (u.uid) out.uid = u.uid;
  if (u.groups?.length) out.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length > 0) out.extra = jsonCopy(u.extra);
  return out;
}

/** utilnet.SourceIPs: X-Forwarded-For, then X-Real-Ip, then the peer — each once, in that order. */
export function sourceIPs(req: IncomingMessage): string[] {
  const ips: string[] = [];
  const add = (raw: string | undefined): void => {
    const ip = normalizeIp(raw?.trim());
    if (ip && !ips.includes(ip)) ips.push(ip);
  };
  const xff = req.headers['x-forwarded-for'];
  for (const part of (Array.isArray(xff) ? xff.join(',') : (xff ?? '')).split(',')) add(part);
  const real = req.headers['x-real-ip'];
  add(Array.isArray(real) ? real[0] : real);
  add(req.socket.remoteAddress);
  return ips;
}

function normalizeIp(ip: string | undefined): string | undefined {
  if (!ip) return undefined;
  // Go prints an IPv4-mapped IPv6 peer as the IPv4 address.
  const v = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
  return isIP(v) ? v : undefined;
}

function userAgent(req: IncomingMessage): string | undefined {
  const ua = req.headers['user-agent'];
  if (!ua) return undefined;
  return ua.length > MAX_USER_AGENT ? `${ua.slice(0, MAX_USER_AGENT)}...TRUNCATED` : ua;
}

/** LogRequestMetadata: the part of an event known when the request arrives. */
export function newEvent(opts: { level: Level; auditID: string; req: IncomingMessage; info: RequestInfo; user: UserInfo | undefined; receivedMicros: number }): AuditEvent {
  const { info } = opts;
  const ev: AuditEvent = {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: opts.level,
    auditID: opts.auditID,
    stage: 'RequestReceived',
    requestURI: opts.req.url ?? '/',
    verb: info.verb,
    user: auditUser(opts.user),
    requestReceivedTimestamp: microTime(opts.receivedMicros),
    stageTimestamp: microTime(opts.receivedMicros),
  };
  const ips = sourceIPs(opts.req);
  if (ips.length > 0) ev.sourceIPs = ips;
  const ua = userAgent(opts.req);
  if (ua) ev.userAgent = ua;
  if (info.isResourceRequest) {
    ev.objectRef = compactRef({ resource: info.resource, namespace: info.namespace, name: info.name, apiGroup: info.apiGroup, apiVersion: info.apiVersion, subresource: info.subresource });
  }
  return ev;
}

/** ObjectReference with kube's field order and empty strings left out. */
export function compactRef(r: ObjectReference): ObjectReference {
  const out: ObjectReference = {};
  for (const k of ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'] as const) if (r[k]) out[k] = r[k];
  return out;
}

/** The bounded copy of a Status the event keeps (LogResponseObject). */
export function statusOf(s: Status): ResponseStatus {
  const out: ResponseStatus = { metadata: {} };
  if (s.status) out.status = s.status;
  if (s.message) out.message = s.message;
  if (s.reason) out.reason = s.reason;
  if (s.details !== undefined) out.details = s.details;
  if (s.code) out.code = s.code;
  return out;
}

/** The event as one JSON line, fields in kube's order (the object was built in that order; later fields are placed here). */
export function eventJson(ev: AuditEvent): string {
  const o: Record<string, unknown> = {
    kind: ev.kind,
    apiVersion: ev.apiVersion,
    level: ev.level,
    auditID: ev.auditID,
    stage: ev.stage,
    requestURI: ev.requestURI,
    verb: ev.verb,
    user: ev.user,
  };
  if (ev.impersonatedUser) o.impersonatedUser = ev.impersonatedUser;
  if (ev.sourceIPs) o.sourceIPs = ev.sourceIPs;
  if (ev.userAgent) o.userAgent = ev.userAgent;
  if (ev.objectRef) o.objectRef = ev.objectRef;
  if (ev.responseStatus) o.responseStatus = ev.responseStatus;
  if (ev.requestObject !== undefined) o.requestObject = ev.requestObject;
  if (ev.responseObject !== undefined) o.responseObject = ev.responseObject;
  o.requestReceivedTimestamp = ev.requestReceivedTimestamp;
  o.stageTimestamp = ev.stageTimestamp;
  if (ev.annotations && Object.keys(ev.annotations).length > 0) o.annotations = ev.annotations;
  return `${JSON.stringify(o)}\n`;
}

/**
 * The legacy one-line format (--audit-log-format=legacy, plugin/pkg/audit/log
 * EventString): `<time> AUDIT: id="…" stage="…" ip="…" method="…" user="…"
 * groups="…" as="…" asgroups="…" user-agent="…" namespace="…" uri="…"[ response="…"]`.
 */
export function eventLegacy(ev: AuditEvent): string {
  const q = (s: string) => JSON.stringify(s);
  const list = (l: string[]) => l.map(q).join(',');
  const username = ev.user.username ?? '<none>';
  const groups = ev.user.username && ev.user.groups?.length ? list(ev.user.groups) : '<none>';
  const as = ev.impersonatedUser ? (ev.impersonatedUser.username ?? '') : '<self>';
  const asGroups = ev.impersonatedUser?.groups ? list(ev.impersonatedUser.groups) : '<lookup>';
  const namespace = ev.objectRef?.namespace || '<none>';
  const response = ev.responseStatus ? String(ev.responseStatus.code ?? 0) : '<deferred>';
  // time.RFC3339Nano drops trailing zeros of the fraction (and the dot with them).
  const time = ev.requestReceivedTimestamp.replace(/\.?0+Z$/, 'Z');
  const ip = ev.sourceIPs?.[0] ?? '<unknown>';
  return `${time} AUDIT: id=${q(ev.auditID)} stage=${q(ev.stage)} ip=${q(ip)} method=${q(ev.verb)} user=${q(username)} groups=${q(groups)} as=${q(as)} asgroups=${q(asGroups)} user-agent=${q(ev.userAgent ?? '')} namespace=${q(namespace)} uri=${q(ev.requestURI)} response="${response}"\n`;
}

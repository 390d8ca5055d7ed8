// metav1.Status errors exactly as kube-apiserver writes them
// (k8s.io/apimachinery/pkg/api/errors): the HTTP code, reason, message and
// details that kubectl turns into "Error from server (Reason): message".
// Handlers throw StatusError; the response writer serialises `status`.

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'UnsupportedMediaType'
  | 'NotAcceptable'
  | 'Gone'
  | 'Expired'
  | 'Timeout'
  | 'Forbidden'
  | 'Unauthorized'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'RequestEntityTooLarge'
  | '';

export type CauseType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  | 'FieldValueNotFound'
  | 'InternalError'
  | 'FieldManagerConflict'
  | 'ResourceVersionTooLarge';

export interface StatusCause {
  reason?: CauseType | string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never> | { resourceVersion?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

export class StatusError extends Error {
  constructor(readonly status: Status) {
    super(status.message ?? status.reason ?? `status ${status.code}`);
    this.name = 'StatusError';
  }
  get code(): number {
    return this.status.code;
  }
}

export function failure(code: number, reason: StatusReason, message: string, details?: StatusDetails): StatusError {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) status.details = details;
  return new StatusError(status);
}

/** The qualified resource as kube prints it: "pods", "deployments.apps". */
export interface QualifiedResource {
  group: string;
  resource: string;
}

export function qualifiedName(qr: QualifiedResource): string {
  return qr.group ? `${qr.resource}.${qr.group}` : qr.resource;
}

export function notFound(qr: QualifiedResource, name: string): StatusError {
  return failure(404, 'NotFound', `${qualifiedName(qr)} "${name}" not found`, { name, group: qr.group || undefined, kind: qr.resource });
}

export function alreadyExists(qr: QualifiedResource, name: string): StatusError {
  return failure(409, 'AlreadyExists', `${qualifiedName(qr)} "${name}" already exists`, { name, group: qr.group || undefined, kind: qr.resource });
}

export const OPTIMISTIC_LOCK_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

export function conflict(qr: QualifiedResource, name: string, why: string = OPTIMISTIC_LOCK_MESSAGE): StatusError {
  return failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedName(qr)} "${name}": ${why}`, {
    name,
    group: qr.group || undefined,
    kind: qr.resource,
  });
}

/** One field error, as k8s.io/apimachinery/pkg/util/validation/field builds them. */
export interface FieldError {
  type: CauseType;
  field: string;
  /** The offending value, rendered as Go's %#v would (see validation helpers); undefined for Required/Forbidden. */
  badValue?: unknown;
  detail?: string;
}

/** "Invalid value: -1: must be greater than or equal to 0" — field.Error.ErrorBody(). */
export function fieldErrorBody(e: FieldError): string {
  const label: Record<string, string> = {
    FieldValueRequired: 'Required value',
    FieldValueInvalid: 'Invalid value',
    FieldValueNotSupported: 'Unsupported value',
    FieldValueDuplicate: 'Duplicate value',
    FieldValueForbidden: 'Forbidden',
    FieldValueTooLong: 'Too long',
    FieldValueTooMany: 'Too many',
    FieldValueTypeInvalid: 'Invalid value',
    FieldValueNotFound: 'Not found',
    InternalError: 'Internal error',
  };
  let s = label[e.type] ?? e.type;
  const omitValue = e.type === 'FieldValueRequired' || e.type === 'FieldValueForbidden' || e.type === 'FieldValueTooLong' || e.type === 'InternalError';
  if (!omitValue && e.badValue !== undefined) s += `: ${goValue(e.badValue)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** A bad value already rendered the way Go's %#v prints it (maps, structs): goValue prints it verbatim. */
export class GoLiteral {
  constructor(readonly text: string) {}
  toJSON(): string {
    return this.text;
  }
}

/** Go's rendering of a bad value in field errors: strings quoted, numbers bare, string slices as []string{...}. */
export function goValue(v: unknown): string {
  if (v instanceof GoLiteral) return v.text;
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v === null) return 'null';
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return `[]string{${v.map((x) => JSON.stringify(x)).join(', ')}}`;
  return JSON.stringify(v);
}

/** 422: `Deployment.apps "nginx" is invalid: spec.replicas: Invalid value: -1: must be ...` (NewInvalid). */
export function invalid(gk: { group: string; kind: string }, name: string, errs: FieldError[]): StatusError {
  const causes = errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  const qualifiedKind = gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
  const agg = errs.map((e) => `${e.field}: ${fieldErrorBody(e)}`);
  const msg = agg.length === 1 ? agg[0] : `[${agg.join(', ')}]`;
  return failure(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${msg}`, {
    name,
    group: gk.group || undefined,
    kind: gk.kind,
    causes,
  });
}

export function badRequest(message: string): StatusError {
  return failure(400, 'BadRequest', message);
}

export function methodNotAllowed(qr: QualifiedResource, verb: string): StatusError {
  return failure(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind "${qualifiedName(qr)}"`, {
    group: qr.group || undefined,
    kind: qr.resource,
  });
}

/** 415, as NewUnsupportedMediaTypeError: lists what this endpoint accepts. */
export function unsupportedMediaType(accepted: string[]): StatusError {
  return failure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

export function notAcceptable(): StatusError {
  return failure(406, 'NotAcceptable', 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
}

/** 410 Expired as the watch cache sends it inside a watch stream. */
export function expired(message: string): StatusError {
  return failure(410, 'Expired', message);
}

export function gone(message: string): StatusError {
  return failure(410, 'Gone', message);
}

export function tooLargeResourceVersion(requested: bigint, current: bigint): StatusError {
  return failure(504, 'Timeout', `Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}

export function forbidden(qr: QualifiedResource, name: string, why: string): StatusError {
  const subject = name ? `${qualifiedName(qr)} "${name}"` : qualifiedName(qr);
  return failure(403, 'Forbidden', `${subject} is forbidden: ${why}`, { name: name || undefined, group: qr.group || undefined, kind: qr.resource });
}

export function unauthorized(message = 'Unauthorized'): StatusError {
  return failure(401, 'Unauthorized', message);
}

export function internalError(err: unknown): StatusError {
  const text = err instanceof Error ? err.message : String(err);
  return failure(500, 'InternalError', `Internal error occurred: ${text}`, { causes: [{ message: text }] });
}

export function serviceUnavailable(message: string): StatusError {
  return failure(503, 'ServiceUnavailable', message);
}

export function tooManyRequests(message: string, retryAfterSeconds = 1): StatusError {
  return failure(429, 'TooManyRequests', message, { retryAfterSeconds });
}

export function successStatus(details?: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
  if (details) s.details = details;
  return s;
}

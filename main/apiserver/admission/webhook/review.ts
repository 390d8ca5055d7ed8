// AdmissionReview admission.k8s.io/v1: the request a webhook receives and
// the checks on its answer (webhook/request/admissionreview.go
// CreateAdmissionObjects / VerifyAdmissionResponse). v1 is sent whenever the
// webhook lists it; a webhook listing only v1beta1 gets the same body under
// admission.k8s.io/v1beta1 (the two differ only in defaults of the answer).

import { randomUUID } from 'node:crypto';
import type { AdmissionAttributes } from '../interfaces';
import type { WebhookResultStatus } from './errors';

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: WebhookResultStatus;
  /** Decoded JSON Patch bytes (utf8), when the webhook sent one. */
  patch?: string;
  patchType?: string;
  auditAnnotations?: Record<string, string>;
  warnings?: string[];
}

/** Which AdmissionReview version to send: the first listed one this server speaks. */
export function reviewVersion(admissionReviewVersions: string[]): 'v1' | 'v1beta1' | undefined {
  for (const v of admissionReviewVersions) if (v === 'v1' || v === 'v1beta1') return v;
  return undefined;
}

function operationOptions(attrs: AdmissionAttributes): Record<string, unknown> | null {
  const kind = attrs.operation === 'CREATE' ? 'CreateOptions' : attrs.operation === 'UPDATE' ? 'UpdateOptions' : attrs.operation === 'DELETE' ? 'DeleteOptions' : '';
  if (!kind) return null;
  const o: Record<string, unknown> = { kind, apiVersion: 'meta.k8s.io/v1' };
  if (attrs.dryRun) o.dryRun = ['All'];
  return o;
}

/** The request body and its uid (a fresh uid per call, as kube makes one per webhook invocation). */
export function buildReview(attrs: AdmissionAttributes, version: 'v1' | 'v1beta1', uid: string = randomUUID()): { uid: string; body: string } {
  const kind = { group: attrs.group, version: attrs.version, kind: attrs.kind };
  const resource = { group: attrs.group, version: attrs.version, resource: attrs.resource };
  const request: Record<string, unknown> = { uid, kind, resource };
  if (attrs.subresource) request.subResource = attrs.subresource;
  request.requestKind = kind;
  request.requestResource = resource;
  if (attrs.subresource) request.requestSubResource = attrs.subresource;
  if (attrs.name) request.name = attrs.name;
  if (attrs.namespace) request.namespace = attrs.namespace;
  request.operation = attrs.operation;
  const user: Record<string, unknown> = { username: attrs.user.username };
  if (attrs.user.uid) user.uid = attrs.user.uid;
  if (attrs.user.groups.length) user.groups = attrs.user.groups;
  if (attrs.user.extra && Object.keys(attrs.user.extra).length) user.extra = attrs.user.extra;
  request.userInfo = user;
  request.object = attrs.object ?? null;
  request.oldObject = attrs.oldObject ?? null;
  request.dryRun = attrs.dryRun;
  request.options = operationOptions(attrs);
  return { uid, body: JSON.stringify({ kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request }) };
}

/** Thrown with Go's text; the caller wraps it as `received invalid webhook response: <text>`. */
export class InvalidResponseError extends Error {}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** VerifyAdmissionResponse for a decoded body. */
export function verifyResponse(uid: string, version: 'v1' | 'v1beta1', mutating: boolean, review: unknown): AdmissionResponse {
  const r = isRecord(review) ? review : {};
  const gv = typeof r.apiVersion === 'string' ? r.apiVersion : '';
  const kind = typeof r.kind === 'string' ? r.kind : '';
  if (version === 'v1' && (gv !== 'admission.k8s.io/v1' || kind !== 'AdmissionReview')) {
    const [g, v] = gv.includes('/') ? gv.split('/') : ['', gv];
    throw new InvalidResponseError(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${g}/${v}, Kind=${kind}`);
  }
  const resp = r.response;
  if (!isRecord(resp)) throw new InvalidResponseError('webhook response was absent');
  const gotUid = typeof resp.uid === 'string' ? resp.uid : '';
  if (gotUid !== uid) throw new InvalidResponseError(`expected response.uid="${uid}", got "${gotUid}"`);
  const out: AdmissionResponse = { uid, allowed: resp.allowed === true };
  if (isRecord(resp.status)) out.status = resp.status as WebhookResultStatus;
  if (isRecord(resp.auditAnnotations)) out.auditAnnotations = Object.fromEntries(Object.entries(resp.auditAnnotations).map(([k, v]) => [k, String(v)]));
  if (Array.isArray(resp.warnings)) out.warnings = resp.warnings.map(String);
  const patch = typeof resp.patch === 'string' && resp.patch ? Buffer.from(resp.patch, 'base64').toString('utf8') : undefined;
  if (mutating && patch) {
    const patchType = typeof resp.patchType === 'string' ? resp.patchType : undefined;
    // v1beta1 answers may leave patchType out; it then means JSONPatch.
    if (patchType === undefined && version === 'v1') throw new InvalidResponseError('webhook returned response.patch but not response.patchType');
    if (patchType !== undefined && patchType !== 'JSONPatch') throw new InvalidResponseError(`webhook returned invalid response.patchType of "${patchType}"`);
    out.patch = patch;
    out.patchType = 'JSONPatch';
  }
  return out;
}

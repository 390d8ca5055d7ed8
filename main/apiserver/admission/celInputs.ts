// The `request` and `namespaceObject` variables of admission CEL, shaped as
// kube builds them (plugin/cel CreateAdmissionRequest, CreateNamespaceObject)
// and then serialises to unstructured: JSON field names, omitempty fields
// left out (so `request.subResource` on a request without one is `no such
// key`, as in kube), no uid/object/oldObject (those are root variables).

import type { KObject } from '../../kube/object';
import type { AdmissionAttributes } from './interfaces';

export interface MatchedResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
}

function optionsKind(op: AdmissionAttributes['operation']): string | undefined {
  switch (op) {
    case 'CREATE':
      return 'CreateOptions';
    case 'UPDATE':
      return 'UpdateOptions';
    case 'DELETE':
      return 'DeleteOptions';
    default:
      return undefined;
  }
}

/**
 * The admission request as CEL sees it. `matched` is the equivalent
 * group/version/resource/kind the policy or webhook matched (the request's
 * own when absent); requestKind/requestResource stay the request's.
 */
export function admissionRequest(attrs: AdmissionAttributes, matched?: MatchedResource): Record<string, unknown> {
  const m = matched ?? { group: attrs.group, version: attrs.version, resource: attrs.resource, kind: attrs.kind };
  const userInfo: Record<string, unknown> = {};
  if (attrs.user.username) userInfo.username = attrs.user.username;
  if (attrs.user.uid) userInfo.uid = attrs.user.uid;
  if (attrs.user.groups?.length) userInfo.groups = attrs.user.groups;
  if (attrs.user.extra && Object.keys(attrs.user.extra).length > 0) userInfo.extra = attrs.user.extra;
  const req: Record<string, unknown> = {
    kind: { group: m.group, version: m.version, kind: m.kind },
    resource: { group: m.group, version: m.version, resource: m.resource },
    requestKind: { group: attrs.group, version: attrs.version, kind: attrs.kind },
    requestResource: { group: attrs.group, version: attrs.version, resource: attrs.resource },
    operation: attrs.operation,
    userInfo,
    dryRun: attrs.dryRun,
  };
  if (attrs.subresource) {
    req.subResource = attrs.subresource;
    req.requestSubResource = attrs.subresource;
  }
  if (attrs.name) req.name = attrs.name;
  if (attrs.namespace) req.namespace = attrs.namespace;
  const ok = optionsKind(attrs.operation);
  if (ok) req.options = { kind: ok, apiVersion: 'meta.k8s.io/v1' };
  return req;
}

const NAMESPACE_META_FIELDS = [
  'name',
  'generateName',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'finalizers',
] as const;

/** The request's namespace with only the fields kube exposes (no managedFields, ownerReferences); null when cluster-scoped. */
export function namespaceObject(ns: KObject | undefined | null): Record<string, unknown> | null {
  if (!ns) return null;
  const meta: Record<string, unknown> = {};
  const src = ns.metadata as unknown as Record<string, unknown>;
  for (const f of NAMESPACE_META_FIELDS) if (src[f] !== undefined) meta[f] = src[f];
  const out: Record<string, unknown> = { metadata: meta };
  const o = ns as unknown as Record<string, unknown>;
  if (o.spec !== undefined) out.spec = o.spec;
  if (o.status !== undefined) out.status = o.status;
  return out;
}

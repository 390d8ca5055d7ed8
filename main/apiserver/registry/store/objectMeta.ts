// Generic ObjectMeta handling shared by the write handlers (k8s.io/apiserver
// pkg/registry/rest create.go/update.go and handlers/rest.go): type meta,
// namespace of body vs URL, generateName, system fields (uid,
// creationTimestamp), and the errors kube gives when these disagree.

import { randomInt, randomUUID } from 'node:crypto';
import type { KObject } from '../../../kube/object';
import { badRequest, failure, GoLiteral, invalid, type StatusError } from '../../api/status';
import type { ResourceScope } from './scope';

/** kube's RFC3339 with seconds precision (metav1.Time drops sub-seconds when serialised). */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function setTypeMeta(scope: ResourceScope, obj: KObject): KObject {
  obj.apiVersion = scope.apiVersion;
  obj.kind = scope.def.kind;
  return obj;
}

/** The body must be a JSON object of this resource's group/version/kind (kind/apiVersion may be omitted). */
export function checkBodyType(scope: ResourceScope, body: unknown, expect = { apiVersion: scope.apiVersion, kind: scope.def.kind }): KObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(`the object provided is unrecognized (must be of type ${expect.kind}): couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(body) ? 'array' : typeof body} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const o = body as KObject;
  if (o.apiVersion !== undefined && o.apiVersion !== '' && o.apiVersion !== expect.apiVersion) {
    throw badRequest(`the API version in the data (${String(o.apiVersion)}) does not match the expected API version (${expect.apiVersion})`);
  }
  if (o.kind !== undefined && o.kind !== '' && o.kind !== expect.kind) {
    const version = expect.apiVersion.includes('/') ? expect.apiVersion.split('/')[1] : expect.apiVersion;
    throw badRequest(`${String(o.kind)} in version "${version}" cannot be handled as a ${expect.kind}: no kind "${String(o.kind)}" is registered for version "${expect.apiVersion}" in scheme "pkg/api/legacyscheme/scheme.go:30"`);
  }
  if (o.metadata === undefined || o.metadata === null) o.metadata = {};
  if (typeof o.metadata !== 'object') throw badRequest(`${expect.kind} in version "${expect.apiVersion}" cannot be handled as a ${expect.kind}: json: cannot unmarshal ${typeof o.metadata} into Go struct field ${expect.kind}.metadata of type v1.ObjectMeta`);
  o.apiVersion = expect.apiVersion;
  o.kind = expect.kind;
  return o;
}

/** Body namespace vs URL namespace (handlers: "the namespace of the provided object does not match the namespace sent on the request"). */
export function reconcileNamespace(scope: ResourceScope, obj: KObject, urlNamespace: string): void {
  if (!scope.def.namespaced) {
    delete obj.metadata.namespace;
    return;
  }
  const ns = obj.metadata.namespace;
  if (ns === undefined || ns === '') obj.metadata.namespace = urlNamespace;
  else if (ns !== urlNamespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
}

export function checkNameMatchesUrl(obj: KObject, urlName: string): void {
  const name = obj.metadata.name ?? '';
  if (name !== urlName) throw badRequest(`the name of the object (${name}) does not match the name on the URL (${urlName})`);
}

const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_GENERATED_BASE = 58;

/** names.SimpleNameGenerator: base (cut to 58) + 5 random characters. */
export function generateNameFrom(base: string): string {
  const b = base.length > MAX_GENERATED_BASE ? base.slice(0, MAX_GENERATED_BASE) : base;
  let s = '';
  for (let i = 0; i < 5; i++) s += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return b + s;
}

/** rest.FillObjectMetaSystemFields, where the strategy's prepareForCreate has not done it. */
export function fillSystemFields(obj: KObject, now: Date): void {
  if (!obj.metadata.uid) obj.metadata.uid = randomUUID();
  if (!obj.metadata.creationTimestamp) obj.metadata.creationTimestamp = rfc3339(now);
  delete obj.metadata.selfLink;
}

/** PUT without metadata.resourceVersion on a resource that needs one. */
export function resourceVersionRequired(scope: ResourceScope, name: string): StatusError {
  return invalid({ group: scope.def.group, kind: scope.def.kind }, name, [
    { type: 'FieldValueInvalid', field: 'metadata.resourceVersion', badValue: new GoLiteral('0x0'), detail: 'must be specified for an update' },
  ]);
}

/** The 500 the etcd store gives a create that carries a resourceVersion. */
export function resourceVersionOnCreate(): StatusError {
  return failure(500, 'InternalError', 'Internal error occurred: resourceVersion should not be set on objects to be created', {
    causes: [{ message: 'resourceVersion should not be set on objects to be created' }],
  });
}

/** Objects in a list response carry no kind/apiVersion (typed lists drop the items' TypeMeta). */
export function stripTypeMeta(obj: KObject): KObject {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return rest as KObject;
}

export function deepCopy<T>(v: T): T {
  return structuredClone(v);
}

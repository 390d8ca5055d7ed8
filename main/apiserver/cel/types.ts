// The static types the checker reasons with. Kubernetes declares `object`,
// `oldObject` and `params` as dyn (their shape is only known from OpenAPI,
// which admission does not type-check at compile time), but `request` and
// `namespaceObject` have fixed declared types, so `request.nmae` is a
// compile error ("undefined field 'nmae'") while `object.spce` only fails
// when evaluated. `variables` is an object whose fields are the composited
// variables, each typed by its own expression's output type.

export interface CelStaticType {
  /** cel-go's type name: int, uint, double, bool, string, bytes, null_type, dyn, list, map, type, google.protobuf.Timestamp, google.protobuf.Duration, or an object type name. */
  name: string;
  /** Declared fields of an object type (request, namespaceObject, variables). */
  fields?: Record<string, CelStaticType>;
  /** Element type of a list. */
  elem?: CelStaticType;
  /** Key and value types of a map. */
  key?: CelStaticType;
  value?: CelStaticType;
}

export const DYN: CelStaticType = { name: 'dyn' };
export const BOOL: CelStaticType = { name: 'bool' };
export const INT: CelStaticType = { name: 'int' };
export const UINT: CelStaticType = { name: 'uint' };
export const DOUBLE: CelStaticType = { name: 'double' };
export const STRING: CelStaticType = { name: 'string' };
export const BYTES: CelStaticType = { name: 'bytes' };
export const NULL: CelStaticType = { name: 'null_type' };
export const TYPE: CelStaticType = { name: 'type' };
export const TIMESTAMP: CelStaticType = { name: 'google.protobuf.Timestamp' };
export const DURATION: CelStaticType = { name: 'google.protobuf.Duration' };

export function listOf(elem: CelStaticType): CelStaticType {
  return { name: 'list', elem };
}

export function mapOf(key: CelStaticType, value: CelStaticType): CelStaticType {
  return { name: 'map', key, value };
}

export function objectOf(name: string, fields: Record<string, CelStaticType>): CelStaticType {
  return { name, fields };
}

/** cel-go's rendering of a type in messages: list(string), map(string, dyn), bool. */
export function typeString(t: CelStaticType): string {
  if (t.name === 'list') return `list(${typeString(t.elem ?? DYN)})`;
  if (t.name === 'map') return `map(${typeString(t.key ?? DYN)}, ${typeString(t.value ?? DYN)})`;
  return t.name;
}

export function isDyn(t: CelStaticType): boolean {
  return t.name === 'dyn';
}

/** Same type, structurally (list/map parameters included); dyn parameters match only dyn. */
export function sameType(a: CelStaticType, b: CelStaticType): boolean {
  if (a.name !== b.name) return false;
  if (a.name === 'list') return sameType(a.elem ?? DYN, b.elem ?? DYN);
  if (a.name === 'map') return sameType(a.key ?? DYN, b.key ?? DYN) && sameType(a.value ?? DYN, b.value ?? DYN);
  return true;
}

const GVK = objectOf('kubernetes.GroupVersionKind', { group: STRING, version: STRING, kind: STRING });
const GVR = objectOf('kubernetes.GroupVersionResource', { group: STRING, version: STRING, resource: STRING });
const USER_INFO = objectOf('kubernetes.UserInfo', {
  username: STRING,
  uid: STRING,
  groups: listOf(STRING),
  extra: mapOf(STRING, listOf(STRING)),
});

/** kube's BuildRequestType: the admission request without uid, object and oldObject. */
export const ADMISSION_REQUEST = objectOf('kubernetes.AdmissionRequest', {
  kind: GVK,
  resource: GVR,
  subResource: STRING,
  requestKind: GVK,
  requestResource: GVR,
  requestSubResource: STRING,
  name: STRING,
  namespace: STRING,
  operation: STRING,
  userInfo: USER_INFO,
  dryRun: BOOL,
  options: DYN,
});

const NAMESPACE_CONDITION = objectOf('kubernetes.NamespaceCondition', {
  status: STRING,
  type: STRING,
  lastTransitionTime: TIMESTAMP,
  message: STRING,
  reason: STRING,
});

/** kube's BuildNamespaceType: the fields of the request's namespace a policy may read. */
export const NAMESPACE = objectOf('kubernetes.Namespace', {
  metadata: objectOf('kubernetes.NamespaceMetadata', {
    name: STRING,
    generateName: STRING,
    namespace: STRING,
    labels: mapOf(STRING, STRING),
    annotations: mapOf(STRING, STRING),
    UID: STRING,
    creationTimestamp: TIMESTAMP,
    deletionGracePeriodSeconds: INT,
    deletionTimestamp: TIMESTAMP,
    generation: INT,
    resourceVersion: STRING,
    finalizers: listOf(STRING),
  }),
  spec: objectOf('kubernetes.NamespaceSpec', { finalizers: listOf(STRING) }),
  status: objectOf('kubernetes.NamespaceStatus', { conditions: listOf(NAMESPACE_CONDITION), phase: STRING }),
});

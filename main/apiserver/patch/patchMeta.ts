// How each list, map and struct field of the types we serve merges: the
// patchStrategy/patchMergeKey Go struct tags (strategic merge patch) and the
// +listType/+listMapKey/+structType/+mapType markers (server-side apply),
// copied from k8s.io/api and k8s.io/apimachinery at v0.32. Keyed by the
// protobuf message name and the JSON field name, e.g.
//   fieldMeta('k8s.io.api.core.v1.PodSpec', 'containers')
//     → { kind: 'list', type: 'k8s.io.api.core.v1.Container', patchStrategy: 'merge',
//         patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'] }
//
// Only non-scalar fields are listed; schemaTypes.ts types every other field
// from the Go type schema (main/kube/schema). A field missing from the table is
// treated as kube treats a field without tags: objects merge field by field,
// lists are replaced whole (atomic). The OpenAPI document (discovery/) reads the same table for
// x-kubernetes-patch-strategy / x-kubernetes-patch-merge-key / list-type.
//
// `value: true` marks a struct held by value in Go (not a pointer): it is
// present, as `{}`, even in a zero object, and `zeroNull` a field without
// omitempty that is `null` there. Field ownership for a create is computed
// against that zero object, so these decide where kube writes `.` in
// managedFields (`f:labels: {.: {}, ...}` but `f:spec: {...}`).

import { messageForGvk } from '../../kube/schema/index';

export type ListType = 'atomic' | 'set' | 'map';

export interface FieldMeta {
  kind: 'struct' | 'list' | 'map' | 'scalar';
  /** Message of the struct, of the list's elements, or of the map's values (absent: scalars). */
  type?: string;
  patchStrategy?: 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys';
  patchMergeKey?: string;
  /** Lists: SSA list type. Maps/structs: 'atomic' for +mapType=atomic / +structType=atomic. */
  listType?: ListType;
  listMapKeys?: string[];
  atomic?: boolean;
  value?: boolean;
  /** A Go field without omitempty that is nil in a zero object: present as `null` (e.g. PodSpec.containers). */
  zeroNull?: boolean;
}

const CORE = 'k8s.io.api.core.v1.';
const APPS = 'k8s.io.api.apps.v1.';
const BATCH = 'k8s.io.api.batch.v1.';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.';
const SVM = 'k8s.io.api.storagemigration.v1alpha1.';

// Small constructors keep the table one line per field.
const struct = (type: string, extra: Partial<FieldMeta> = {}): FieldMeta => ({ kind: 'struct', type, ...extra });
const byValue = (type: string): FieldMeta => ({ kind: 'struct', type, value: true });
const atomicStruct = (type: string): FieldMeta => ({ kind: 'struct', type, atomic: true });
const map = (type?: string, extra: Partial<FieldMeta> = {}): FieldMeta => ({ kind: 'map', type, ...extra });
const atomicList = (type?: string): FieldMeta => ({ kind: 'list', type, listType: 'atomic' });
const mergeList = (type: string, key: string, keys: string[] = [key], extra: Partial<FieldMeta> = {}): FieldMeta => ({
  kind: 'list',
  type,
  patchStrategy: 'merge',
  patchMergeKey: key,
  listType: 'map',
  listMapKeys: keys,
  ...extra,
});
const mergeSet = (): FieldMeta => ({ kind: 'list', patchStrategy: 'merge', listType: 'set' });
const set = (): FieldMeta => ({ kind: 'list', listType: 'set' });
const conditions = (type: string): FieldMeta => mergeList(type, 'type');

const CONTAINER_FIELDS: Record<string, FieldMeta> = {
  command: atomicList(),
  args: atomicList(),
  ports: mergeList(CORE + 'ContainerPort', 'containerPort', ['containerPort', 'protocol']),
  envFrom: atomicList(CORE + 'EnvFromSource'),
  env: mergeList(CORE + 'EnvVar', 'name'),
  resources: byValue(CORE + 'ResourceRequirements'),
  resizePolicy: atomicList(CORE + 'ContainerResizePolicy'),
  volumeMounts: mergeList(CORE + 'VolumeMount', 'mountPath'),
  volumeDevices: mergeList(CORE + 'VolumeDevice', 'devicePath'),
  livenessProbe: struct(CORE + 'Probe'),
  readinessProbe: struct(CORE + 'Probe'),
  startupProbe: struct(CORE + 'Probe'),
  lifecycle: struct(CORE + 'Lifecycle'),
  securityContext: struct(CORE + 'SecurityContext'),
};

const POD_SPEC_FIELDS: Record<string, FieldMeta> = {
  volumes: mergeList(CORE + 'Volume', 'name', ['name'], { patchStrategy: 'merge,retainKeys' }),
  initContainers: mergeList(CORE + 'Container', 'name'),
  containers: mergeList(CORE + 'Container', 'name', ['name'], { zeroNull: true }),
  ephemeralContainers: mergeList(CORE + 'EphemeralContainer', 'name'),
  nodeSelector: map(undefined, { atomic: true }),
  securityContext: struct(CORE + 'PodSecurityContext'),
  imagePullSecrets: mergeList(CORE + 'LocalObjectReference', 'name'),
  affinity: struct(CORE + 'Affinity'),
  tolerations: atomicList(CORE + 'Toleration'),
  hostAliases: mergeList(CORE + 'HostAlias', 'ip'),
  dnsConfig: struct(CORE + 'PodDNSConfig'),
  readinessGates: atomicList(CORE + 'PodReadinessGate'),
  overhead: map(),
  topologySpreadConstraints: mergeList(CORE + 'TopologySpreadConstraint', 'topologyKey', ['topologyKey', 'whenUnsatisfiable']),
  os: struct(CORE + 'PodOS'),
  schedulingGates: mergeList(CORE + 'PodSchedulingGate', 'name'),
  resourceClaims: mergeList(CORE + 'PodResourceClaim', 'name', ['name'], { patchStrategy: 'merge,retainKeys' }),
  resources: struct(CORE + 'ResourceRequirements'),
};

const TABLE: Record<string, Record<string, FieldMeta>> = {
  [META + 'ObjectMeta']: {
    labels: map(),
    annotations: map(),
    ownerReferences: mergeList(META + 'OwnerReference', 'uid'),
    finalizers: mergeSet(),
    managedFields: atomicList(META + 'ManagedFieldsEntry'),
    // metav1.Time has no omitempty effect: a zero ObjectMeta encodes "creationTimestamp": null.
    creationTimestamp: { kind: 'scalar', zeroNull: true },
  },
  [META + 'LabelSelector']: {
    matchLabels: map(),
    matchExpressions: atomicList(META + 'LabelSelectorRequirement'),
  },

  // core/v1 Pod and its parts
  [CORE + 'Pod']: { metadata: byValue(META + 'ObjectMeta'), spec: byValue(CORE + 'PodSpec'), status: byValue(CORE + 'PodStatus') },
  [CORE + 'PodTemplateSpec']: { metadata: byValue(META + 'ObjectMeta'), spec: byValue(CORE + 'PodSpec') },
  [CORE + 'PodTemplate']: { metadata: byValue(META + 'ObjectMeta'), template: byValue(CORE + 'PodTemplateSpec') },
  [CORE + 'PodSpec']: POD_SPEC_FIELDS,
  [CORE + 'PodStatus']: {
    conditions: conditions(CORE + 'PodCondition'),
    hostIPs: mergeList(CORE + 'HostIP', 'ip'),
    podIPs: mergeList(CORE + 'PodIP', 'ip'),
    initContainerStatuses: atomicList(CORE + 'ContainerStatus'),
    containerStatuses: atomicList(CORE + 'ContainerStatus'),
    ephemeralContainerStatuses: atomicList(CORE + 'ContainerStatus'),
    resourceClaimStatuses: mergeList(CORE + 'PodResourceClaimStatus', 'name', ['name'], { patchStrategy: 'merge,retainKeys' }),
  },
  [CORE + 'Container']: CONTAINER_FIELDS,
  [CORE + 'EphemeralContainer']: CONTAINER_FIELDS,
  [CORE + 'ResourceRequirements']: { limits: map(), requests: map(), claims: mergeList(CORE + 'ResourceClaim', 'name', ['name'], { patchStrategy: undefined, patchMergeKey: undefined }) },
  [CORE + 'Probe']: { exec: struct(CORE + 'ExecAction'), httpGet: struct(CORE + 'HTTPGetAction'), tcpSocket: struct(CORE + 'TCPSocketAction'), grpc: struct(CORE + 'GRPCAction') },
  [CORE + 'ExecAction']: { command: atomicList() },
  [CORE + 'HTTPGetAction']: { httpHeaders: atomicList(CORE + 'HTTPHeader') },
  [CORE + 'Lifecycle']: { postStart: struct(CORE + 'LifecycleHandler'), preStop: struct(CORE + 'LifecycleHandler') },
  [CORE + 'LifecycleHandler']: { exec: struct(CORE + 'ExecAction'), httpGet: struct(CORE + 'HTTPGetAction'), tcpSocket: struct(CORE + 'TCPSocketAction'), sleep: struct(CORE + 'SleepAction') },
  [CORE + 'SecurityContext']: { capabilities: struct(CORE + 'Capabilities'), seLinuxOptions: struct(CORE + 'SELinuxOptions'), seccompProfile: struct(CORE + 'SeccompProfile') },
  [CORE + 'Capabilities']: { add: atomicList(), drop: atomicList() },
  [CORE + 'PodSecurityContext']: { supplementalGroups: atomicList(), sysctls: atomicList(CORE + 'Sysctl'), seLinuxOptions: struct(CORE + 'SELinuxOptions'), seccompProfile: struct(CORE + 'SeccompProfile') },
  [CORE + 'PodDNSConfig']: { nameservers: atomicList(), searches: atomicList(), options: atomicList(CORE + 'PodDNSConfigOption') },
  [CORE + 'HostAlias']: { hostnames: atomicList() },
  [CORE + 'TopologySpreadConstraint']: { labelSelector: atomicStruct(META + 'LabelSelector'), matchLabelKeys: atomicList() },
  [CORE + 'Volume']: {
    configMap: struct(CORE + 'ConfigMapVolumeSource'),
    secret: struct(CORE + 'SecretVolumeSource'),
    emptyDir: struct(CORE + 'EmptyDirVolumeSource'),
    hostPath: struct(CORE + 'HostPathVolumeSource'),
    persistentVolumeClaim: struct(CORE + 'PersistentVolumeClaimVolumeSource'),
    projected: struct(CORE + 'ProjectedVolumeSource'),
    downwardAPI: struct(CORE + 'DownwardAPIVolumeSource'),
  },
  [CORE + 'ConfigMapVolumeSource']: { items: atomicList(CORE + 'KeyToPath') },
  [CORE + 'SecretVolumeSource']: { items: atomicList(CORE + 'KeyToPath') },
  [CORE + 'ProjectedVolumeSource']: { sources: atomicList(CORE + 'VolumeProjection') },
  [CORE + 'DownwardAPIVolumeSource']: { items: atomicList(CORE + 'DownwardAPIVolumeFile') },
  [CORE + 'Affinity']: { nodeAffinity: struct(CORE + 'NodeAffinity'), podAffinity: struct(CORE + 'PodAffinity'), podAntiAffinity: struct(CORE + 'PodAntiAffinity') },
  [CORE + 'NodeAffinity']: { requiredDuringSchedulingIgnoredDuringExecution: struct(CORE + 'NodeSelector'), preferredDuringSchedulingIgnoredDuringExecution: atomicList() },
  [CORE + 'NodeSelector']: { nodeSelectorTerms: atomicList(CORE + 'NodeSelectorTerm') },
  [CORE + 'PodAffinity']: { requiredDuringSchedulingIgnoredDuringExecution: atomicList(), preferredDuringSchedulingIgnoredDuringExecution: atomicList() },
  [CORE + 'PodAntiAffinity']: { requiredDuringSchedulingIgnoredDuringExecution: atomicList(), preferredDuringSchedulingIgnoredDuringExecution: atomicList() },

  // core/v1, other kinds
  [CORE + 'Service']: { metadata: byValue(META + 'ObjectMeta'), spec: byValue(CORE + 'ServiceSpec'), status: byValue(CORE + 'ServiceStatus') },
  [CORE + 'ServiceSpec']: {
    ports: mergeList(CORE + 'ServicePort', 'port', ['port', 'protocol']),
    selector: map(undefined, { atomic: true }),
    clusterIPs: atomicList(),
    externalIPs: atomicList(),
    loadBalancerSourceRanges: atomicList(),
    ipFamilies: atomicList(),
    sessionAffinityConfig: struct(CORE + 'SessionAffinityConfig'),
  },
  [CORE + 'ServiceStatus']: { loadBalancer: byValue(CORE + 'LoadBalancerStatus'), conditions: conditions(META + 'Condition') },
  [CORE + 'LoadBalancerStatus']: { ingress: atomicList(CORE + 'LoadBalancerIngress') },
  [CORE + 'ConfigMap']: { metadata: byValue(META + 'ObjectMeta'), data: map(), binaryData: map() },
  [CORE + 'Secret']: { metadata: byValue(META + 'ObjectMeta'), data: map(), stringData: map() },
  [CORE + 'ServiceAccount']: {
    metadata: byValue(META + 'ObjectMeta'),
    secrets: mergeList(CORE + 'ObjectReference', 'name'),
    imagePullSecrets: atomicList(CORE + 'LocalObjectReference'),
  },
  [CORE + 'Namespace']: { metadata: byValue(META + 'ObjectMeta'), spec: byValue(CORE + 'NamespaceSpec'), status: byValue(CORE + 'NamespaceStatus') },
  [CORE + 'NamespaceSpec']: { finalizers: atomicList() },
  [CORE + 'NamespaceStatus']: { conditions: conditions(CORE + 'NamespaceCondition') },
  [CORE + 'Node']: { metadata: byValue(META + 'ObjectMeta'), spec: byValue(CORE + 'NodeSpec'), status: byValue(CORE + 'NodeStatus') },
  [CORE + 'NodeSpec']: { podCIDRs: { kind: 'list', patchStrategy: 'merge', listType: 'set' }, taints: atomicList(CORE + 'Taint') },
  [CORE + 'NodeStatus']: {
    capacity: map(),
    allocatable: map(),
    conditions: conditions(CORE + 'NodeCondition'),
    addresses: mergeList(CORE + 'NodeAddress', 'type'),
    daemonEndpoints: byValue(CORE + 'NodeDaemonEndpoints'),
    nodeInfo: byValue(CORE + 'NodeSystemInfo'),
    images: atomicList(CORE + 'ContainerImage'),
    volumesInUse: atomicList(),
    volumesAttached: atomicList(CORE + 'AttachedVolume'),
  },
  [CORE + 'Endpoints']: { metadata: byValue(META + 'ObjectMeta'), subsets: atomicList(CORE + 'EndpointSubset') },
  [CORE + 'Event']: {
    metadata: byValue(META + 'ObjectMeta'),
    involvedObject: byValue(CORE + 'ObjectReference'),
    source: byValue(CORE + 'EventSource'),
    series: struct(CORE + 'EventSeries'),
    related: struct(CORE + 'ObjectReference'),
  },

  // apps/v1
  [APPS + 'Deployment']: { metadata: byValue(META + 'ObjectMeta'), spec: byValue(APPS + 'DeploymentSpec'), status: byValue(APPS + 'DeploymentStatus') },
  [APPS + 'DeploymentSpec']: {
    selector: atomicStruct(META + 'LabelSelector'),
    template: byValue(CORE + 'PodTemplateSpec'),
    strategy: { kind: 'struct', type: APPS + 'DeploymentStrategy', value: true, patchStrategy: 'retainKeys' },
  },
  [APPS + 'DeploymentStrategy']: { rollingUpdate: struct(APPS + 'RollingUpdateDeployment') },
  [APPS + 'DeploymentStatus']: { conditions: conditions(APPS + 'DeploymentCondition') },
  [APPS + 'ReplicaSet']: { metadata: byValue(META + 'ObjectMeta'), spec: byValue(APPS + 'ReplicaSetSpec'), status: byValue(APPS + 'ReplicaSetStatus') },
  [APPS + 'ReplicaSetSpec']: { selector: atomicStruct(META + 'LabelSelector'), template: byValue(CORE + 'PodTemplateSpec') },
  [APPS + 'ReplicaSetStatus']: { conditions: conditions(APPS + 'ReplicaSetCondition') },
  [APPS + 'StatefulSet']: { metadata: byValue(META + 'ObjectMeta'), spec: byValue(APPS + 'StatefulSetSpec'), status: byValue(APPS + 'StatefulSetStatus') },
  [APPS + 'StatefulSetSpec']: {
    selector: atomicStruct(META + 'LabelSelector'),
    template: byValue(CORE + 'PodTemplateSpec'),
    volumeClaimTemplates: atomicList(CORE + 'PersistentVolumeClaim'),
    updateStrategy: byValue(APPS + 'StatefulSetUpdateStrategy'),
    persistentVolumeClaimRetentionPolicy: struct(APPS + 'StatefulSetPersistentVolumeClaimRetentionPolicy'),
    ordinals: struct(APPS + 'StatefulSetOrdinals'),
  },
  [APPS + 'StatefulSetUpdateStrategy']: { rollingUpdate: struct(APPS + 'RollingUpdateStatefulSetStrategy') },
  [APPS + 'StatefulSetStatus']: { conditions: conditions(APPS + 'StatefulSetCondition') },
  [APPS + 'DaemonSet']: { metadata: byValue(META + 'ObjectMeta'), spec: byValue(APPS + 'DaemonSetSpec'), status: byValue(APPS + 'DaemonSetStatus') },
  [APPS + 'DaemonSetSpec']: {
    selector: atomicStruct(META + 'LabelSelector'),
    template: byValue(CORE + 'PodTemplateSpec'),
    updateStrategy: byValue(APPS + 'DaemonSetUpdateStrategy'),
  },
  [APPS + 'DaemonSetUpdateStrategy']: { rollingUpdate: struct(APPS + 'RollingUpdateDaemonSet') },
  [APPS + 'DaemonSetStatus']: { conditions: conditions(APPS + 'DaemonSetCondition') },

  // batch/v1
  [BATCH + 'Job']: { metadata: byValue(META + 'ObjectMeta'), spec: byValue(BATCH + 'JobSpec'), status: byValue(BATCH + 'JobStatus') },
  [BATCH + 'JobSpec']: { selector: atomicStruct(META + 'LabelSelector'), template: byValue(CORE + 'PodTemplateSpec'), podFailurePolicy: struct(BATCH + 'PodFailurePolicy') },
  [BATCH + 'PodFailurePolicy']: { rules: atomicList() },
  [BATCH + 'JobStatus']: {
    conditions: { kind: 'list', type: BATCH + 'JobCondition', patchStrategy: 'merge', patchMergeKey: 'type', listType: 'atomic' },
    uncountedTerminatedPods: struct(BATCH + 'UncountedTerminatedPods'),
  },
  [BATCH + 'UncountedTerminatedPods']: { succeeded: set(), failed: set() },
  [BATCH + 'CronJob']: { metadata: byValue(META + 'ObjectMeta'), spec: byValue(BATCH + 'CronJobSpec'), status: byValue(BATCH + 'CronJobStatus') },
  [BATCH + 'CronJobSpec']: { jobTemplate: byValue(BATCH + 'JobTemplateSpec') },
  [BATCH + 'JobTemplateSpec']: { metadata: byValue(META + 'ObjectMeta'), spec: byValue(BATCH + 'JobSpec') },
  [BATCH + 'CronJobStatus']: { active: atomicList(CORE + 'ObjectReference') },

  // coordination.k8s.io/v1
  ['k8s.io.api.coordination.v1.Lease']: { metadata: byValue(META + 'ObjectMeta'), spec: byValue('k8s.io.api.coordination.v1.LeaseSpec') },

  // storagemigration.k8s.io/v1alpha1
  [SVM + 'StorageVersionMigration']: { metadata: byValue(META + 'ObjectMeta'), spec: byValue(SVM + 'StorageVersionMigrationSpec'), status: byValue(SVM + 'StorageVersionMigrationStatus') },
  [SVM + 'StorageVersionMigrationSpec']: { resource: byValue(SVM + 'GroupVersionResource') },
  [SVM + 'StorageVersionMigrationStatus']: { conditions: conditions(SVM + 'MigrationCondition') },

  // autoscaling/v1 Scale (the /scale subresource)
  ['k8s.io.api.autoscaling.v1.Scale']: {
    metadata: byValue(META + 'ObjectMeta'),
    spec: byValue('k8s.io.api.autoscaling.v1.ScaleSpec'),
    status: byValue('k8s.io.api.autoscaling.v1.ScaleStatus'),
  },
};

/** Kinds we serve → the message of their top-level object. */
const KIND_MESSAGES: Record<string, string> = {
  'v1/Pod': CORE + 'Pod',
  'v1/PodTemplate': CORE + 'PodTemplate',
  'v1/Service': CORE + 'Service',
  'v1/ConfigMap': CORE + 'ConfigMap',
  'v1/Secret': CORE + 'Secret',
  'v1/ServiceAccount': CORE + 'ServiceAccount',
  'v1/Namespace': CORE + 'Namespace',
  'v1/Node': CORE + 'Node',
  'v1/Endpoints': CORE + 'Endpoints',
  'v1/Event': CORE + 'Event',
  'apps/v1/Deployment': APPS + 'Deployment',
  'apps/v1/ReplicaSet': APPS + 'ReplicaSet',
  'apps/v1/StatefulSet': APPS + 'StatefulSet',
  'apps/v1/DaemonSet': APPS + 'DaemonSet',
  'batch/v1/Job': BATCH + 'Job',
  'batch/v1/CronJob': BATCH + 'CronJob',
  'coordination.k8s.io/v1/Lease': 'k8s.io.api.coordination.v1.Lease',
  'autoscaling/v1/Scale': 'k8s.io.api.autoscaling.v1.Scale',
};

/**
 * The message name for an apiVersion + kind, e.g. ('apps/v1', 'Deployment')
 * → 'k8s.io.api.apps.v1.Deployment'; kinds not listed here are looked up in
 * the Go type schema (messageForGvk).
 */
export function messageForKind(apiVersion: string, kind: string): string | undefined {
  const known = KIND_MESSAGES[`${apiVersion}/${kind}`];
  if (known) return known;
  const slash = apiVersion.indexOf('/');
  const gvk = slash < 0 ? { group: '', version: apiVersion, kind } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind };
  try {
    return messageForGvk(gvk);
  } catch {
    return undefined;
  }
}

/**
 * The metadata of the field at a JSON path below a message, walking struct
 * fields, map values and list elements: fieldMetaAtPath('k8s.io.api.apps.v1.Deployment',
 * ['spec', 'template', 'spec', 'containers']) → the containers entry. List
 * indices in the path may be numbers or any string (they only step into the element type).
 */
export function fieldMetaAtPath(message: string, path: (string | number)[]): FieldMeta | undefined {
  let msg: string | undefined = message;
  let meta: FieldMeta | undefined;
  let inCollection = false; // the previous step named a list or map: this step picks an element
  for (const step of path) {
    if (inCollection) {
      inCollection = false;
      continue;
    }
    meta = fieldMeta(msg, String(step));
    if (!meta) return undefined;
    msg = meta.type;
    inCollection = meta.kind === 'list' || meta.kind === 'map';
  }
  return meta;
}

/** The metadata of one field of a message; undefined for scalars and unknown fields. */
export function fieldMeta(message: string | undefined, field: string): FieldMeta | undefined {
  if (!message) return undefined;
  return TABLE[message]?.[field];
}

/** Every field of a message that has metadata (for OpenAPI extensions and tests). */
export function messageFields(message: string): Readonly<Record<string, FieldMeta>> | undefined {
  return TABLE[message];
}

/** All messages in the table. */
export function knownMessages(): string[] {
  return Object.keys(TABLE);
}

/**
 * The OpenAPI extensions kube publishes for a field, for /openapi:
 * x-kubernetes-patch-strategy, x-kubernetes-patch-merge-key,
 * x-kubernetes-list-type, x-kubernetes-list-map-keys, x-kubernetes-map-type.
 */
export function openApiExtensions(message: string, field: string): Record<string, unknown> {
  const m = fieldMeta(message, field);
  const out: Record<string, unknown> = {};
  if (!m) return out;
  if (m.patchStrategy) out['x-kubernetes-patch-strategy'] = m.patchStrategy;
  if (m.patchMergeKey) out['x-kubernetes-patch-merge-key'] = m.patchMergeKey;
  if (m.kind === 'list' && m.listType) out['x-kubernetes-list-type'] = m.listType;
  if (m.kind === 'list' && m.listType === 'map' && m.listMapKeys) out['x-kubernetes-list-map-keys'] = m.listMapKeys;
  if (m.kind === 'map' && m.atomic) out['x-kubernetes-map-type'] = 'atomic';
  if (m.kind === 'struct' && m.atomic) out['x-kubernetes-map-type'] = 'atomic';
  return out;
}

/** The SMP strategy with retainKeys folded away, as extractRetainKeysPatchStrategy does. */
export function mergeStrategy(m: FieldMeta | undefined): 'merge' | 'replace' | undefined {
  if (!m?.patchStrategy) return undefined;
  const parts = m.patchStrategy.split(',').filter((p) => p !== 'retainKeys');
  return parts[0] === 'merge' ? 'merge' : parts[0] === 'replace' ? 'replace' : undefined;
}

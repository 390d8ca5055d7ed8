// What the .proto files cannot say about kube's Go structs, and both wire
// formats depend on: which fields are Go values rather than pointers, which
// JSON tags lack `omitempty`, and which structs are embedded `json:",inline"`.
//
// Why it matters:
//   - gogo-protobuf always writes non-pointer fields (a zero string is `0a 00`)
//     and only writes pointer fields when set;
//   - encoding/json never omits a value struct (`strategy: {}`,
//     `creationTimestamp: null` in a pod template) and shows non-omitempty
//     scalars even when zero (`restartCount: 0`, `reportingComponent: ""`).
//
// Defaults (most fields follow them): scalars are non-pointer + omitempty,
// message fields are pointers, lists and maps are omitempty. Each entry lists
// only the exceptions, by JSON name, as read from k8s.io/api v0.32 types.go:
//   value:  message field held by value (always encoded, always shown)
//   ptr:    scalar held by pointer (encoded and shown only when set)
//   req:    scalar without omitempty (shown even when zero)
//   inline: embedded struct whose fields appear in the parent's JSON
// `req` on a message or list field only marks it required in OpenAPI (it has
// no omitempty in Go, e.g. DeploymentSpec.selector).

export interface GoShape {
  value?: string;
  ptr?: string;
  req?: string;
  inline?: string;
}

const objectKind: GoShape = { value: 'metadata spec status' };

/** Keyed by the proto message's short name (unique across our packages). */
export const goShapes: Record<string, GoShape> = {
  // meta/v1
  Condition: { req: 'type status reason message', value: 'lastTransitionTime' },
  LabelSelectorRequirement: { req: 'key operator' },
  ListMeta: { ptr: 'remainingItemCount' },
  ObjectMeta: { value: 'creationTimestamp', ptr: 'deletionGracePeriodSeconds' },
  OwnerReference: { req: 'apiVersion kind name uid', ptr: 'controller blockOwnerDeletion' },
  Status: { value: 'metadata' },

  // core/v1
  AWSElasticBlockStoreVolumeSource: { req: 'volumeID' },
  AppArmorProfile: { req: 'type', ptr: 'localhostProfile' },
  AttachedVolume: { req: 'name devicePath' },
  AzureDiskVolumeSource: { req: 'diskName diskURI', ptr: 'cachingMode fsType readOnly kind' },
  AzureFileVolumeSource: { req: 'secretName shareName' },
  Binding: { value: 'metadata target', req: 'target' },
  CSIVolumeSource: { req: 'driver', ptr: 'readOnly fsType' },
  CinderVolumeSource: { req: 'volumeID' },
  ClientIPConfig: { ptr: 'timeoutSeconds' },
  ClusterTrustBundleProjection: { req: 'path', ptr: 'name signerName optional' },
  ConfigMap: { value: 'metadata', ptr: 'immutable' },
  ConfigMapEnvSource: { inline: 'localObjectReference', ptr: 'optional' },
  ConfigMapKeySelector: { inline: 'localObjectReference', req: 'key', ptr: 'optional' },
  ConfigMapNodeConfigSource: { req: 'namespace name kubeletConfigKey' },
  ConfigMapProjection: { inline: 'localObjectReference', ptr: 'optional' },
  ConfigMapVolumeSource: { inline: 'localObjectReference', ptr: 'defaultMode optional' },
  Container: { req: 'name', value: 'resources', ptr: 'restartPolicy' },
  ContainerPort: { req: 'containerPort' },
  ContainerResizePolicy: { req: 'resourceName restartPolicy' },
  ContainerStateRunning: { value: 'startedAt' },
  ContainerStateTerminated: { req: 'exitCode', value: 'startedAt finishedAt' },
  ContainerStatus: { req: 'name ready restartCount image imageID', value: 'state lastState', ptr: 'started' },
  DaemonEndpoint: { req: 'Port' },
  DownwardAPIVolumeFile: { req: 'path', ptr: 'mode' },
  DownwardAPIVolumeSource: { ptr: 'defaultMode' },
  EndpointAddress: { req: 'ip', ptr: 'nodeName' },
  EndpointPort: { req: 'port', ptr: 'appProtocol' },
  Endpoints: { value: 'metadata' },
  EnvVar: { req: 'name' },
  EphemeralContainer: { inline: 'ephemeralContainerCommon' },
  EphemeralContainerCommon: { req: 'name', value: 'resources', ptr: 'restartPolicy' },
  Event: {
    value: 'metadata involvedObject source firstTimestamp lastTimestamp eventTime',
    req: 'metadata involvedObject reportingComponent reportingInstance',
  },
  EventSeries: { value: 'lastObservedTime' },
  FCVolumeSource: { ptr: 'lun' },
  FlexVolumeSource: { req: 'driver' },
  GCEPersistentDiskVolumeSource: { req: 'pdName' },
  GRPCAction: { req: 'port', ptr: 'service' },
  GitRepoVolumeSource: { req: 'repository' },
  GlusterfsVolumeSource: { req: 'endpoints path' },
  HTTPGetAction: { value: 'port' },
  HTTPHeader: { req: 'name value' },
  HostAlias: { req: 'ip' },
  HostIP: { req: 'ip' },
  HostPathVolumeSource: { req: 'path', ptr: 'type' },
  ISCSIVolumeSource: { req: 'targetPortal iqn lun', ptr: 'initiatorName' },
  KeyToPath: { req: 'key path', ptr: 'mode' },
  LimitRange: { value: 'metadata spec' },
  LimitRangeItem: { req: 'type' },
  LimitRangeSpec: { req: 'limits' },
  LinuxContainerUser: { req: 'uid gid' },
  LoadBalancerIngress: { ptr: 'ipMode' },
  NFSVolumeSource: { req: 'server path' },
  Namespace: objectKind,
  NamespaceCondition: { req: 'type status', value: 'lastTransitionTime' },
  Node: objectKind,
  NodeAddress: { req: 'type address' },
  NodeCondition: { req: 'type status', value: 'lastHeartbeatTime lastTransitionTime' },
  NodeDaemonEndpoints: { value: 'kubeletEndpoint' },
  NodeFeatures: { ptr: 'supplementalGroupsPolicy' },
  NodeRuntimeHandlerFeatures: { ptr: 'recursiveReadOnlyMounts userNamespaces' },
  NodeSelectorRequirement: { req: 'key operator' },
  NodeStatus: { value: 'daemonEndpoints nodeInfo' },
  NodeSwapStatus: { ptr: 'capacity' },
  NodeSystemInfo: {
    req: 'machineID systemUUID bootID kernelVersion osImage containerRuntimeVersion kubeletVersion kubeProxyVersion operatingSystem architecture',
  },
  ObjectFieldSelector: { req: 'fieldPath' },
  PersistentVolumeClaimSpec: { value: 'resources', ptr: 'storageClassName volumeMode volumeAttributesClassName' },
  PersistentVolumeClaimTemplate: { value: 'metadata spec' },
  PersistentVolumeClaimVolumeSource: { req: 'claimName' },
  PhotonPersistentDiskVolumeSource: { req: 'pdID' },
  Pod: objectKind,
  PodAffinityTerm: { req: 'topologyKey' },
  PodCondition: { req: 'type status', value: 'lastProbeTime lastTransitionTime' },
  PodDNSConfigOption: { ptr: 'value' },
  PodIP: { req: 'ip' },
  PodOS: { req: 'name' },
  PodReadinessGate: { req: 'conditionType' },
  PodResourceClaim: { req: 'name', ptr: 'resourceClaimName resourceClaimTemplateName' },
  PodResourceClaimStatus: { req: 'name', ptr: 'resourceClaimName' },
  PodSchedulingGate: { req: 'name' },
  PodSecurityContext: {
    ptr: 'runAsUser runAsGroup runAsNonRoot supplementalGroupsPolicy fsGroup fsGroupChangePolicy seLinuxChangePolicy',
  },
  PodSpec: {
    req: 'containers',
    ptr: 'terminationGracePeriodSeconds activeDeadlineSeconds automountServiceAccountToken shareProcessNamespace priority runtimeClassName enableServiceLinks preemptionPolicy setHostnameAsFQDN hostUsers',
  },
  PodTemplateSpec: { value: 'metadata spec' },
  PortStatus: { req: 'port protocol', ptr: 'error' },
  PortworxVolumeSource: { req: 'volumeID' },
  PreferredSchedulingTerm: { req: 'weight', value: 'preference' },
  Probe: { inline: 'handler' },
  ProjectedVolumeSource: { ptr: 'defaultMode' },
  QuobyteVolumeSource: { req: 'registry volume' },
  RBDVolumeSource: { req: 'image' },
  RangeAllocation: { value: 'metadata', req: 'range data' },
  ResourceClaim: { req: 'name' },
  ResourceFieldSelector: { req: 'resource', value: 'divisor' },
  ResourceHealth: { req: 'resourceID' },
  ResourceQuota: objectKind,
  ResourceStatus: { req: 'name' },
  ScaleIOVolumeSource: { req: 'gateway system' },
  ScopedResourceSelectorRequirement: { req: 'scopeName operator' },
  SeccompProfile: { req: 'type', ptr: 'localhostProfile' },
  Secret: { value: 'metadata', ptr: 'immutable' },
  SecretEnvSource: { inline: 'localObjectReference', ptr: 'optional' },
  SecretKeySelector: { inline: 'localObjectReference', req: 'key', ptr: 'optional' },
  SecretProjection: { inline: 'localObjectReference', ptr: 'optional' },
  SecretVolumeSource: { ptr: 'defaultMode optional' },
  SecurityContext: {
    ptr: 'privileged runAsUser runAsGroup runAsNonRoot readOnlyRootFilesystem allowPrivilegeEscalation procMount',
  },
  Service: objectKind,
  ServiceAccount: { value: 'metadata', ptr: 'automountServiceAccountToken' },
  ServiceAccountTokenProjection: { req: 'path', ptr: 'expirationSeconds' },
  ServicePort: { req: 'port', value: 'targetPort', ptr: 'appProtocol' },
  ServiceSpec: {
    ptr: 'ipFamilyPolicy allocateLoadBalancerNodePorts loadBalancerClass internalTrafficPolicy trafficDistribution',
  },
  ServiceStatus: { value: 'loadBalancer' },
  SleepAction: { req: 'seconds' },
  Sysctl: { req: 'name value' },
  TCPSocketAction: { value: 'port' },
  Taint: { req: 'key effect' },
  Toleration: { ptr: 'tolerationSeconds' },
  TopologySpreadConstraint: {
    req: 'maxSkew topologyKey whenUnsatisfiable',
    ptr: 'minDomains nodeAffinityPolicy nodeTaintsPolicy',
  },
  TypedLocalObjectReference: { req: 'kind name', ptr: 'apiGroup' },
  TypedObjectReference: { req: 'kind name', ptr: 'apiGroup namespace' },
  Volume: { req: 'name', inline: 'volumeSource' },
  VolumeDevice: { req: 'name devicePath' },
  VolumeMount: { req: 'name mountPath', ptr: 'recursiveReadOnly mountPropagation' },
  VolumeMountStatus: { req: 'name mountPath', ptr: 'recursiveReadOnly' },
  VsphereVirtualDiskVolumeSource: { req: 'volumePath' },
  WeightedPodAffinityTerm: { req: 'weight', value: 'podAffinityTerm' },
  WindowsSecurityContextOptions: { ptr: 'gmsaCredentialSpecName gmsaCredentialSpec runAsUserName hostProcess' },

  // apps/v1
  Deployment: objectKind,
  DeploymentCondition: { req: 'type status', value: 'lastUpdateTime lastTransitionTime' },
  DeploymentSpec: { value: 'template strategy', req: 'selector template', ptr: 'replicas revisionHistoryLimit progressDeadlineSeconds' },
  DeploymentStatus: { ptr: 'collisionCount' },
  ReplicaSet: objectKind,
  ReplicaSetCondition: { req: 'type status', value: 'lastTransitionTime' },
  ReplicaSetSpec: { value: 'template', req: 'selector', ptr: 'replicas' },
  ReplicaSetStatus: { req: 'replicas' },

  // coordination/v1
  Lease: { value: 'metadata spec' },
  LeaseSpec: { ptr: 'holderIdentity leaseDurationSeconds leaseTransitions strategy preferredHolder' },

  // autoscaling/v1
  Scale: objectKind,
  ScaleStatus: { req: 'replicas' },

  // rbac/v1 (Role.rules has no omitempty; RoleRef is a value with all three fields shown)
  ClusterRole: { value: 'metadata', req: 'rules' },
  ClusterRoleBinding: { value: 'metadata roleRef', req: 'roleRef' },
  PolicyRule: { req: 'verbs' },
  Role: { value: 'metadata', req: 'rules' },
  RoleBinding: { value: 'metadata roleRef', req: 'roleRef' },
  RoleRef: { req: 'apiGroup kind name' },
  Subject: { req: 'kind name' },

  // authentication/v1 (spec without omitempty)
  SelfSubjectReview: { value: 'metadata status' },
  SelfSubjectReviewStatus: { value: 'userInfo' },
  TokenRequest: { value: 'metadata spec status', req: 'spec' },
  TokenRequestSpec: { req: 'audiences', ptr: 'expirationSeconds' },
  TokenRequestStatus: { req: 'token expirationTimestamp', value: 'expirationTimestamp' },
  TokenReview: { value: 'metadata spec status', req: 'spec' },
  TokenReviewStatus: { value: 'user' },

  // authorization/v1 (status.allowed is always shown)
  FieldSelectorRequirement: { req: 'key operator' },
  LocalSubjectAccessReview: { value: 'metadata spec status', req: 'spec' },
  NonResourceRule: { req: 'verbs' },
  ResourceRule: { req: 'verbs' },
  SelfSubjectAccessReview: { value: 'metadata spec status', req: 'spec' },
  SelfSubjectRulesReview: { value: 'metadata spec status', req: 'spec' },
  SubjectAccessReview: { value: 'metadata spec status', req: 'spec' },
  SubjectAccessReviewStatus: { req: 'allowed' },
  SubjectRulesReviewStatus: { req: 'resourceRules nonResourceRules incomplete' },

  // admissionregistration/v1 (Rule and RuleWithOperations are embedded inline; the enum fields are pointers)
  AuditAnnotation: { req: 'key valueExpression' },
  ExpressionWarning: { req: 'fieldRef warning' },
  MatchCondition: { req: 'name expression' },
  MatchResources: { ptr: 'matchPolicy' },
  MutatingWebhook: {
    req: 'name clientConfig sideEffects admissionReviewVersions',
    value: 'clientConfig',
    ptr: 'failurePolicy matchPolicy sideEffects timeoutSeconds reinvocationPolicy',
  },
  MutatingWebhookConfiguration: { value: 'metadata' },
  NamedRuleWithOperations: { inline: 'ruleWithOperations' },
  ParamRef: { ptr: 'parameterNotFoundAction' },
  Rule: { ptr: 'scope' },
  RuleWithOperations: { inline: 'rule' },
  ServiceReference: { req: 'namespace name', ptr: 'path port' },
  ValidatingAdmissionPolicy: objectKind,
  ValidatingAdmissionPolicyBinding: { value: 'metadata spec' },
  ValidatingAdmissionPolicySpec: { ptr: 'failurePolicy' },
  ValidatingWebhook: {
    req: 'name clientConfig sideEffects admissionReviewVersions',
    value: 'clientConfig',
    ptr: 'failurePolicy matchPolicy sideEffects timeoutSeconds',
  },
  ValidatingWebhookConfiguration: { value: 'metadata' },
  Validation: { req: 'expression', ptr: 'reason' },
  Variable: { req: 'name expression' },
  WebhookClientConfig: { ptr: 'url' },

  // storagemigration/v1alpha1 (spec.resource has no omitempty and is a value)
  MigrationCondition: { req: 'type status', value: 'lastUpdateTime' },
  StorageVersionMigration: objectKind,
  StorageVersionMigrationSpec: { value: 'resource', req: 'resource' },
};

export function shapeWords(shape: GoShape | undefined, key: keyof GoShape): Set<string> {
  const words = shape?.[key];
  return new Set(words ? words.split(' ') : []);
}

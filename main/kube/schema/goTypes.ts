// Go's names for kube's named string and map types, as reflect prints them in
// encoding/json type errors ("... of type v1.PullPolicy"). Keyed by
// "<GoStruct>.<jsonField>"; for list fields the name is the element's type.
// Fields not listed are plain string/int32/... (or messages, named by the schema).

const V1 = 'v1.';
const named: Record<string, string> = {};

function add(type: string, fields: string): void {
  for (const f of fields.split(' ')) named[f] = type;
}

add(`${V1}PullPolicy`, 'Container.imagePullPolicy EphemeralContainerCommon.imagePullPolicy ImageVolumeSource.pullPolicy');
add(`${V1}TerminationMessagePolicy`, 'Container.terminationMessagePolicy EphemeralContainerCommon.terminationMessagePolicy');
add(`${V1}ContainerRestartPolicy`, 'Container.restartPolicy EphemeralContainerCommon.restartPolicy');
add(`${V1}Protocol`, 'ContainerPort.protocol ServicePort.protocol EndpointPort.protocol PortStatus.protocol');
add(`${V1}RestartPolicy`, 'PodSpec.restartPolicy');
add(`${V1}DNSPolicy`, 'PodSpec.dnsPolicy');
add(`${V1}PreemptionPolicy`, 'PodSpec.preemptionPolicy');
add(`${V1}PodPhase`, 'PodStatus.phase');
add(`${V1}PodQOSClass`, 'PodStatus.qosClass');
add(`${V1}PodResizeStatus`, 'PodStatus.resize');
add(`${V1}PodConditionType`, 'PodCondition.type');
add(`${V1}NodeConditionType`, 'NodeCondition.type');
add(`${V1}NamespaceConditionType`, 'NamespaceCondition.type');
add(`${V1}ConditionStatus`, 'PodCondition.status NodeCondition.status NamespaceCondition.status DeploymentCondition.status ReplicaSetCondition.status Condition.status');
add(`${V1}NamespacePhase`, 'NamespaceStatus.phase');
add(`${V1}FinalizerName`, 'NamespaceSpec.finalizers');
add(`${V1}NodePhase`, 'NodeStatus.phase');
add(`${V1}NodeAddressType`, 'NodeAddress.type');
add(
  `${V1}ResourceList`,
  'ResourceRequirements.limits ResourceRequirements.requests VolumeResourceRequirements.limits VolumeResourceRequirements.requests PodSpec.overhead NodeStatus.capacity NodeStatus.allocatable ContainerStatus.allocatedResources',
);
add(`${V1}ResourceName`, 'ContainerResizePolicy.resourceName');
add(`${V1}ResourceResizeRestartPolicy`, 'ContainerResizePolicy.restartPolicy');
add(`${V1}ServiceType`, 'ServiceSpec.type');
add(`${V1}ServiceAffinity`, 'ServiceSpec.sessionAffinity');
add(`${V1}ServiceExternalTrafficPolicy`, 'ServiceSpec.externalTrafficPolicy');
add(`${V1}ServiceInternalTrafficPolicy`, 'ServiceSpec.internalTrafficPolicy');
add(`${V1}IPFamily`, 'ServiceSpec.ipFamilies');
add(`${V1}IPFamilyPolicy`, 'ServiceSpec.ipFamilyPolicy');
add(`${V1}LoadBalancerIPMode`, 'LoadBalancerIngress.ipMode');
add(`${V1}SecretType`, 'Secret.type');
add(`${V1}TaintEffect`, 'Taint.effect Toleration.effect');
add(`${V1}TolerationOperator`, 'Toleration.operator');
add(`${V1}Capability`, 'Capabilities.add Capabilities.drop');
add(`${V1}HostPathType`, 'HostPathVolumeSource.type');
add(`${V1}StorageMedium`, 'EmptyDirVolumeSource.medium');
add(`${V1}URIScheme`, 'HTTPGetAction.scheme');
add(`${V1}MountPropagationMode`, 'VolumeMount.mountPropagation');
add(`${V1}RecursiveReadOnlyMode`, 'VolumeMount.recursiveReadOnly VolumeMountStatus.recursiveReadOnly');
add(`${V1}NodeSelectorOperator`, 'NodeSelectorRequirement.operator');
add(`${V1}UnsatisfiableConstraintAction`, 'TopologySpreadConstraint.whenUnsatisfiable');
add(`${V1}NodeInclusionPolicy`, 'TopologySpreadConstraint.nodeAffinityPolicy TopologySpreadConstraint.nodeTaintsPolicy');
add(`${V1}PodFSGroupChangePolicy`, 'PodSecurityContext.fsGroupChangePolicy');
add(`${V1}SupplementalGroupsPolicy`, 'PodSecurityContext.supplementalGroupsPolicy');
add(`${V1}PodSELinuxChangePolicy`, 'PodSecurityContext.seLinuxChangePolicy');
add(`${V1}ProcMountType`, 'SecurityContext.procMount');
add(`${V1}SeccompProfileType`, 'SeccompProfile.type');
add(`${V1}AppArmorProfileType`, 'AppArmorProfile.type');
add(`${V1}OSName`, 'PodOS.name');
add(`${V1}PersistentVolumeAccessMode`, 'PersistentVolumeClaimSpec.accessModes');
add(`${V1}PersistentVolumeMode`, 'PersistentVolumeClaimSpec.volumeMode');
add(`${V1}AzureDataDiskCachingMode`, 'AzureDiskVolumeSource.cachingMode');
add(`${V1}AzureDataDiskKind`, 'AzureDiskVolumeSource.kind');
add('types.UID', 'ObjectMeta.uid OwnerReference.uid ObjectReference.uid StatusDetails.uid');
add(`${V1}ManagedFieldsOperationType`, 'ManagedFieldsEntry.operation');
add(`${V1}LabelSelectorOperator`, 'LabelSelectorRequirement.operator');
add(`${V1}StatusReason`, 'Status.reason');
add(`${V1}CauseType`, 'StatusCause.reason');
add(`${V1}DeploymentStrategyType`, 'DeploymentStrategy.type');
add(`${V1}DeploymentConditionType`, 'DeploymentCondition.type');
add(`${V1}ReplicaSetConditionType`, 'ReplicaSetCondition.type');
add(`${V1}CoordinatedLeaseStrategy`, 'LeaseSpec.strategy');
add(
  `${V1}ResourceList`,
  'LimitRangeItem.max LimitRangeItem.min LimitRangeItem.default LimitRangeItem.defaultRequest LimitRangeItem.maxLimitRequestRatio ResourceQuotaSpec.hard ResourceQuotaStatus.hard ResourceQuotaStatus.used',
);
add(`${V1}LimitType`, 'LimitRangeItem.type');
add(`${V1}ResourceQuotaScope`, 'ResourceQuotaSpec.scopes ScopedResourceSelectorRequirement.scopeName');
add(`${V1}ScopeSelectorOperator`, 'ScopedResourceSelectorRequirement.operator');
add('types.UID', 'BoundObjectReference.uid');
add('selection.Operator', 'FieldSelectorRequirement.operator');
add(`${V1}OperationType`, 'RuleWithOperations.operations');
add(`${V1}ScopeType`, 'Rule.scope');
add(`${V1}FailurePolicyType`, 'MutatingWebhook.failurePolicy ValidatingWebhook.failurePolicy ValidatingAdmissionPolicySpec.failurePolicy');
add(`${V1}MatchPolicyType`, 'MutatingWebhook.matchPolicy ValidatingWebhook.matchPolicy MatchResources.matchPolicy');
add(`${V1}SideEffectClass`, 'MutatingWebhook.sideEffects ValidatingWebhook.sideEffects');
add(`${V1}ReinvocationPolicyType`, 'MutatingWebhook.reinvocationPolicy');
add(`${V1}ParameterNotFoundActionType`, 'ParamRef.parameterNotFoundAction');
add(`${V1}ValidationAction`, 'ValidatingAdmissionPolicyBindingSpec.validationActions');
add(`${V1}StatusReason`, 'Validation.reason');
add('v1alpha1.MigrationConditionType', 'MigrationCondition.type');
add(`${V1}ConditionStatus`, 'MigrationCondition.status');

/** The Go named type of a field (its element type for lists), if it has one. */
export function namedGoType(goStruct: string, jsonField: string): string | undefined {
  return named[`${goStruct}.${jsonField}`];
}

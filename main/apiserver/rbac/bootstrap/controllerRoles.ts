// The system:controller:* cluster roles, one per kube-controller-manager
// controller, each bound to its kube-system service account (kube's
// bootstrappolicy/controller_policy.go, features at their 1.32 defaults, except
// StorageVersionMigrator, which this lab always serves).
// They matter once the controller manager runs with
// --use-service-account-credentials.

import {
  Read, admissionRegistration, apps, authorization, autoscaling, batch, certificates, clusterBinding, discovery, eventsRule, extensions, legacy, policy, rbac, rule, sa, storage,
  type BindingSpec, type RoleSpec,
} from './ruleBuilders';

export const CONTROLLER_ROLE_PREFIX = 'system:controller:';

const roles: [string, RoleSpec['rules']][] = [
  ['attachdetach-controller', [
    rule(['list', 'watch'], legacy, ['persistentvolumes', 'persistentvolumeclaims']),
    rule(Read, legacy, ['nodes']),
    rule(['patch', 'update'], legacy, ['nodes/status']),
    rule(['list', 'watch'], legacy, ['pods']),
    eventsRule(),
    rule(['get', 'create', 'delete', 'list', 'watch'], storage, ['volumeattachments']),
    rule(['get', 'watch', 'list'], storage, ['csidrivers']),
    rule(['get', 'watch', 'list'], storage, ['csinodes']),
  ]],
  ['clusterrole-aggregation-controller', [rule(['escalate', 'get', 'list', 'watch', 'update', 'patch'], rbac, ['clusterroles'])]],
  ['cronjob-controller', [
    rule(['get', 'list', 'watch', 'update'], batch, ['cronjobs']),
    rule(['get', 'list', 'watch', 'create', 'update', 'delete', 'patch'], batch, ['jobs']),
    rule('update', batch, ['cronjobs/status']),
    rule('update', batch, ['cronjobs/finalizers']),
    rule(['list', 'watch', 'delete'], legacy, ['pods']),
    eventsRule(),
  ]],
  ['daemon-set-controller', [
    rule(Read, [extensions, apps], ['daemonsets']),
    rule('update', [extensions, apps], ['daemonsets/status']),
    rule('update', [extensions, apps], ['daemonsets/finalizers']),
    rule(['list', 'watch'], legacy, ['nodes']),
    rule(['list', 'watch', 'create', 'delete', 'patch'], legacy, ['pods']),
    rule('create', legacy, ['pods/binding']),
    rule(['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'], apps, ['controllerrevisions']),
    eventsRule(),
  ]],
  ['deployment-controller', [
    rule(['get', 'list', 'watch', 'update'], [extensions, apps], ['deployments']),
    rule('update', [extensions, apps], ['deployments/status']),
    rule('update', [extensions, apps], ['deployments/finalizers']),
    rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], [apps, extensions], ['replicasets']),
    rule(['get', 'list', 'watch', 'update'], legacy, ['pods']),
    eventsRule(),
  ]],
  ['disruption-controller', [
    rule(Read, [extensions, apps], ['deployments']),
    rule(Read, [apps, extensions], ['replicasets']),
    rule(Read, legacy, ['replicationcontrollers']),
    rule(Read, policy, ['poddisruptionbudgets']),
    rule(Read, apps, ['statefulsets']),
    rule('update', policy, ['poddisruptionbudgets/status']),
    rule(['patch', 'update'], legacy, ['pods/status']),
    rule('get', '*', ['*/scale']),
    eventsRule(),
  ]],
  ['endpoint-controller', [
    rule(Read, legacy, ['services', 'pods']),
    rule(['get', 'list', 'watch', 'create', 'update', 'delete'], legacy, ['endpoints']),
    rule('create', legacy, ['endpoints/restricted']),
    eventsRule(),
  ]],
  ['endpointslice-controller', [
    rule(Read, legacy, ['services', 'pods', 'nodes']),
    rule('update', legacy, ['services/finalizers']),
    rule(['get', 'list', 'watch', 'create', 'update', 'delete'], discovery, ['endpointslices']),
    eventsRule(),
  ]],
  ['endpointslicemirroring-controller', [
    rule(Read, legacy, ['services', 'endpoints']),
    rule('update', legacy, ['services/finalizers']),
    rule('update', legacy, ['endpoints/finalizers']),
    rule(['get', 'list', 'watch', 'create', 'update', 'delete'], discovery, ['endpointslices']),
    eventsRule(),
  ]],
  ['expand-controller', [
    rule(['get', 'list', 'watch', 'update', 'patch'], legacy, ['persistentvolumes']),
    rule(['update', 'patch'], legacy, ['persistentvolumeclaims/status']),
    rule(Read, legacy, ['persistentvolumeclaims']),
    eventsRule(),
    rule('get', legacy, ['services']),
  ]],
  ['ephemeral-volume-controller', [
    rule(Read, legacy, ['pods']),
    rule('update', legacy, ['pods/finalizers']),
    rule(['get', 'list', 'watch', 'create'], legacy, ['persistentvolumeclaims']),
    eventsRule(),
  ]],
  ['generic-garbage-collector', [rule(['get', 'list', 'watch', 'patch', 'update', 'delete'], '*', ['*']), eventsRule()]],
  ['horizontal-pod-autoscaler', [
    rule(Read, autoscaling, ['horizontalpodautoscalers']),
    rule('update', autoscaling, ['horizontalpodautoscalers/status']),
    rule(['get', 'update'], '*', ['*/scale']),
    rule(['list', 'watch'], legacy, ['pods']),
    rule(['list', 'watch'], 'metrics.k8s.io', ['pods']),
    rule(Read, 'custom.metrics.k8s.io', ['*']),
    rule(Read, 'external.metrics.k8s.io', ['*']),
    eventsRule(),
  ]],
  ['job-controller', [
    rule(['get', 'list', 'watch', 'update', 'patch'], batch, ['jobs']),
    rule('update', batch, ['jobs/status']),
    rule('update', batch, ['jobs/finalizers']),
    rule(['list', 'watch', 'create', 'delete', 'patch'], legacy, ['pods']),
    eventsRule(),
  ]],
  ['namespace-controller', [
    rule(['get', 'list', 'watch', 'delete'], legacy, ['namespaces']),
    rule('update', legacy, ['namespaces/finalize', 'namespaces/status']),
    rule(['get', 'list', 'watch', 'delete', 'deletecollection'], '*', ['*']),
  ]],
  ['node-controller', [
    rule(['get', 'list', 'watch', 'update', 'delete', 'patch'], legacy, ['nodes']),
    rule(['patch', 'update'], legacy, ['nodes/status']),
    rule(['patch', 'update'], legacy, ['pods/status']),
    rule(['list', 'watch', 'get', 'delete'], legacy, ['pods']),
    eventsRule(),
  ]],
  ['persistent-volume-binder', [
    rule(['get', 'list', 'watch', 'update', 'create', 'delete'], legacy, ['persistentvolumes']),
    rule('update', legacy, ['persistentvolumes/status']),
    rule(['get', 'list', 'watch', 'update'], legacy, ['persistentvolumeclaims']),
    rule('update', legacy, ['persistentvolumeclaims/status']),
    rule(['list', 'watch', 'get', 'create', 'delete'], legacy, ['pods']),
    rule(Read, storage, ['storageclasses']),
    rule(['list', 'watch'], legacy, ['nodes']),
    eventsRule(),
    rule('watch', legacy, ['events']),
    rule('get', legacy, ['services']),
  ]],
  ['pod-garbage-collector', [rule(['list', 'watch', 'delete'], legacy, ['pods']), rule(Read, legacy, ['nodes']), rule('patch', legacy, ['pods/status'])]],
  ['replicaset-controller', [
    rule(['get', 'list', 'watch', 'update'], [apps, extensions], ['replicasets']),
    rule('update', [apps, extensions], ['replicasets/status']),
    rule('update', [apps, extensions], ['replicasets/finalizers']),
    rule(['list', 'watch', 'patch', 'create', 'delete'], legacy, ['pods']),
    eventsRule(),
  ]],
  ['replication-controller', [
    rule(['get', 'list', 'watch', 'update'], legacy, ['replicationcontrollers']),
    rule('update', legacy, ['replicationcontrollers/status']),
    rule('update', legacy, ['replicationcontrollers/finalizers']),
    rule(['list', 'watch', 'patch', 'create', 'delete'], legacy, ['pods']),
    eventsRule(),
  ]],
  ['resourcequota-controller', [rule(['list', 'watch'], '*', ['*']), rule('update', legacy, ['resourcequotas/status']), eventsRule()]],
  ['route-controller', [rule(['list', 'watch'], legacy, ['nodes']), rule('patch', legacy, ['nodes/status']), eventsRule()]],
  ['service-account-controller', [rule('create', legacy, ['serviceaccounts']), eventsRule()]],
  ['service-controller', [rule(Read, legacy, ['services']), rule(['patch', 'update'], legacy, ['services/status']), rule(['list', 'watch'], legacy, ['nodes']), eventsRule()]],
  ['statefulset-controller', [
    rule(['list', 'watch'], legacy, ['pods']),
    rule(Read, apps, ['statefulsets']),
    rule('update', apps, ['statefulsets/status']),
    rule('update', apps, ['statefulsets/finalizers']),
    rule(['get', 'create', 'delete', 'update', 'patch'], legacy, ['pods']),
    rule(['get', 'create', 'delete', 'update', 'patch', 'list', 'watch'], apps, ['controllerrevisions']),
    rule(['get', 'create', 'list', 'watch'], legacy, ['persistentvolumeclaims']),
    rule(['update', 'delete'], legacy, ['persistentvolumeclaims']),
    rule('update', legacy, ['pods/finalizers']),
    eventsRule(),
  ]],
  ['ttl-controller', [rule(['update', 'patch', 'list', 'watch'], legacy, ['nodes']), eventsRule()]],
  ['certificate-controller', [
    rule(['get', 'list', 'watch', 'delete'], certificates, ['certificatesigningrequests']),
    rule('update', certificates, ['certificatesigningrequests/status', 'certificatesigningrequests/approval']),
    rule('approve', certificates, ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet']),
    rule('sign', certificates, ['signers'], ['kubernetes.io/legacy-unknown', 'kubernetes.io/kube-apiserver-client', 'kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving']),
    rule('create', authorization, ['subjectaccessreviews']),
    eventsRule(),
  ]],
  ['pvc-protection-controller', [rule(['get', 'list', 'watch', 'update'], legacy, ['persistentvolumeclaims']), rule(['list', 'watch', 'get'], legacy, ['pods']), eventsRule()]],
  ['pv-protection-controller', [rule(['get', 'list', 'watch', 'update'], legacy, ['persistentvolumes']), eventsRule()]],
  ['ttl-after-finished-controller', [rule(['get', 'list', 'watch', 'delete'], batch, ['jobs']), eventsRule()]],
  ['root-ca-cert-publisher', [rule(['create', 'update'], legacy, ['configmaps']), eventsRule()]],
  ['validatingadmissionpolicy-status-controller', [
    rule(Read, admissionRegistration, ['validatingadmissionpolicies']),
    rule(['get', 'patch', 'update'], admissionRegistration, ['validatingadmissionpolicies/status']),
    eventsRule(),
  ]],
  ['legacy-service-account-token-cleaner', [rule('get', legacy, ['configmaps'], ['kube-apiserver-legacy-service-account-token-tracking']), rule(['patch', 'delete'], legacy, ['secrets'])]],
  // kube's rules (list for the current RV, patch and create for its server-side apply), plus
  // update: this migrator rewrites each object with a PUT at the resourceVersion it listed.
  ['storage-version-migrator-controller', [
    rule(['create', 'list', 'patch', 'update'], '*', ['*']),
    rule('update', 'storagemigration.k8s.io', ['storageversionmigrations/status']),
  ]],
];

export function controllerRoles(): RoleSpec[] {
  return roles.map(([name, rules]) => ({ name: CONTROLLER_ROLE_PREFIX + name, rules }));
}

/** Each controller role bound to the kube-system service account of the same name. */
export function controllerRoleBindings(): BindingSpec[] {
  return roles.map(([name]) => clusterBinding(CONTROLLER_ROLE_PREFIX + name, sa('kube-system', name)));
}

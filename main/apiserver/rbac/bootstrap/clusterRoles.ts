// The cluster roles and cluster role bindings kube-apiserver 1.32 bootstraps
// (kube's bootstrappolicy/policy.go, features at their 1.32 defaults): the
// user-facing admin/edit/view (aggregated from system:aggregate-to-*), the
// discovery and self-review roles everyone gets, and the roles of the
// system components (nodes, scheduler, controller manager, proxy, DNS).

import type { PolicyRule } from '../policyRule';
import {
  Read, ReadUpdate, ReadWrite, Write, apps, authentication, authorization, autoscaling, batch, certificates, clusterBinding, coordination, discovery,
  eventsRule, extensions, group, legacy, networking, policy, rbac, rule, sa, storage, urls, user, type BindingSpec, type RoleSpec,
} from './ruleBuilders';


/** The rules of system:node — also the Node authorizer's static rules (kube's NodeRules()). */
export function nodeRules(): PolicyRule[] {
  return [
    rule('create', authentication, ['tokenreviews']),
    rule('create', authorization, ['subjectaccessreviews', 'localsubjectaccessreviews']),
    rule(Read, legacy, ['services']),
    rule(['create', 'get', 'list', 'watch'], legacy, ['nodes']),
    rule(['update', 'patch'], legacy, ['nodes/status']),
    rule(['update', 'patch'], legacy, ['nodes']),
    rule(['create', 'update', 'patch'], legacy, ['events']),
    rule(Read, legacy, ['pods']),
    rule(['create', 'delete'], legacy, ['pods']),
    rule(['update', 'patch'], legacy, ['pods/status']),
    rule('create', legacy, ['pods/eviction']),
    rule(['get', 'list', 'watch'], legacy, ['secrets', 'configmaps']),
    rule('get', legacy, ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['create', 'get', 'list', 'watch'], certificates, ['certificatesigningrequests']),
    rule(['get', 'create', 'update', 'patch', 'delete'], coordination, ['leases']),
    rule('get', storage, ['volumeattachments']),
    rule(['get', 'update', 'patch'], legacy, ['persistentvolumeclaims/status']),
    rule('create', legacy, ['serviceaccounts/token']),
    rule(['get', 'watch', 'list'], storage, ['csidrivers']),
    rule(['get', 'create', 'update', 'patch', 'delete'], storage, ['csinodes']),
    rule(['get', 'list', 'watch'], 'node.k8s.io', ['runtimeclasses']),
  ];
}

const aggregateTo = (to: 'admin' | 'edit' | 'view') => ({ [`rbac.authorization.k8s.io/aggregate-to-${to}`]: 'true' });

export function clusterRoles(): RoleSpec[] {
  return [
    { name: 'cluster-admin', rules: [rule('*', '*', ['*']), urls('*', ['*'])] },
    { name: 'system:discovery', rules: [urls('get', ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*'])] },
    { name: 'system:monitoring', rules: [urls('get', ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'])] },
    {
      name: 'system:basic-user',
      rules: [rule('create', authorization, ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']), rule('create', authentication, ['selfsubjectreviews'])],
    },
    { name: 'system:public-info-viewer', rules: [urls('get', ['/livez', '/readyz', '/healthz', '/version', '/version/'])] },
    { name: 'admin', aggregate: [aggregateTo('admin')] },
    { name: 'edit', labels: aggregateTo('admin'), aggregate: [aggregateTo('edit')] },
    { name: 'view', labels: aggregateTo('edit'), aggregate: [aggregateTo('view')] },
    {
      name: 'system:aggregate-to-admin',
      labels: aggregateTo('admin'),
      rules: [rule('create', authorization, ['localsubjectaccessreviews']), rule(ReadWrite, rbac, ['roles', 'rolebindings'])],
    },
    {
      name: 'system:aggregate-to-edit',
      labels: aggregateTo('edit'),
      rules: [
        rule(Read, legacy, ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
        rule('impersonate', legacy, ['serviceaccounts']),
        rule(Write, legacy, ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
        rule('create', legacy, ['pods/eviction']),
        rule(Write, legacy, ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy', 'persistentvolumeclaims', 'configmaps', 'secrets', 'events']),
        rule('create', legacy, ['serviceaccounts/token']),
        rule(Write, apps, ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale']),
        rule(Write, autoscaling, ['horizontalpodautoscalers']),
        rule(Write, batch, ['jobs', 'cronjobs']),
        rule(Write, extensions, ['daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'ingresses', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies']),
        rule(Write, policy, ['poddisruptionbudgets']),
        rule(Write, networking, ['networkpolicies', 'ingresses']),
        rule(Write, coordination, ['leases']),
      ],
    },
    {
      name: 'system:aggregate-to-view',
      labels: aggregateTo('view'),
      rules: [
        rule(Read, legacy, ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
        rule(Read, legacy, ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log']),
        rule(Read, legacy, ['namespaces']),
        rule(Read, discovery, ['endpointslices']),
        rule(Read, apps, ['controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']),
        rule(Read, autoscaling, ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
        rule(Read, batch, ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
        rule(Read, extensions, ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale', 'networkpolicies']),
        rule(Read, policy, ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
        rule(Read, networking, ['networkpolicies', 'ingresses', 'ingresses/status']),
        rule(Read, coordination, ['leases']),
      ],
    },
    { name: 'system:heapster', rules: [rule(Read, legacy, ['events', 'pods', 'nodes', 'namespaces']), rule(Read, extensions, ['deployments'])] },
    { name: 'system:node', rules: nodeRules() },
    { name: 'system:node-problem-detector', rules: [rule('get', legacy, ['nodes']), rule('patch', legacy, ['nodes/status']), eventsRule()] },
    {
      name: 'system:kubelet-api-admin',
      rules: [rule(['get', 'list', 'watch'], legacy, ['nodes']), rule('proxy', legacy, ['nodes']), rule('*', legacy, ['nodes/proxy', 'nodes/metrics', 'nodes/spec', 'nodes/stats', 'nodes/log'])],
    },
    { name: 'system:node-bootstrapper', rules: [rule(['create', 'get', 'list', 'watch'], certificates, ['certificatesigningrequests'])] },
    { name: 'system:auth-delegator', rules: [rule('create', authentication, ['tokenreviews']), rule('create', authorization, ['subjectaccessreviews'])] },
    { name: 'system:kube-aggregator', rules: [rule(Read, legacy, ['services', 'endpoints'])] },
    {
      name: 'system:kube-controller-manager',
      rules: [
        eventsRule(),
        rule('create', coordination, ['leases']),
        rule(['get', 'update'], coordination, ['leases'], ['kube-controller-manager']),
        rule('create', legacy, ['secrets', 'serviceaccounts']),
        rule('delete', legacy, ['secrets']),
        rule('get', legacy, ['namespaces', 'secrets', 'serviceaccounts', 'configmaps']),
        rule('update', legacy, ['secrets', 'serviceaccounts']),
        rule('create', authentication, ['tokenreviews']),
        rule('create', authorization, ['subjectaccessreviews']),
        rule(['list', 'watch'], '*', ['*']),
        rule('create', legacy, ['serviceaccounts/token']),
      ],
    },
    { name: 'system:kube-dns', rules: [rule(['list', 'watch'], legacy, ['endpoints', 'services'])] },
    {
      name: 'system:persistent-volume-provisioner',
      rules: [
        rule(['get', 'list', 'watch', 'create', 'delete'], legacy, ['persistentvolumes']),
        rule(['get', 'list', 'watch', 'update'], legacy, ['persistentvolumeclaims']),
        rule(Read, storage, ['storageclasses']),
        rule('watch', legacy, ['events']),
        eventsRule(),
      ],
    },
    { name: 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', rules: [rule('create', certificates, ['certificatesigningrequests/nodeclient'])] },
    { name: 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', rules: [rule('create', certificates, ['certificatesigningrequests/selfnodeclient'])] },
    { name: 'system:volume-scheduler', rules: [rule(ReadUpdate, legacy, ['persistentvolumes']), rule(Read, storage, ['storageclasses']), rule(ReadUpdate, legacy, ['persistentvolumeclaims'])] },
    { name: 'system:certificates.k8s.io:legacy-unknown-approver', rules: [rule('approve', certificates, ['signers'], ['kubernetes.io/legacy-unknown'])] },
    { name: 'system:certificates.k8s.io:kubelet-serving-approver', rules: [rule('approve', certificates, ['signers'], ['kubernetes.io/kubelet-serving'])] },
    { name: 'system:certificates.k8s.io:kube-apiserver-client-approver', rules: [rule('approve', certificates, ['signers'], ['kubernetes.io/kube-apiserver-client'])] },
    { name: 'system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', rules: [rule('approve', certificates, ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet'])] },
    { name: 'system:service-account-issuer-discovery', rules: [urls('get', ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'])] },
    { name: 'system:node-proxier', rules: [rule(['list', 'watch'], legacy, ['services', 'endpoints']), rule(['get', 'list', 'watch'], legacy, ['nodes']), eventsRule(), rule(['list', 'watch'], discovery, ['endpointslices'])] },
    {
      name: 'system:kube-scheduler',
      rules: [
        eventsRule(),
        rule('create', coordination, ['leases']),
        rule(['get', 'update'], coordination, ['leases'], ['kube-scheduler']),
        rule(Read, legacy, ['nodes']),
        rule(['get', 'list', 'watch', 'delete'], legacy, ['pods']),
        rule('create', legacy, ['pods/binding', 'bindings']),
        rule(['patch', 'update'], legacy, ['pods/status']),
        rule(Read, legacy, ['services', 'replicationcontrollers']),
        rule(Read, [apps, extensions], ['replicasets']),
        rule(Read, apps, ['statefulsets']),
        rule(Read, policy, ['poddisruptionbudgets']),
        rule(Read, legacy, ['persistentvolumeclaims', 'persistentvolumes']),
        rule('create', authentication, ['tokenreviews']),
        rule('create', authorization, ['subjectaccessreviews']),
        rule(Read, storage, ['csinodes']),
        rule(Read, legacy, ['namespaces']),
        rule(Read, storage, ['csidrivers']),
        rule(Read, storage, ['csistoragecapacities']),
      ],
    },
  ];
}

export function clusterRoleBindings(): BindingSpec[] {
  return [
    clusterBinding('cluster-admin', group('system:masters')),
    clusterBinding('system:monitoring', group('system:monitoring')),
    clusterBinding('system:discovery', group('system:authenticated')),
    clusterBinding('system:basic-user', group('system:authenticated')),
    clusterBinding('system:public-info-viewer', group('system:authenticated'), group('system:unauthenticated')),
    clusterBinding('system:node-proxier', user('system:kube-proxy')),
    clusterBinding('system:kube-controller-manager', user('system:kube-controller-manager')),
    clusterBinding('system:kube-dns', sa('kube-system', 'kube-dns')),
    clusterBinding('system:kube-scheduler', user('system:kube-scheduler')),
    clusterBinding('system:volume-scheduler', user('system:kube-scheduler')),
    // Deprecated since the Node authorizer: kept with no subjects, so reconciliation never adds system:nodes back.
    clusterBinding('system:node'),
    clusterBinding('system:service-account-issuer-discovery', group('system:serviceaccounts')),
  ];
}

// The Roles and RoleBindings kube-apiserver bootstraps into kube-system and
// kube-public (kube's bootstrappolicy/namespace_policy.go): leader locking
// for the controller manager and scheduler, the extension-apiserver
// authentication reader, and the bootstrap signer / token cleaner.

import { CONTROLLER_ROLE_PREFIX } from './controllerRoles';
import { eventsRule, legacy, coordination, rule, sa, user, type BindingSpec, type RoleSpec } from './ruleBuilders';

export interface NamespacedRoleSpec extends RoleSpec {
  namespace: string;
}

export interface NamespacedBindingSpec extends BindingSpec {
  namespace: string;
}

export function namespaceRoles(): NamespacedRoleSpec[] {
  return [
    { namespace: 'kube-system', name: 'extension-apiserver-authentication-reader', rules: [rule(['get', 'list', 'watch'], legacy, ['configmaps'], ['extension-apiserver-authentication'])] },
    { namespace: 'kube-system', name: `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`, rules: [rule(['get', 'list', 'watch'], legacy, ['secrets'])] },
    { namespace: 'kube-system', name: `${CONTROLLER_ROLE_PREFIX}cloud-provider`, rules: [rule(['create', 'get', 'list', 'watch'], legacy, ['configmaps'])] },
    { namespace: 'kube-system', name: `${CONTROLLER_ROLE_PREFIX}token-cleaner`, rules: [rule(['get', 'list', 'watch', 'delete'], legacy, ['secrets']), eventsRule()] },
    {
      namespace: 'kube-system',
      name: 'system::leader-locking-kube-controller-manager',
      rules: [rule('watch', legacy, ['configmaps']), rule(['get', 'update'], legacy, ['configmaps'], ['kube-controller-manager']), rule(['get', 'watch', 'list', 'create', 'update'], coordination, ['leases'])],
    },
    { namespace: 'kube-system', name: 'system::leader-locking-kube-scheduler', rules: [rule('watch', legacy, ['configmaps']), rule(['get', 'update'], legacy, ['configmaps'], ['kube-scheduler'])] },
    {
      namespace: 'kube-public',
      name: `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`,
      rules: [rule(['get', 'list', 'watch'], legacy, ['configmaps']), rule('update', legacy, ['configmaps'], ['cluster-info']), eventsRule()],
    },
  ];
}

const binding = (namespace: string, name: string, roleName: string, ...subjects: BindingSpec['subjects']): NamespacedBindingSpec => ({ namespace, name, roleKind: 'Role', roleName, subjects });

export function namespaceRoleBindings(): NamespacedBindingSpec[] {
  return [
    binding('kube-system', 'system::extension-apiserver-authentication-reader', 'extension-apiserver-authentication-reader', user('system:kube-controller-manager'), user('system:kube-scheduler')),
    binding('kube-system', 'system::leader-locking-kube-controller-manager', 'system::leader-locking-kube-controller-manager', user('system:kube-controller-manager'), sa('kube-system', 'kube-controller-manager'), sa('kube-system', 'leader-election-controller')),
    binding('kube-system', 'system::leader-locking-kube-scheduler', 'system::leader-locking-kube-scheduler', user('system:kube-scheduler'), sa('kube-system', 'kube-scheduler')),
    binding('kube-system', `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`, `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`, sa('kube-system', 'bootstrap-signer')),
    binding('kube-system', `${CONTROLLER_ROLE_PREFIX}cloud-provider`, `${CONTROLLER_ROLE_PREFIX}cloud-provider`, sa('kube-system', 'cloud-provider')),
    binding('kube-system', `${CONTROLLER_ROLE_PREFIX}token-cleaner`, `${CONTROLLER_ROLE_PREFIX}token-cleaner`, sa('kube-system', 'token-cleaner')),
    binding('kube-public', `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`, `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`, sa('kube-system', 'bootstrap-signer')),
  ];
}

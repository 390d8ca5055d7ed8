// rbac.authorization.k8s.io/v1: roles and rolebindings (namespaced),
// clusterroles and clusterrolebindings (cluster-scoped). Plain stored
// objects: no status, no generation, no short names (kube has none), keys
// /registry/<resource>/[NS/]NAME. The aggregationRule of a ClusterRole is
// kept as written; filling its rules is the aggregation controller's job.

import { ALL_VERBS, metaFields, simpleStrategy } from '../common/define';
import type { ResourceDef } from '../rest/resourceDef';
import { clusterRoleBindingTable, defaultTable, roleBindingTable } from '../tables/rbac';
import { RBAC_GROUP, defaultBinding, validateAggregationRule, validateBinding, validateRBACName, validateRoleRefUnchanged, validateRules } from './validation';

function rbacDef(kind: string, resource: string, namespaced: boolean): Omit<ResourceDef, 'strategy' | 'table' | 'protoType'> {
  return {
    group: RBAC_GROUP,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    resource,
    singular: kind.toLowerCase(),
    namespaced,
    shortNames: [],
    categories: [],
    verbs: ALL_VERBS,
    storagePrefix: resource,
    subresources: [],
    selectableFields: (obj) => metaFields(obj, namespaced),
  };
}

export const roles: ResourceDef = {
  ...rbacDef('Role', 'roles', true),
  protoType: 'k8s.io.api.rbac.v1.Role',
  strategy: simpleStrategy({ namespaced: true, nameFn: validateRBACName, validate: (obj) => validateRules(obj, true) }),
  table: defaultTable,
};

export const clusterroles: ResourceDef = {
  ...rbacDef('ClusterRole', 'clusterroles', false),
  protoType: 'k8s.io.api.rbac.v1.ClusterRole',
  strategy: simpleStrategy({
    namespaced: false,
    nameFn: validateRBACName,
    validate: (obj) => [...validateRules(obj, false), ...validateAggregationRule(obj)],
  }),
  table: defaultTable,
};

export const rolebindings: ResourceDef = {
  ...rbacDef('RoleBinding', 'rolebindings', true),
  protoType: 'k8s.io.api.rbac.v1.RoleBinding',
  strategy: simpleStrategy({
    namespaced: true,
    nameFn: validateRBACName,
    defaults: defaultBinding,
    validate: (obj) => validateBinding(obj, true),
    validateUpdate: validateRoleRefUnchanged,
  }),
  table: roleBindingTable,
};

export const clusterrolebindings: ResourceDef = {
  ...rbacDef('ClusterRoleBinding', 'clusterrolebindings', false),
  protoType: 'k8s.io.api.rbac.v1.ClusterRoleBinding',
  strategy: simpleStrategy({
    namespaced: false,
    nameFn: validateRBACName,
    defaults: defaultBinding,
    validate: (obj) => validateBinding(obj, false),
    validateUpdate: validateRoleRefUnchanged,
  }),
  table: clusterRoleBindingTable,
};

// The bootstrap policy as API objects: every role and binding labelled
// kubernetes.io/bootstrapping=rbac-defaults and annotated
// rbac.authorization.kubernetes.io/autoupdate=true (kube's addDefaultMetadata),
// subjects written as kube writes them (User/Group with the RBAC apiGroup,
// ServiceAccount with its namespace).

import type { KObject } from '../../../kube/object';
import { RBAC_GROUP } from '../ruleResolver';
import { clusterRoleBindings, clusterRoles } from './clusterRoles';
import { controllerRoleBindings, controllerRoles } from './controllerRoles';
import { namespaceRoleBindings, namespaceRoles } from './namespaceRoles';
import type { BindingSpec, RoleSpec, SubjectSpec } from './ruleBuilders';

export const BOOTSTRAP_LABEL = 'kubernetes.io/bootstrapping';
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
const API_VERSION = `${RBAC_GROUP}/v1`;

function meta(name: string, namespace: string | undefined, labels?: Record<string, string>): KObject['metadata'] {
  return {
    name,
    ...(namespace ? { namespace } : {}),
    labels: { ...(labels ?? {}), [BOOTSTRAP_LABEL]: 'rbac-defaults' },
    annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
  };
}

function roleObject(kind: 'ClusterRole' | 'Role', spec: RoleSpec, namespace?: string): KObject {
  const obj: KObject = { apiVersion: API_VERSION, kind, metadata: meta(spec.name, namespace, spec.labels) };
  if (spec.rules) obj.rules = structuredClone(spec.rules);
  if (spec.aggregate) obj.aggregationRule = { clusterRoleSelectors: spec.aggregate.map((m) => ({ matchLabels: { ...m } })) };
  return obj;
}

export function subjectObject(s: SubjectSpec): Record<string, string> {
  return s.kind === 'ServiceAccount' ? { kind: s.kind, name: s.name, namespace: s.namespace! } : { kind: s.kind, apiGroup: RBAC_GROUP, name: s.name };
}

function bindingObject(kind: 'ClusterRoleBinding' | 'RoleBinding', spec: BindingSpec, namespace?: string): KObject {
  const obj: KObject = { apiVersion: API_VERSION, kind, metadata: meta(spec.name, namespace), roleRef: { apiGroup: RBAC_GROUP, kind: spec.roleKind, name: spec.roleName } };
  if (spec.subjects.length) obj.subjects = spec.subjects.map(subjectObject);
  return obj;
}

export interface BootstrapPolicy {
  clusterRoles: KObject[];
  clusterRoleBindings: KObject[];
  roles: KObject[];
  roleBindings: KObject[];
}

export function bootstrapPolicy(): BootstrapPolicy {
  return {
    clusterRoles: [...clusterRoles(), ...controllerRoles()].map((r) => roleObject('ClusterRole', r)),
    clusterRoleBindings: [...clusterRoleBindings(), ...controllerRoleBindings()].map((b) => bindingObject('ClusterRoleBinding', b)),
    roles: namespaceRoles().map((r) => roleObject('Role', r, r.namespace)),
    roleBindings: namespaceRoleBindings().map((b) => bindingObject('RoleBinding', b, b.namespace)),
  };
}

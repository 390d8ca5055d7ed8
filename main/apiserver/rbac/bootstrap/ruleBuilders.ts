// Small builders for the bootstrap policy data (kube's rbacv1helpers.NewRule /
// NewClusterBinding), so the role tables read like kube's policy.go. Verbs,
// groups and resources are kept in the order written; the stored objects
// carry them in that order, as kube's do.

import type { PolicyRule } from '../policyRule';

export const Read = ['get', 'list', 'watch'];
export const Write = ['create', 'update', 'patch', 'delete', 'deletecollection'];
export const ReadWrite = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
export const ReadUpdate = ['get', 'list', 'watch', 'update', 'patch'];

export const legacy = '';
export const apps = 'apps';
export const authentication = 'authentication.k8s.io';
export const authorization = 'authorization.k8s.io';
export const autoscaling = 'autoscaling';
export const batch = 'batch';
export const certificates = 'certificates.k8s.io';
export const coordination = 'coordination.k8s.io';
export const discovery = 'discovery.k8s.io';
export const extensions = 'extensions';
export const policy = 'policy';
export const rbac = 'rbac.authorization.k8s.io';
export const storage = 'storage.k8s.io';
export const networking = 'networking.k8s.io';
export const events = 'events.k8s.io';
export const admissionRegistration = 'admissionregistration.k8s.io';

const list = (x: string | string[]): string[] => (Array.isArray(x) ? [...x] : [x]);

/** A resource rule: verbs on resources of groups (optionally only the named objects). */
export function rule(verbs: string | string[], groups: string | string[], resources: string[], names?: string[]): PolicyRule {
  const r: PolicyRule = { verbs: list(verbs), apiGroups: list(groups), resources: [...resources] };
  if (names?.length) r.resourceNames = [...names];
  return r;
}

/** A non-resource rule. */
export function urls(verbs: string | string[], paths: string[]): PolicyRule {
  return { verbs: list(verbs), nonResourceURLs: [...paths] };
}

/** kube's eventsRule(): create/update/patch events in the core and events.k8s.io groups. */
export const eventsRule = (): PolicyRule => rule(['create', 'update', 'patch'], [legacy, events], ['events']);

export interface SubjectSpec {
  kind: 'User' | 'Group' | 'ServiceAccount';
  name: string;
  namespace?: string;
}

export const user = (name: string): SubjectSpec => ({ kind: 'User', name });
export const group = (name: string): SubjectSpec => ({ kind: 'Group', name });
export const sa = (namespace: string, name: string): SubjectSpec => ({ kind: 'ServiceAccount', name, namespace });

export interface RoleSpec {
  name: string;
  rules?: PolicyRule[];
  labels?: Record<string, string>;
  /** matchLabels of each clusterRoleSelector (admin/edit/view). */
  aggregate?: Record<string, string>[];
}

export interface BindingSpec {
  name: string;
  roleKind: 'ClusterRole' | 'Role';
  roleName: string;
  subjects: SubjectSpec[];
}

/** NewClusterBinding(role): a ClusterRoleBinding named after its ClusterRole. */
export const clusterBinding = (role: string, ...subjects: SubjectSpec[]): BindingSpec => ({ name: role, roleKind: 'ClusterRole', roleName: role, subjects });

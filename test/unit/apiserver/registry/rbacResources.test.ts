// rbac.authorization.k8s.io/v1 resources: kube's defaults, validation
// messages (pkg/apis/rbac/validation), update rules and printer rows.

import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import { invalid } from '../../../../main/apiserver/api/status';
import { findResource } from '../../../../main/apiserver/registry/index';
import { clusterrolebindings, clusterroles, rolebindings, roles } from '../../../../main/apiserver/registry/rbac/resources';
import type { ResourceDef } from '../../../../main/apiserver/registry/rest/resourceDef';
import { NOW, testContext } from './ctx';

const G = 'rbac.authorization.k8s.io';

function messageFor(def: ResourceDef, obj: KObject): string {
  def.strategy.defaults(obj);
  const errs = def.strategy.validate(obj, testContext());
  return errs.length ? invalid({ group: def.group, kind: def.kind }, obj.metadata.name ?? '', errs).message : '';
}

const role = (rules: unknown[], name = 'r') => ({ metadata: { name, namespace: 'default' }, rules });
const crole = (extra: Record<string, unknown>, name = 'c') => ({ metadata: { name }, ...extra });
const rb = (roleRef: Record<string, unknown>, subjects: unknown[] = [], name = 'b') => ({ metadata: { name, namespace: 'default' }, roleRef, subjects });
const crb = (roleRef: Record<string, unknown>, subjects: unknown[] = [], name = 'b') => ({ metadata: { name }, roleRef, subjects });

describe('registration', () => {
  it.each([
    ['roles', true, 'Role'],
    ['rolebindings', true, 'RoleBinding'],
    ['clusterroles', false, 'ClusterRole'],
    ['clusterrolebindings', false, 'ClusterRoleBinding'],
  ])('%s', (resource, namespaced, kind) => {
    const def = findResource(G, 'v1', resource)!;
    expect(def).toBeDefined();
    expect([def.kind, def.namespaced, def.storagePrefix, def.shortNames, def.protoType]).toEqual([kind, namespaced, resource, [], `k8s.io.api.rbac.v1.${kind}`]);
  });
});

describe('validation messages', () => {
  it.each([
    ['valid role', roles, role([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]), ''],
    ['names may contain colons', clusterroles, crole({ rules: [] }, 'system:controller:x'), ''],
    ['names may not contain a slash or percent', roles, role([], 'a/b%'), `Role.${G} "a/b%" is invalid: [metadata.name: Invalid value: "a/b%": may not contain '/', metadata.name: Invalid value: "a/b%": may not contain '%']`],
    ['name ..', clusterroles, crole({}, '..'), `ClusterRole.${G} ".." is invalid: metadata.name: Invalid value: "..": may not be '..'`],
    [
      'rule without verbs, groups or resources',
      roles,
      role([{}]),
      `Role.${G} "r" is invalid: [rules[0].verbs: Required value: verbs must contain at least one value, rules[0].apiGroups: Required value: resource rules must supply at least one api group, rules[0].resources: Required value: resource rules must supply at least one resource]`,
    ],
    ['non-resource URLs in a namespaced role', roles, role([{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]), `Role.${G} "r" is invalid: rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs`],
    ['non-resource URLs in a cluster role', clusterroles, crole({ rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/api/*'] }] }), ''],
    [
      'both kinds of rule',
      clusterroles,
      crole({ rules: [{ verbs: ['get'], resources: ['pods'], nonResourceURLs: ['/x'] }] }),
      `ClusterRole.${G} "c" is invalid: rules[0].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs`,
    ],
    ['empty aggregation rule', clusterroles, crole({ aggregationRule: {} }), `ClusterRole.${G} "c" is invalid: aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil`],
    ['aggregation rule', clusterroles, crole({ aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-monitoring': 'true' } }] } }), ''],
    ['valid binding, apiGroups defaulted', rolebindings, rb({ kind: 'Role', name: 'r' }, [{ kind: 'User', name: 'alice' }, { kind: 'ServiceAccount', name: 'default' }]), ''],
    ['roleRef kind', rolebindings, rb({ kind: 'Pod', name: 'r' }), `RoleBinding.${G} "b" is invalid: roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"`],
    ['cluster binding to a Role', clusterrolebindings, crb({ kind: 'Role', name: 'r' }), `ClusterRoleBinding.${G} "b" is invalid: roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"`],
    ['roleRef apiGroup', rolebindings, rb({ apiGroup: 'apps', kind: 'Role', name: 'r' }), `RoleBinding.${G} "b" is invalid: roleRef.apiGroup: Unsupported value: "apps": supported values: "${G}"`],
    ['roleRef name', rolebindings, rb({ kind: 'Role' }), `RoleBinding.${G} "b" is invalid: roleRef.name: Required value`],
    ['subject kind', rolebindings, rb({ kind: 'Role', name: 'r' }, [{ kind: 'Robot', name: 'x' }]), `RoleBinding.${G} "b" is invalid: subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"`],
    ['user apiGroup', rolebindings, rb({ kind: 'Role', name: 'r' }, [{ kind: 'User', name: 'u', apiGroup: 'v1' }]), `RoleBinding.${G} "b" is invalid: subjects[0].apiGroup: Unsupported value: "v1": supported values: "${G}"`],
    ['service account apiGroup', rolebindings, rb({ kind: 'Role', name: 'r' }, [{ kind: 'ServiceAccount', name: 'sa', apiGroup: G }]), `RoleBinding.${G} "b" is invalid: subjects[0].apiGroup: Unsupported value: "${G}": supported values: ""`],
    ['service account name', rolebindings, rb({ kind: 'Role', name: 'r' }, [{ kind: 'ServiceAccount', name: 'Bad_Name' }]), `RoleBinding.${G} "b" is invalid: subjects[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`],
    ['cluster binding service account needs a namespace', clusterrolebindings, crb({ kind: 'ClusterRole', name: 'view' }, [{ kind: 'ServiceAccount', name: 'sa' }]), `ClusterRoleBinding.${G} "b" is invalid: subjects[0].namespace: Required value`],
    ['subject without a name', clusterrolebindings, crb({ kind: 'ClusterRole', name: 'view' }, [{ kind: 'Group', apiGroup: G }]), `ClusterRoleBinding.${G} "b" is invalid: subjects[0].name: Required value`],
  ])('%s', (_n, def, obj, want) => expect(messageFor(def, obj as KObject)).toBe(want));

  it('defaults roleRef and subject apiGroups as SetDefaults_* do', () => {
    const b = rb({ kind: 'ClusterRole', name: 'view' }, [{ kind: 'User', name: 'u' }, { kind: 'Group', name: 'g' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'x' }]) as KObject;
    rolebindings.strategy.defaults(b);
    expect(b.roleRef).toEqual({ apiGroup: G, kind: 'ClusterRole', name: 'view' });
    expect((b.subjects as { apiGroup: string }[]).map((s) => s.apiGroup)).toEqual([G, G, undefined]);
  });
});

describe('updates', () => {
  it('roleRef cannot change, subjects can', () => {
    const old = rb({ apiGroup: G, kind: 'Role', name: 'r' }, [{ kind: 'User', name: 'a', apiGroup: G }]) as KObject;
    const moreSubjects = rb({ apiGroup: G, kind: 'Role', name: 'r' }, [{ kind: 'User', name: 'b', apiGroup: G }]) as KObject;
    expect(rolebindings.strategy.validateUpdate(moreSubjects, old, testContext())).toEqual([]);
    const other = rb({ apiGroup: G, kind: 'ClusterRole', name: 'view' }) as KObject;
    const errs = clusterrolebindings.strategy.validateUpdate({ ...other, metadata: { name: 'b' } }, { ...old, metadata: { name: 'b' } }, testContext());
    expect(invalid({ group: G, kind: 'ClusterRoleBinding' }, 'b', errs).message).toBe(
      `ClusterRoleBinding.${G} "b" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"${G}", Kind:"ClusterRole", Name:"view"}: cannot change roleRef`,
    );
  });
});

describe('tables', () => {
  const created = new Date(NOW.getTime() - 3 * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
  it('roles and clusterroles print NAME and CREATED AT', () => {
    expect(roles.table.columns.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Created At', 'date'],
    ]);
    expect(clusterroles.table.cells({ metadata: { name: 'view', creationTimestamp: created } }, NOW)).toEqual(['view', created]);
  });
  it('bindings print ROLE and AGE, subjects in wide columns', () => {
    expect(rolebindings.table.columns.map((c) => `${c.name}:${c.priority}`)).toEqual(['Name:0', 'Role:0', 'Age:0', 'Users:1', 'Groups:1', 'ServiceAccounts:1']);
    const b = rb({ kind: 'ClusterRole', name: 'edit' }, [
      { kind: 'User', name: 'alice' },
      { kind: 'User', name: 'bob' },
      { kind: 'Group', name: 'devs' },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
    ]) as KObject;
    b.metadata.creationTimestamp = created;
    expect(rolebindings.table.cells(b, NOW)).toEqual(['b', 'ClusterRole/edit', '3m', 'alice, bob', 'devs', 'ci/builder']);
    expect(clusterrolebindings.table.columns[3].description).toBe('Users in the clusterRoleBinding');
  });
});

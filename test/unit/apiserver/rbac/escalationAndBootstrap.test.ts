import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import { confirmNoEscalation } from '../../../../main/apiserver/rbac/escalation';
import type { BindingEntry, PolicyLister, RoleEntry } from '../../../../main/apiserver/rbac/ruleResolver';
import { bootstrapPolicy } from '../../../../main/apiserver/rbac/bootstrap/objects';
import { reconcileBinding, reconcileRole } from '../../../../main/apiserver/rbac/bootstrap/reconcile';

const lister = (clusterRoles: RoleEntry[], bindings: BindingEntry[]): PolicyLister => ({
  getRole: () => undefined,
  getClusterRole: (n) => clusterRoles.find((r) => r.name === n),
  roleBindings: (ns) => bindings.filter((b) => b.namespace === ns),
  clusterRoleBindings: () => [],
});

describe('confirmNoEscalation', () => {
  const l = lister(
    [{ namespace: '', name: 'reader', rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }] }],
    [{ namespace: 'default', name: 'jane-reader', roleRef: { kind: 'ClusterRole', name: 'reader', apiGroup: 'rbac.authorization.k8s.io' }, subjects: [{ kind: 'User', name: 'jane' }] }],
  );
  const jane = { username: 'jane', groups: ['system:authenticated'] };
  it('allows rules the user holds in that namespace', () => {
    expect(confirmNoEscalation(l, jane, 'default', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])).toBeUndefined();
  });
  it("refuses others with kube's message (sorted, compacted per resource)", () => {
    expect(confirmNoEscalation(l, jane, 'default', [{ verbs: ['get', 'delete', 'create'], apiGroups: [''], resources: ['pods', 'secrets'] }])).toBe(
      'user "jane" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete" "create"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete" "create"]}',
    );
  });
  it('holds nothing in another namespace', () => {
    expect(confirmNoEscalation(l, jane, 'kube-system', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])).toContain('{APIGroups:[""], Resources:["pods"], Verbs:["get"]}');
  });
});

describe('bootstrap policy', () => {
  const p = bootstrapPolicy();
  it('labels and annotates every object as kube does', () => {
    for (const o of [...p.clusterRoles, ...p.clusterRoleBindings, ...p.roles, ...p.roleBindings]) {
      expect(o.metadata.labels?.['kubernetes.io/bootstrapping']).toBe('rbac-defaults');
      expect(o.metadata.annotations?.['rbac.authorization.kubernetes.io/autoupdate']).toBe('true');
    }
  });
  it('every binding names a bootstrapped role, names are unique', () => {
    const crNames = new Set(p.clusterRoles.map((r) => r.metadata.name));
    expect(crNames.size).toBe(p.clusterRoles.length);
    for (const b of p.clusterRoleBindings) expect(crNames.has((b.roleRef as { name: string }).name)).toBe(true);
    for (const b of p.roleBindings) expect(p.roles.some((r) => r.metadata.namespace === b.metadata.namespace && r.metadata.name === (b.roleRef as { name: string }).name)).toBe(true);
  });
  it('has the roles kube-apiserver 1.32 creates', () => {
    const names = p.clusterRoles.map((r) => r.metadata.name);
    for (const n of ['cluster-admin', 'admin', 'edit', 'view', 'system:aggregate-to-edit', 'system:discovery', 'system:basic-user', 'system:public-info-viewer', 'system:monitoring', 'system:node', 'system:node-proxier', 'system:kube-scheduler', 'system:volume-scheduler', 'system:kube-controller-manager', 'system:kube-dns', 'system:auth-delegator', 'system:heapster', 'system:node-bootstrapper', 'system:controller:deployment-controller', 'system:controller:clusterrole-aggregation-controller'])
      expect(names).toContain(n);
    const edit = p.clusterRoles.find((r) => r.metadata.name === 'edit')!;
    expect(edit.rules).toBeUndefined();
    expect(edit.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } }] });
    expect(p.roles.map((r) => `${r.metadata.namespace}/${r.metadata.name}`)).toContain('kube-system/system::leader-locking-kube-controller-manager');
  });
});

describe('reconcile', () => {
  const expected: KObject = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'r', labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } },
    rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }],
  };
  it('unchanged when the stored role already covers the rules', () => {
    const existing = structuredClone(expected);
    existing.rules = [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }];
    expect(reconcileRole(existing, expected)).toEqual({ op: 'none' });
  });
  it('adds missing rules (broken down) and keeps the user additions and labels', () => {
    const existing = structuredClone(expected);
    existing.metadata.labels = { mine: 'x' };
    existing.rules = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verbs: ['get'], apiGroups: [''], resources: ['widgets'] }];
    const r = reconcileRole(existing, expected);
    expect(r.op).toBe('update');
    const obj = (r as { obj: KObject }).obj;
    expect(obj.rules).toEqual([...(existing.rules as unknown[]), { verbs: ['list'], apiGroups: [''], resources: ['pods'] }]);
    expect(obj.metadata.labels).toEqual({ 'kubernetes.io/bootstrapping': 'rbac-defaults', mine: 'x' });
  });
  it('honours autoupdate=false', () => {
    const existing = structuredClone(expected);
    existing.metadata.annotations = { 'rbac.authorization.kubernetes.io/autoupdate': 'false' };
    existing.rules = [];
    expect(reconcileRole(existing, expected)).toEqual({ op: 'none' });
  });
  it('bindings gain missing subjects; a changed roleRef means recreate', () => {
    const want: KObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'b' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r' }, subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'g' }] };
    const have = { ...structuredClone(want), subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'u' }] };
    const r = reconcileBinding(have, want) as { op: string; obj: KObject };
    expect(r.op).toBe('update');
    expect(r.obj.subjects).toEqual([{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'u' }, { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'g' }]);
    expect(reconcileBinding({ ...structuredClone(want), roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'other' } }, want)).toEqual({ op: 'recreate' });
  });
});

import { describe, expect, it } from 'vitest';
import type { AuthorizationAttributes } from '../../../../main/apiserver/authz/authorizer';
import { rbacAuthorizer, type RbacSource } from '../../../../main/apiserver/rbac/rbacAuthorizer';
import type { BindingEntry, RoleEntry } from '../../../../main/apiserver/rbac/ruleResolver';
import { parseAuthorizationModes } from '../../../../main/apiserver/rbac/modes';

function source(roles: RoleEntry[], clusterRoles: RoleEntry[], bindings: BindingEntry[], clusterBindings: BindingEntry[]): RbacSource {
  return {
    ready: async () => {},
    getRole: (ns, n) => roles.find((r) => r.namespace === ns && r.name === n),
    getClusterRole: (n) => clusterRoles.find((r) => r.name === n),
    roleBindings: (ns) => bindings.filter((b) => b.namespace === ns),
    clusterRoleBindings: () => clusterBindings,
  };
}

const edit: RoleEntry = { namespace: '', name: 'edit', rules: [{ verbs: ['create', 'get'], apiGroups: ['apps'], resources: ['deployments'] }] };
const podReader: RoleEntry = { namespace: 'dev', name: 'pod-reader', rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] };
const discovery: RoleEntry = { namespace: '', name: 'system:discovery', rules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }] };
const src = source(
  [podReader],
  [edit, discovery],
  [
    { namespace: 'default', name: 'jane-edit', roleRef: { kind: 'ClusterRole', name: 'edit', apiGroup: 'rbac.authorization.k8s.io' }, subjects: [{ kind: 'User', name: 'jane' }] },
    { namespace: 'dev', name: 'readers', roleRef: { kind: 'Role', name: 'pod-reader', apiGroup: 'rbac.authorization.k8s.io' }, subjects: [{ kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'builder' }] },
    { namespace: 'dev', name: 'dangling', roleRef: { kind: 'ClusterRole', name: 'gone', apiGroup: 'rbac.authorization.k8s.io' }, subjects: [{ kind: 'User', name: 'bob' }] },
  ],
  [{ namespace: '', name: 'system:discovery', roleRef: { kind: 'ClusterRole', name: 'system:discovery', apiGroup: 'rbac.authorization.k8s.io' }, subjects: [{ kind: 'Group', name: 'system:authenticated' }] }],
);

const attrs = (user: string, groups: string[], o: Partial<AuthorizationAttributes>): AuthorizationAttributes => ({
  user: { username: user, groups },
  verb: 'get',
  isResourceRequest: true,
  path: '',
  namespace: '',
  apiGroup: '',
  apiVersion: 'v1',
  resource: '',
  subresource: '',
  name: '',
  ...o,
});

describe('RBAC authorizer', () => {
  const a = rbacAuthorizer(src);
  const cases: { name: string; at: AuthorizationAttributes; want: { decision: string; reason?: string } }[] = [
    { name: 'rolebinding to clusterrole allows in its namespace', at: attrs('jane', ['system:authenticated'], { verb: 'create', apiGroup: 'apps', resource: 'deployments', namespace: 'default' }), want: { decision: 'allow', reason: 'RBAC: allowed by RoleBinding "jane-edit/default" of ClusterRole "edit" to User "jane"' } },
    { name: 'not in another namespace', at: attrs('jane', ['system:authenticated'], { verb: 'create', apiGroup: 'apps', resource: 'deployments', namespace: 'kube-system' }), want: { decision: 'noOpinion' } },
    { name: 'not cluster-wide', at: attrs('jane', ['system:authenticated'], { verb: 'create', apiGroup: 'apps', resource: 'deployments' }), want: { decision: 'noOpinion' } },
    { name: 'group subject and Role', at: attrs('x', ['devs'], { resource: 'pods', namespace: 'dev' }), want: { decision: 'allow', reason: 'RBAC: allowed by RoleBinding "readers/dev" of Role "pod-reader" to Group "devs"' } },
    { name: 'service account subject defaults to the binding namespace', at: attrs('system:serviceaccount:dev:builder', [], { resource: 'pods', namespace: 'dev' }), want: { decision: 'allow', reason: 'RBAC: allowed by RoleBinding "readers/dev" of Role "pod-reader" to ServiceAccount "builder/dev"' } },
    { name: 'other service account', at: attrs('system:serviceaccount:other:builder', [], { resource: 'pods', namespace: 'dev' }), want: { decision: 'noOpinion' } },
    { name: 'cluster role binding, non-resource URL', at: attrs('x', ['system:authenticated'], { isResourceRequest: false, path: '/api/v1' }), want: { decision: 'allow', reason: 'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"' } },
    { name: 'missing role: no opinion with the resolution error', at: attrs('bob', [], { resource: 'pods', namespace: 'dev' }), want: { decision: 'noOpinion', reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found' } },
  ];
  for (const c of cases) it(c.name, async () => expect(await a.authorize(c.at)).toEqual(c.want));

  it('rulesFor lists resource and non-resource rules with resolution errors', async () => {
    const r = await a.rulesFor({ username: 'bob', groups: ['system:authenticated'] }, 'dev');
    expect(r.resourceRules).toEqual([]);
    expect(r.nonResourceRules).toEqual([{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }]);
    expect(r.error).toBe('clusterrole.rbac.authorization.k8s.io "gone" not found');
  });
});

describe('--authorization-mode parsing', () => {
  const cases: { value: string; want?: string[]; err?: string }[] = [
    { value: 'Node,RBAC', want: ['Node', 'RBAC'] },
    { value: 'AlwaysAllow', want: ['AlwaysAllow'] },
    { value: 'RBAC,Foo', err: 'authorization-mode "Foo" is not a valid mode' },
    { value: 'RBAC,RBAC', err: 'authorization-mode ["RBAC" "RBAC"] has mode specified more than once' },
    { value: '', err: 'at least one authorization-mode must be passed' },
  ];
  for (const c of cases)
    it(c.value || '(empty)', () => {
      if (c.err) expect(() => parseAuthorizationModes(c.value)).toThrow(c.err);
      else expect(parseAuthorizationModes(c.value)).toEqual(c.want);
    });
});

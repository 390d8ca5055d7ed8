import { describe, expect, it } from 'vitest';
import { forbiddenFor, type AuthorizationAttributes } from '../../../../main/apiserver/authz/authorizer';

const base: AuthorizationAttributes = {
  user: { username: 'jane', groups: [] },
  verb: 'list',
  isResourceRequest: true,
  path: '/apis/apps/v1/namespaces/default/deployments',
  namespace: 'default',
  apiGroup: 'apps',
  apiVersion: 'v1',
  resource: 'deployments',
  subresource: '',
  name: '',
};

describe('forbiddenFor (kube responsewriters.ForbiddenStatusError)', () => {
  const cases = [
    { name: 'namespaced list', attrs: base, want: 'deployments.apps is forbidden: User "jane" cannot list resource "deployments" in API group "apps" in the namespace "default"' },
    { name: 'named get with subresource', attrs: { ...base, verb: 'get', name: 'nginx', subresource: 'scale' }, want: 'deployments.apps "nginx" is forbidden: User "jane" cannot get resource "deployments/scale" in API group "apps" in the namespace "default"' },
    { name: 'cluster scope', attrs: { ...base, apiGroup: '', resource: 'nodes', namespace: '' }, want: 'nodes is forbidden: User "jane" cannot list resource "nodes" in API group "" at the cluster scope' },
    { name: 'non-resource', attrs: { ...base, isResourceRequest: false, verb: 'get', path: '/foo', resource: '' }, want: 'forbidden: User "jane" cannot get path "/foo"' },
    { name: 'with reason', attrs: base, reason: 'no RBAC policy matched', want: 'deployments.apps is forbidden: User "jane" cannot list resource "deployments" in API group "apps" in the namespace "default": no RBAC policy matched' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const e = forbiddenFor(c.attrs, c.reason);
      expect(e.status.code).toBe(403);
      expect(e.status.reason).toBe('Forbidden');
      expect(e.status.message).toBe(c.want);
    });
  }
});

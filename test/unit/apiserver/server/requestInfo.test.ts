import { describe, expect, it } from 'vitest';
import { exactNameFromFieldSelector, parseRequestInfo } from '../../../../main/apiserver/server/requestInfo';

describe('parseRequestInfo', () => {
  const cases = [
    { name: 'core list', method: 'GET', url: '/api/v1/namespaces/default/pods', want: { verb: 'list', apiGroup: '', apiVersion: 'v1', namespace: 'default', resource: 'pods', name: '', subresource: '', isResourceRequest: true } },
    { name: 'watch by query', method: 'GET', url: '/api/v1/namespaces/default/pods?watch=true', want: { verb: 'watch', resource: 'pods' } },
    { name: 'watch by 1', method: 'GET', url: '/api/v1/pods?watch=1', want: { verb: 'watch', namespace: '' } },
    { name: 'legacy watch path', method: 'GET', url: '/api/v1/watch/namespaces/default/pods', want: { verb: 'watch', namespace: 'default', resource: 'pods' } },
    { name: 'get item', method: 'GET', url: '/apis/apps/v1/namespaces/ns1/deployments/nginx', want: { verb: 'get', apiGroup: 'apps', name: 'nginx', resource: 'deployments' } },
    { name: 'subresource', method: 'PATCH', url: '/apis/apps/v1/namespaces/ns1/deployments/nginx/scale', want: { verb: 'patch', subresource: 'scale', name: 'nginx' } },
    { name: 'create', method: 'POST', url: '/apis/apps/v1/namespaces/ns1/deployments', want: { verb: 'create', name: '' } },
    { name: 'update', method: 'PUT', url: '/api/v1/namespaces/a/configmaps/c', want: { verb: 'update', name: 'c' } },
    { name: 'delete item', method: 'DELETE', url: '/api/v1/namespaces/a/configmaps/c', want: { verb: 'delete' } },
    { name: 'deletecollection', method: 'DELETE', url: '/api/v1/namespaces/a/configmaps', want: { verb: 'deletecollection' } },
    { name: 'namespace object', method: 'GET', url: '/api/v1/namespaces/kube-system', want: { verb: 'get', resource: 'namespaces', name: 'kube-system', namespace: 'kube-system' } },
    { name: 'namespace status', method: 'PUT', url: '/api/v1/namespaces/x/status', want: { verb: 'update', resource: 'namespaces', name: 'x', subresource: 'status' } },
    { name: 'namespaces list', method: 'GET', url: '/api/v1/namespaces', want: { verb: 'list', resource: 'namespaces', namespace: '' } },
    { name: 'name pinned by field selector', method: 'GET', url: '/api/v1/namespaces/d/pods?fieldSelector=metadata.name%3Dp1&watch=true', want: { verb: 'watch', name: 'p1' } },
    { name: 'non-resource', method: 'GET', url: '/healthz', want: { verb: 'get', isResourceRequest: false, path: '/healthz' } },
    { name: 'group discovery', method: 'GET', url: '/apis/apps/v1', want: { isResourceRequest: false, apiGroup: 'apps', apiVersion: 'v1' } },
    { name: 'root discovery', method: 'GET', url: '/api', want: { isResourceRequest: false, apiPrefix: 'api' } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(parseRequestInfo(c.method, c.url)).toMatchObject(c.want);
    });
  }
});

describe('exactNameFromFieldSelector', () => {
  const cases: [string, string | undefined][] = [
    ['metadata.name=x', 'x'],
    ['metadata.name==x', 'x'],
    ['status.phase=Running,metadata.name=y', 'y'],
    ['metadata.name!=x', undefined],
    ['', undefined],
  ];
  for (const [sel, want] of cases) it(JSON.stringify(sel), () => expect(exactNameFromFieldSelector(sel)).toBe(want));
});

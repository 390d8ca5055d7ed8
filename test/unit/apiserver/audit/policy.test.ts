import { describe, expect, it } from 'vitest';
import { parsePolicy, PolicyChecker, type PolicyAttributes } from '../../../../main/apiserver/audit/policy';

const head = 'apiVersion: audit.k8s.io/v1\nkind: Policy\n';
const attrs = (over: Partial<PolicyAttributes>): PolicyAttributes => ({
  user: { username: 'alice', groups: ['dev', 'system:authenticated'] },
  verb: 'get',
  isResourceRequest: true,
  path: '/api/v1/namespaces/default/pods/p',
  namespace: 'default',
  apiGroup: '',
  resource: 'pods',
  subresource: '',
  name: 'p',
  ...over,
});

describe('audit policy rules (first match wins)', () => {
  const policy = parsePolicy(`${head}omitStages: [RequestReceived]
rules:
- level: None
  users: [system:kube-proxy]
- level: None
  nonResourceURLs: [/healthz*, /version]
- level: RequestResponse
  resources: [{group: "", resources: [pods/log, "*/status"]}]
- level: Request
  verbs: [create]
  resources: [{group: apps, resources: ["deployments/*"]}]
- level: Metadata
  resources: [{group: "", resources: [secrets], resourceNames: [top]}]
  omitStages: [ResponseStarted]
- level: None
  resources: [{group: "", resources: [secrets]}]
- level: Request
  userGroups: [dev]
  namespaces: [dev-ns]
- level: Metadata
`);
  const checker = new PolicyChecker(policy);
  const cases: { name: string; a: Partial<PolicyAttributes>; level: string; omit?: string[] }[] = [
    { name: 'listed user', a: { user: { username: 'system:kube-proxy', groups: [] } }, level: 'None' },
    { name: 'non-resource wildcard', a: { isResourceRequest: false, path: '/healthz/etcd', verb: 'get' }, level: 'None' },
    { name: 'non-resource exact', a: { isResourceRequest: false, path: '/version' }, level: 'None' },
    { name: 'other non-resource falls to catch-all', a: { isResourceRequest: false, path: '/versionx' }, level: 'Metadata' },
    { name: 'subresource by name', a: { subresource: 'log' }, level: 'RequestResponse' },
    { name: '*/status', a: { subresource: 'status' }, level: 'RequestResponse' },
    { name: 'pods without subresource', a: {}, level: 'Metadata' },
    { name: 'deployments/* matches the resource and its subresources', a: { verb: 'create', apiGroup: 'apps', resource: 'deployments', subresource: 'scale' }, level: 'Request' },
    { name: 'deployments/* and the verb', a: { verb: 'create', apiGroup: 'apps', resource: 'deployments', subresource: '' }, level: 'Request' },
    { name: 'verb mismatch', a: { verb: 'update', apiGroup: 'apps', resource: 'deployments' }, level: 'Metadata' },
    { name: 'resourceNames', a: { resource: 'secrets', name: 'top' }, level: 'Metadata', omit: ['RequestReceived', 'ResponseStarted'] },
    { name: 'other secrets: None', a: { resource: 'secrets', name: 'x' }, level: 'None' },
    { name: 'group + namespace', a: { namespace: 'dev-ns', resource: 'configmaps' }, level: 'Request' },
    { name: 'group without namespace match', a: { namespace: 'other', resource: 'configmaps' }, level: 'Metadata' },
    { name: 'no user (failed authentication) skips user rules', a: { user: undefined, namespace: 'dev-ns', resource: 'configmaps' }, level: 'Metadata' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = checker.evaluate(attrs(c.a));
      expect(got.level).toBe(c.level);
      expect(got.omitStages.sort()).toEqual((c.omit ?? ['RequestReceived']).sort());
    });
  }

  it('no rule matches: None', () => {
    const p = new PolicyChecker(parsePolicy(`${head}rules:\n- level: Metadata\n  verbs: [delete]\n`));
    expect(p.evaluate(attrs({})).level).toBe('None');
  });

  it('omitManagedFields: the rule overrides the policy', () => {
    const p = new PolicyChecker(parsePolicy(`${head}omitManagedFields: true\nrules:\n- level: Request\n  verbs: [get]\n  omitManagedFields: false\n- level: Request\n`));
    expect(p.evaluate(attrs({})).omitManagedFields).toBe(false);
    expect(p.evaluate(attrs({ verb: 'list' })).omitManagedFields).toBe(true);
  });
});

describe('audit policy load errors', () => {
  const cases: { name: string; text: string; want: string }[] = [
    { name: 'bad level', text: `${head}rules:\n- level: Everything\n`, want: 'rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"' },
    { name: 'missing level', text: `${head}rules:\n- verbs: [get]\n`, want: 'rules[0].level: Required value' },
    { name: 'zero rules', text: `${head}rules: []\n`, want: 'loaded illegal policy with 0 rules' },
    { name: 'relative URL', text: `${head}rules:\n- level: None\n  nonResourceURLs: [healthz]\n`, want: `rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a '/' character` },
    { name: 'inner wildcard', text: `${head}rules:\n- level: None\n  nonResourceURLs: ["/a*/b"]\n`, want: `rules[0].nonResourceURLs[0]: Invalid value: "/a*/b": non-resource URL wildcards '*' must be the final character of the rule` },
    { name: 'both kinds', text: `${head}rules:\n- level: None\n  nonResourceURLs: [/x]\n  namespaces: [a]\n`, want: 'rules[0].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs' },
    { name: 'bad stage', text: `${head}rules:\n- level: None\n  omitStages: [Sometimes]\n`, want: 'rules[0].omitStages[0]: Invalid value: "Sometimes": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic' },
    { name: 'resourceNames alone', text: `${head}rules:\n- level: None\n  resources: [{group: "", resourceNames: [a]}]\n`, want: 'rules[0].resources.resourceNames: Invalid value: []string{"a"}: using resourceNames requires at least one resource' },
    { name: 'group with version', text: `${head}rules:\n- level: None\n  resources: [{group: rbac.authorization.k8s.io/v1}]\n`, want: 'rules[0].resources.group: Invalid value: "rbac.authorization.k8s.io/v1": a lowercase RFC 1123 subdomain' },
    { name: 'wrong kind', text: 'apiVersion: v1\nkind: ConfigMap\n', want: 'failed decoding: no kind "ConfigMap" is registered for version "v1"' },
  ];
  for (const c of cases) it(c.name, () => expect(() => parsePolicy(c.text)).toThrow(c.want));
});

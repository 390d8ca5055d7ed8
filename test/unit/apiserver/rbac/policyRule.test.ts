import { describe, expect, it } from 'vitest';
import { compactRules, compactString, covers, ruleAllows, type PolicyRule } from '../../../../main/apiserver/rbac/policyRule';

const req = (o: Partial<{ verb: string; apiGroup: string; resource: string; subresource: string; name: string; path: string; isResourceRequest: boolean }>) => ({
  verb: 'get',
  apiGroup: '',
  resource: '',
  subresource: '',
  name: '',
  path: '',
  isResourceRequest: true,
  ...o,
});

describe('ruleAllows (kube RuleAllows)', () => {
  const cases: { name: string; rule: PolicyRule; r: ReturnType<typeof req>; want: boolean }[] = [
    { name: 'exact', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, r: req({ resource: 'pods' }), want: true },
    { name: 'verb mismatch', rule: { verbs: ['list'], apiGroups: [''], resources: ['pods'] }, r: req({ resource: 'pods' }), want: false },
    { name: 'verb *', rule: { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, r: req({ verb: 'delete', resource: 'pods' }), want: true },
    { name: 'group mismatch', rule: { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] }, r: req({ resource: 'pods' }), want: false },
    { name: 'group *', rule: { verbs: ['get'], apiGroups: ['*'], resources: ['deployments'] }, r: req({ apiGroup: 'apps', resource: 'deployments' }), want: true },
    { name: 'subresource needs its own entry', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, r: req({ resource: 'pods', subresource: 'log' }), want: false },
    { name: 'pods/log', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, r: req({ resource: 'pods', subresource: 'log' }), want: true },
    { name: '*/scale', rule: { verbs: ['update'], apiGroups: ['apps'], resources: ['*/scale'] }, r: req({ verb: 'update', apiGroup: 'apps', resource: 'deployments', subresource: 'scale' }), want: true },
    { name: '*/scale does not match status', rule: { verbs: ['update'], apiGroups: ['apps'], resources: ['*/scale'] }, r: req({ verb: 'update', apiGroup: 'apps', resource: 'deployments', subresource: 'status' }), want: false },
    { name: 'resource * matches subresources', rule: { verbs: ['get'], apiGroups: [''], resources: ['*'] }, r: req({ resource: 'pods', subresource: 'log' }), want: true },
    { name: 'resourceNames match', rule: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, r: req({ resource: 'configmaps', name: 'a' }), want: true },
    { name: 'resourceNames other', rule: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, r: req({ resource: 'configmaps', name: 'b' }), want: false },
    { name: 'resourceNames and list (no name)', rule: { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, r: req({ verb: 'list', resource: 'configmaps' }), want: false },
    { name: 'nonResourceURL exact', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, r: req({ isResourceRequest: false, path: '/healthz' }), want: true },
    { name: 'nonResourceURL star suffix', rule: { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, r: req({ isResourceRequest: false, path: '/apis/apps/v1' }), want: true },
    { name: 'nonResourceURL prefix without star', rule: { verbs: ['get'], nonResourceURLs: ['/apis'] }, r: req({ isResourceRequest: false, path: '/apis/apps' }), want: false },
    { name: 'nonResourceURL rule vs resource request', rule: { verbs: ['get'], nonResourceURLs: ['*'] }, r: req({ resource: 'pods' }), want: false },
  ];
  for (const c of cases) it(c.name, () => expect(ruleAllows(c.r, c.rule)).toBe(c.want));
});

describe('covers (escalation check)', () => {
  const cases: { name: string; owner: PolicyRule[]; servant: PolicyRule[]; missing: string[] }[] = [
    { name: 'cluster-admin covers all', owner: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }], servant: [{ verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments', 'deployments/scale'] }, { verbs: ['get'], nonResourceURLs: ['/x'] }], missing: [] },
    { name: 'missing verb', owner: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], servant: [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }], missing: ['{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}'] },
    { name: '*/scale owner covers x/scale', owner: [{ verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] }], servant: [{ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments/scale'] }], missing: [] },
    { name: 'named owner does not cover unnamed', owner: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }], servant: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }], missing: ['{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}'] },
    { name: 'url prefix', owner: [{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }], servant: [{ verbs: ['get'], nonResourceURLs: ['/apis/apps', '/healthz'] }], missing: ['{NonResourceURLs:["/healthz"], Verbs:["get"]}'] },
  ];
  for (const c of cases)
    it(c.name, () => {
      const r = covers(c.owner, c.servant);
      expect(r.covered).toBe(c.missing.length === 0);
      expect(r.missing.map(compactString)).toEqual(c.missing);
    });

  it('compacts missing verbs of one resource into one rule, as the 403 prints it', () => {
    const { missing } = covers([], [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]);
    expect(compactRules(missing).map(compactString)).toEqual(['{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}']);
  });
});

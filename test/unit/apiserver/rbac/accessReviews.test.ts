import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import { StatusError } from '../../../../main/apiserver/api/status';
import type { AuthorizationAttributes } from '../../../../main/apiserver/authz/authorizer';
import { accessReviewResources } from '../../../../main/apiserver/rbac/accessReviews';

const seen: AuthorizationAttributes[] = [];
const defs = accessReviewResources({
  authorize: async (a) => {
    seen.push(a);
    return a.user.username === 'jane' && a.verb === 'get' ? { decision: 'allow', reason: 'RBAC: allowed by test' } : { decision: 'noOpinion' };
  },
  rulesFor: async () => ({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] }], nonResourceRules: [], incomplete: false }),
});
const def = (resource: string) => defs.find((d) => d.resource === resource)!;
const req = (user = 'jane', namespace = '') => ({ user: { username: user, groups: ['system:authenticated'] }, namespace, name: '', dryRun: false, warnings: [] });
const review = (kind: string, spec: Record<string, unknown>, namespace?: string): KObject => ({ apiVersion: 'authorization.k8s.io/v1', kind, metadata: namespace ? { namespace } : {}, spec });

async function error(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return { code: e.status.code!, message: e.status.message! };
    throw e;
  }
  throw new Error('no error');
}

describe('access reviews', () => {
  it('SelfSubjectAccessReview asks about the caller', async () => {
    const out = await def('selfsubjectaccessreviews').virtualCreate!(review('SelfSubjectAccessReview', { resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } }), req());
    expect(out.status).toEqual({ allowed: true, reason: 'RBAC: allowed by test' });
    expect(seen.at(-1)).toMatchObject({ user: { username: 'jane' }, verb: 'get', resource: 'pods', namespace: 'default', isResourceRequest: true });
  });
  it('a non-resource review', async () => {
    const out = await def('selfsubjectaccessreviews').virtualCreate!(review('SelfSubjectAccessReview', { nonResourceAttributes: { verb: 'post', path: '/x' } }), req());
    expect(out.status).toEqual({ allowed: false });
    expect(seen.at(-1)).toMatchObject({ isResourceRequest: false, path: '/x', verb: 'post' });
  });
  it("rejects a spec with neither attribute kind with kube's 422", async () => {
    expect(await error(def('selfsubjectaccessreviews').virtualCreate!(review('SelfSubjectAccessReview', {}), req()))).toEqual({
      code: 422,
      message: 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    });
  });
  it('SubjectAccessReview asks about the spec user and needs one', async () => {
    const out = await def('subjectaccessreviews').virtualCreate!(review('SubjectAccessReview', { user: 'jane', resourceAttributes: { verb: 'get', resource: 'pods' } }), req('admin'));
    expect(out.status).toEqual({ allowed: true, reason: 'RBAC: allowed by test' });
    expect((await error(def('subjectaccessreviews').virtualCreate!(review('SubjectAccessReview', { resourceAttributes: { verb: 'get' } }), req()))).message).toContain('spec.user: Invalid value: "": at least one of user or group must be specified');
  });
  it('LocalSubjectAccessReview: the attributes namespace must be the request namespace', async () => {
    const bad = await error(def('localsubjectaccessreviews').virtualCreate!(review('LocalSubjectAccessReview', { user: 'jane', resourceAttributes: { verb: 'get', namespace: 'other' } }), req('admin', 'dev')));
    expect(bad).toEqual({ code: 422, message: 'LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace' });
    const ok = await def('localsubjectaccessreviews').virtualCreate!(review('LocalSubjectAccessReview', { user: 'jane', resourceAttributes: { verb: 'get', namespace: 'dev' } }), req('admin', 'dev'));
    expect(ok.metadata.namespace).toBe('dev');
  });
  it('SelfSubjectRulesReview needs a namespace and lists the rules', async () => {
    expect(await error(def('selfsubjectrulesreviews').virtualCreate!(review('SelfSubjectRulesReview', {}), req()))).toEqual({ code: 400, message: 'no namespace on request' });
    const out = await def('selfsubjectrulesreviews').virtualCreate!(review('SelfSubjectRulesReview', { namespace: 'default' }), req());
    expect(out.status).toEqual({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], nonResourceRules: [], incomplete: false });
  });
});

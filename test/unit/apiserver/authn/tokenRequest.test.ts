import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import { notFound, StatusError } from '../../../../main/apiserver/api/status';
import { createTokenRequest, withTokenSubresource, type TokenRequestOptions } from '../../../../main/apiserver/registry/core/serviceAccountToken';
import { parseSigningKeyPem } from '../../../../main/apiserver/authn/serviceAccountKeys';
import { jwtTokenGenerator } from '../../../../main/apiserver/authn/tokenGenerator';
import type { ObjectGetter } from '../../../../main/apiserver/authn/serviceAccountAuthenticator';
import type { ComputedRequest, ResourceDef } from '../../../../main/apiserver/registry/rest/resourceDef';
import { serviceaccounts } from '../../../../main/apiserver/registry/core/config';

const ISSUER = 'https://kubernetes.default.svc';
const NOW = new Date('2026-11-30T22:00:00.500Z');
const key = parseSigningKeyPem(String(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' })));
const objects = new Map<string, KObject>([
  ['pods/default/web', { metadata: { name: 'web', namespace: 'default', uid: 'pod-uid' }, spec: { serviceAccountName: 'builder', nodeName: 'n1' } }],
  ['pods/default/other', { metadata: { name: 'other', namespace: 'default', uid: 'o' }, spec: { serviceAccountName: 'default' } }],
  ['nodes//n1', { metadata: { name: 'n1', uid: 'node-uid' } }],
  ['secrets/default/s', { metadata: { name: 's', namespace: 'default', uid: 'secret-uid' } }],
]);
const getter: ObjectGetter = {
  async get(resource, ns, name) {
    const o = objects.get(`${resource}/${ns}/${name}`);
    if (!o) throw notFound({ group: '', resource }, name);
    return o;
  },
};
const opts = (o: Partial<TokenRequestOptions> = {}): TokenRequestOptions => ({
  generator: jwtTokenGenerator(ISSUER, key),
  apiAudiences: [ISSUER],
  getter,
  maxExpirationSeconds: 0,
  extendExpiration: true,
  now: () => NOW,
  ...o,
});
const sa: KObject = { metadata: { name: 'builder', namespace: 'default', uid: 'sa-uid' } };
const req = (): ComputedRequest => ({ user: { username: 'admin', groups: [] }, namespace: 'default', name: 'builder', dryRun: false, warnings: [] });
const claims = (tr: KObject) => JSON.parse(Buffer.from(String((tr.status as { token: string }).token).split('.')[1]!, 'base64url').toString());

async function statusOf(p: Promise<unknown>): Promise<{ code: number; message?: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  return (err as StatusError).status;
}

describe('TokenRequest', () => {
  it('defaults: one hour, the API audiences, name and namespace from the service account', async () => {
    const out = await createTokenRequest(opts())(sa, { metadata: {} }, req());
    expect(out.metadata).toEqual({ name: 'builder', namespace: 'default', creationTimestamp: '2026-11-30T22:00:00Z' });
    expect(out.spec).toEqual({ audiences: [ISSUER], expirationSeconds: 3600 });
    expect((out.status as { expirationTimestamp: string }).expirationTimestamp).toBe('2026-11-30T23:00:00Z');
    const c = claims(out);
    expect(c).toMatchObject({ iss: ISSUER, aud: [ISSUER], sub: 'system:serviceaccount:default:builder', 'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'builder', uid: 'sa-uid' } } });
    expect(c.exp - c.iat).toBe(3600);
  });

  it('records the issued credential id as an audit annotation', async () => {
    const r = { ...req(), auditAnnotations: {} as Record<string, string> };
    const out = await createTokenRequest(opts())(sa, { metadata: {} }, r);
    expect(r.auditAnnotations).toEqual({ 'authentication.kubernetes.io/issued-credential-id': `JTI=${claims(out).jti}` });
  });

  const errors: { name: string; body: KObject; o?: Partial<TokenRequestOptions>; code: number; message: string }[] = [
    { name: 'too short', body: { metadata: {}, spec: { expirationSeconds: 599 } }, code: 422, message: 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes' },
    { name: 'too long', body: { metadata: {}, spec: { expirationSeconds: 2 ** 32 + 1 } }, code: 422, message: 'may not specify a duration larger than 2^32 seconds' },
    { name: 'other name', body: { metadata: { name: 'x' } }, code: 422, message: 'TokenRequest.authentication.k8s.io "builder" is invalid: metadata.name: Invalid value: "x": must match the service account name if specified' },
    { name: 'missing pod', body: { metadata: {}, spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'nope' } } }, code: 404, message: 'pods "nope" not found' },
    {
      name: 'pod of another service account',
      body: { metadata: {}, spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'other' } } },
      code: 400,
      message: 'cannot bind token for serviceaccount "builder" to pod running with different serviceaccount name.',
    },
    {
      name: 'uid mismatch',
      body: { metadata: {}, spec: { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's', uid: 'old' } } },
      code: 409,
      message: 'Operation cannot be fulfilled on Secret "s": the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated',
    },
    { name: 'unsupported kind', body: { metadata: {}, spec: { boundObjectRef: { kind: 'Deployment', apiVersion: 'apps/v1', name: 'd' } } }, code: 400, message: 'cannot bind token for serviceaccount "builder" to object of type apps/v1, Kind=Deployment.' },
  ];
  for (const e of errors) {
    it(`refuses: ${e.name}`, async () => {
      const s = await statusOf(createTokenRequest(opts(e.o))(sa, e.body, req()));
      expect(s.code).toBe(e.code);
      expect(s.message).toContain(e.message);
    });
  }

  it('pod-bound: pod and node claims', async () => {
    const out = await createTokenRequest(opts())(sa, { metadata: {}, spec: { audiences: ['x'], boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web', uid: 'pod-uid' } } }, req());
    expect(claims(out)['kubernetes.io']).toEqual({ namespace: 'default', node: { name: 'n1', uid: 'node-uid' }, pod: { name: 'web', uid: 'pod-uid' }, serviceaccount: { name: 'builder', uid: 'sa-uid' } });
    expect(claims(out).aud).toEqual(['x']);
  });

  it('max expiration shortens with a warning', async () => {
    const r = req();
    const out = await createTokenRequest(opts({ maxExpirationSeconds: 7200 }))(sa, { metadata: {}, spec: { expirationSeconds: 86400 } }, r);
    expect((out.spec as { expirationSeconds: number }).expirationSeconds).toBe(7200);
    expect(r.warnings).toEqual(['requested expiration of 86400 seconds shortened to 7200 seconds']);
  });

  it('pod-bound 3607 s for the API audience lives a year and warns after the hour', async () => {
    const body = { metadata: {}, spec: { expirationSeconds: 3607, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web' } } };
    const c = claims(await createTokenRequest(opts())(sa, body, req()));
    expect(c.exp - c.iat).toBe(365 * 24 * 3600);
    expect(c['kubernetes.io'].warnafter - c.iat).toBe(3607);
    const plain = claims(await createTokenRequest(opts({ extendExpiration: false }))(sa, body, req()));
    expect(plain.exp - plain.iat).toBe(3607);
  });

  it('decorates only serviceaccounts with the token subresource', () => {
    const decorate = withTokenSubresource(opts());
    const d = decorate(serviceaccounts);
    expect(d.subresources.find((s) => s.name === 'token')).toEqual({ name: 'token', kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }, verbs: ['create'] });
    expect(typeof d.subresourceCreate?.token).toBe('function');
    const other = { ...serviceaccounts, resource: 'secrets' } as ResourceDef;
    expect(decorate(other)).toBe(other);
  });
});

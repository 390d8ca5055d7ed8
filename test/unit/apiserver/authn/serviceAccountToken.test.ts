import { createHash, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import { notFound } from '../../../../main/apiserver/api/status';
import { keyId, parsePublicKeysPem, parseSigningKeyPem, verifyingKeys } from '../../../../main/apiserver/authn/serviceAccountKeys';
import { makeClaims, type ClaimsInput, type TokenClaims } from '../../../../main/apiserver/authn/serviceAccountClaims';
import { serviceAccountAuthenticator, type ObjectGetter } from '../../../../main/apiserver/authn/serviceAccountAuthenticator';
import { jwtTokenGenerator } from '../../../../main/apiserver/authn/tokenGenerator';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const otherRsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = (k: { export(o: object): string | Buffer }, type: string) => String(k.export({ type, format: 'pem' }));
const rsaSigning = parseSigningKeyPem(pem(rsa.privateKey, 'pkcs1'));
const ecSigning = parseSigningKeyPem(pem(ec.privateKey, 'sec1'));
const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const NOW = new Date('2026-11-30T22:00:00Z');

const objects = new Map<string, KObject>([
  ['serviceaccounts/default/builder', { metadata: { name: 'builder', namespace: 'default', uid: 'sa-uid' } }],
  ['pods/default/web', { metadata: { name: 'web', namespace: 'default', uid: 'pod-uid' } }],
  ['pods/default/going', { metadata: { name: 'going', namespace: 'default', uid: 'going-uid', deletionTimestamp: '2026-11-30T21:50:00Z' } }],
  ['secrets/default/s', { metadata: { name: 's', namespace: 'default', uid: 'secret-uid' } }],
]);
const getter: ObjectGetter = {
  async get(resource, ns, name) {
    const o = objects.get(`${resource}/${ns}/${name}`);
    if (!o) throw notFound({ group: '', resource }, name);
    return o;
  },
};

const base: ClaimsInput = {
  issuer: ISSUER,
  serviceAccount: { namespace: 'default', name: 'builder', uid: 'sa-uid' },
  expirationSeconds: 3600,
  warnAfterSeconds: 0,
  audiences: [ISSUER],
  now: NOW,
  jti: 'j-1',
};

describe('service account keys', () => {
  it('kid is base64url(sha256(PKIX DER)) of the public key', () => {
    const der = rsa.publicKey.export({ type: 'spki', format: 'der' });
    expect(keyId(rsa.publicKey)).toBe(createHash('sha256').update(der).digest('base64url'));
    expect(rsaSigning.kid).toBe(keyId(rsa.publicKey));
    expect(rsaSigning.kid).not.toMatch(/[=+/]/);
  });
  it('a PEM file with a public key, a private key, a certificate-less EC PARAMETERS block', () => {
    const text = [pem(rsa.publicKey, 'spki'), '-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n', pem(ec.privateKey, 'pkcs8')].join('');
    const keys = verifyingKeys(parsePublicKeysPem(text));
    expect(keys.map((k) => k.alg)).toEqual(['RS256', 'ES256']);
    expect(keys[1]!.kid).toBe(keyId(ec.publicKey));
  });
  it('no key at all', () => {
    expect(() => parsePublicKeysPem('hello')).toThrow('data does not contain any valid RSA or ECDSA public keys');
  });
});

describe('service account token validation', () => {
  const auth = (o: { legacy?: boolean; apiAudiences?: string[]; keys?: ReturnType<typeof verifyingKeys> } = {}) =>
    serviceAccountAuthenticator({
      issuers: [ISSUER, 'https://old.example'],
      keys: o.keys ?? verifyingKeys([rsa.publicKey, ec.publicKey]),
      apiAudiences: o.apiAudiences ?? [ISSUER],
      getter,
      now: () => NOW,
      legacy: o.legacy,
    });
  const sign = (claims: TokenClaims, key = rsaSigning) => jwtTokenGenerator(ISSUER, key).generate(claims);
  const at = (secondsFromNow: number) => new Date(NOW.getTime() + secondsFromNow * 1000);

  const cases: { name: string; claims: TokenClaims; key?: typeof rsaSigning; target?: string[]; want?: { username: string; extra?: Record<string, string[]> }; error?: string; notOurs?: boolean }[] = [
    { name: 'valid RS256', claims: makeClaims(base), want: { username: 'system:serviceaccount:default:builder', extra: { 'authentication.kubernetes.io/credential-id': ['JTI=j-1'] } } },
    { name: 'valid ES256', claims: makeClaims(base), key: ecSigning, want: { username: 'system:serviceaccount:default:builder' } },
    { name: 'second issuer accepted', claims: { ...makeClaims(base), iss: 'https://old.example' }, want: { username: 'system:serviceaccount:default:builder' } },
    {
      name: 'pod-bound: pod extras',
      claims: makeClaims({ ...base, pod: { name: 'web', uid: 'pod-uid' }, node: { name: 'n1', uid: 'node-uid' } }),
      want: {
        username: 'system:serviceaccount:default:builder',
        extra: {
          'authentication.kubernetes.io/pod-name': ['web'],
          'authentication.kubernetes.io/pod-uid': ['pod-uid'],
          'authentication.kubernetes.io/credential-id': ['JTI=j-1'],
          'authentication.kubernetes.io/node-name': ['n1'],
          'authentication.kubernetes.io/node-uid': ['node-uid'],
        },
      },
    },
    { name: 'expired (beyond the minute of leeway)', claims: makeClaims({ ...base, now: at(-3700) }), error: 'service account token has expired' },
    { name: 'expired within leeway still valid', claims: makeClaims({ ...base, now: at(-3630) }), want: { username: 'system:serviceaccount:default:builder' } },
    { name: 'not valid yet', claims: makeClaims({ ...base, now: at(120) }), error: 'service account token is not valid yet' },
    { name: 'issued in the future', claims: { ...makeClaims(base), iat: Math.floor(NOW.getTime() / 1000) + 600 }, error: 'service account token is issued in the future' },
    { name: 'wrong issuer: not our token', claims: { ...makeClaims(base), iss: 'https://evil.example' }, notOurs: true },
    { name: 'wrong audience', claims: makeClaims({ ...base, audiences: ['vault'] }), error: 'token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]' },
    { name: 'requested audience', claims: makeClaims({ ...base, audiences: ['vault'] }), target: ['vault'], want: { username: 'system:serviceaccount:default:builder' } },
    { name: 'signed by an unknown key', claims: makeClaims(base), key: parseSigningKeyPem(pem(otherRsa.privateKey, 'pkcs8')), error: 'go-jose/go-jose: error in cryptographic primitive' },
    { name: 'deleted service account', claims: makeClaims({ ...base, serviceAccount: { namespace: 'default', name: 'gone', uid: 'x' } }), error: 'serviceaccounts "gone" not found' },
    { name: 'recreated service account (uid)', claims: makeClaims({ ...base, serviceAccount: { namespace: 'default', name: 'builder', uid: 'old-uid' } }), error: 'service account UID (sa-uid) does not match claim (old-uid)' },
    { name: 'bound pod deleted', claims: makeClaims({ ...base, pod: { name: 'nope', uid: 'u' } }), error: 'service account token has been invalidated' },
    { name: 'bound pod recreated', claims: makeClaims({ ...base, pod: { name: 'web', uid: 'old' } }), error: 'pod UID (pod-uid) does not match service account pod ref claim (old)' },
    { name: 'bound pod being deleted for long', claims: makeClaims({ ...base, pod: { name: 'going', uid: 'going-uid' } }), error: 'service account token has been invalidated' },
    { name: 'bound secret', claims: makeClaims({ ...base, secret: { name: 's', uid: 'secret-uid' } }), want: { username: 'system:serviceaccount:default:builder' } },
    { name: 'bound secret recreated', claims: makeClaims({ ...base, secret: { name: 's', uid: 'x' } }), error: 'secret UID (secret-uid) does not match service account secret ref claim (x)' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const token = await sign(c.claims, c.key);
      const run = auth().authenticateToken(token, c.target);
      if (c.error) return expect(run).rejects.toThrow(c.error);
      const r = await run;
      if (c.notOurs) return expect(r).toBeUndefined();
      expect(r?.user.username).toBe(c.want!.username);
      expect(r?.user.uid).toBe('sa-uid');
      expect(r?.user.groups).toEqual(['system:serviceaccounts', 'system:serviceaccounts:default']);
      if (c.want!.extra) expect(r?.user.extra).toEqual(c.want!.extra);
    });
  }

  it('the token header carries alg and kid only', async () => {
    const token = await sign(makeClaims(base));
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString());
    expect(header).toEqual({ alg: 'RS256', kid: rsaSigning.kid });
  });

  it('not a JWT: not ours', async () => {
    expect(await auth().authenticateToken('abc', undefined)).toBeUndefined();
  });

  it('legacy secret token: valid while the secret holds it', async () => {
    const legacyClaims: TokenClaims = {
      iss: 'kubernetes/serviceaccount',
      sub: 'system:serviceaccount:default:builder',
      'kubernetes.io/serviceaccount/namespace': 'default',
      'kubernetes.io/serviceaccount/secret.name': 'legacy',
      'kubernetes.io/serviceaccount/service-account.name': 'builder',
      'kubernetes.io/serviceaccount/service-account.uid': 'sa-uid',
    };
    const token = await sign(legacyClaims);
    objects.set('secrets/default/legacy', { metadata: { name: 'legacy', namespace: 'default', uid: 'l' }, data: { token: Buffer.from(token).toString('base64') } });
    expect((await auth({ legacy: true }).authenticateToken(token, undefined))?.user.username).toBe('system:serviceaccount:default:builder');
    expect(await auth({ legacy: false }).authenticateToken(token, undefined)).toBeUndefined();
    objects.set('secrets/default/legacy', { metadata: { name: 'legacy', namespace: 'default', uid: 'l' }, data: { token: 'b3RoZXI=' } });
    await expect(auth({ legacy: true }).authenticateToken(token, undefined)).rejects.toThrow("token does not match server's copy");
  });
});

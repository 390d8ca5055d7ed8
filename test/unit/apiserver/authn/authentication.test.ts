import { describe, expect, it } from 'vitest';
import { StatusError } from '../../../../main/apiserver/api/status';
import { anonymousAuthenticator } from '../../../../main/apiserver/authn/anonymous';
import { selfSubjectReviewDef, tokenReviewDef } from '../../../../main/apiserver/registry/authentication/reviews';
import { bearerAuthenticator, unrecognisedBearerToken, type TokenAuthenticator } from '../../../../main/apiserver/authn/tokenAuthenticator';
import { parseTokenFile, tokenFileAuthenticator } from '../../../../main/apiserver/authn/tokenFile';
import { goDurationMs } from '../../../../main/apiserver/options/goDurationFlag';
import { x509Authenticator, type Authenticator } from '../../../../main/apiserver/authn/authenticator';
import type { RequestContext } from '../../../../main/apiserver/server/context';
import { withAuthentication } from '../../../../main/apiserver/server/filters/withAuthentication';
import { TraceRecorder } from '../../../../main/apiserver/server/traceRecorder';
import type { ComputedRequest } from '../../../../main/apiserver/registry/rest/resourceDef';

const API = 'https://kubernetes.default.svc';
const file = tokenFileAuthenticator(parseTokenFile('/t.csv', 'good,jane,u1,devs\n'));
const refusing: TokenAuthenticator = { name: 'serviceaccount', authenticateToken: (t) => (t.startsWith('ey') ? Promise.reject(new Error('service account token has expired')) : undefined) };

function chain(anonymous: boolean): Authenticator[] {
  const list = [x509Authenticator(), bearerAuthenticator(file, [API]), bearerAuthenticator(refusing, [API]), unrecognisedBearerToken()];
  return anonymous ? [...list, anonymousAuthenticator()] : list;
}

async function run(authenticators: Authenticator[], authorization?: string) {
  const ctx = { req: { headers: authorization ? { authorization } : {}, socket: {} }, trace: new TraceRecorder('GET', '/api') } as unknown as RequestContext;
  let reached = false;
  let code: number | undefined;
  try {
    await withAuthentication(authenticators).run(ctx, async () => {
      reached = true;
    });
  } catch (err) {
    code = (err as StatusError).status.code;
  }
  return { reached, code, user: ctx.user, stage: ctx.trace.trace.stages[0]! };
}

describe('withAuthentication: the union, fallbacks and the trace', () => {
  const cases: { name: string; anonymous: boolean; auth?: string; want: { code?: number; username?: string; groups?: string[]; reason: string } }[] = [
    { name: 'static token', anonymous: false, auth: 'Bearer good', want: { username: 'jane', groups: ['devs', 'system:authenticated'], reason: 'token: user jane' } },
    { name: 'no credentials, anonymous off', anonymous: false, want: { code: 401, reason: 'no credentials' } },
    { name: 'no credentials, anonymous on', anonymous: true, want: { username: 'system:anonymous', groups: ['system:unauthenticated'], reason: 'anonymous: user system:anonymous' } },
    { name: 'unknown token never falls to anonymous', anonymous: true, auth: 'Bearer what', want: { code: 401, reason: 'token: invalid bearer token' } },
    { name: 'a refused token never falls to anonymous', anonymous: true, auth: 'Bearer eyJ', want: { code: 401, reason: 'serviceaccount: service account token has expired' } },
    { name: 'basic auth is no credential of ours', anonymous: true, auth: 'Basic Zm9vOmJhcg==', want: { username: 'system:anonymous', groups: ['system:unauthenticated'], reason: 'anonymous: user system:anonymous' } },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const r = await run(chain(c.anonymous), c.auth);
      expect(r.code).toBe(c.want.code);
      expect(r.reached).toBe(c.want.code === undefined);
      expect(r.stage.reason).toBe(c.want.reason);
      expect(r.stage.verdict).toBe(c.want.code ? 'deny' : 'allow');
      if (c.want.username) expect(r.user).toMatchObject({ username: c.want.username, groups: c.want.groups });
    });
  }
});

describe('TokenReview', () => {
  const def = tokenReviewDef({ tokenAuthenticators: [file, refusing], apiAudiences: [API] });
  const req: ComputedRequest = { user: { username: 'admin', groups: [] }, namespace: '', name: '', dryRun: false, warnings: [] };
  const review = (spec: Record<string, unknown>) => def.virtualCreate!({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec }, req);
  const cases = [
    { name: 'authenticated', spec: { token: 'good' }, want: { authenticated: true, user: { username: 'jane', uid: 'u1', groups: ['devs', 'system:authenticated'] }, audiences: [API] } },
    { name: 'unknown token', spec: { token: 'nope' }, want: { user: {}, error: 'invalid bearer token' } },
    { name: 'refused token', spec: { token: 'eyJ' }, want: { user: {}, error: 'service account token has expired' } },
    { name: 'static token asked for another audience', spec: { token: 'good', audiences: ['vault'] }, want: { user: {}, error: 'invalid bearer token' } },
  ];
  for (const c of cases) it(c.name, async () => expect((await review(c.spec)).status).toEqual(c.want));
  it('a token is required', async () => {
    await expect(review({})).rejects.toThrow('token is required for TokenReview in authentication');
  });
  it('the resource: cluster-scoped, create only', () => {
    expect(def).toMatchObject({ group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', namespaced: false, verbs: ['create'] });
  });
});

describe('SelfSubjectReview', () => {
  it('is the requesting user', async () => {
    const def = selfSubjectReviewDef(() => new Date('2026-11-30T22:00:00.250Z'));
    const out = await def.virtualCreate!({ metadata: {} }, { user: { username: 'jane', uid: 'u1', groups: ['devs'], extra: { k: ['v'] } }, namespace: '', name: '', dryRun: false, warnings: [] });
    expect(out).toEqual({ metadata: { creationTimestamp: '2026-11-30T22:00:00Z' }, status: { userInfo: { username: 'jane', uid: 'u1', groups: ['devs'], extra: { k: ['v'] } } } });
  });
});

describe('goDurationMs (time.ParseDuration)', () => {
  const cases = [
    { input: '1h', want: 3_600_000 },
    { input: '90m', want: 5_400_000 },
    { input: '1h30m10s', want: 5_410_000 },
    { input: '1.5h', want: 5_400_000 },
    { input: '0', want: 0 },
  ];
  for (const c of cases) it(c.input, () => expect(goDurationMs(c.input)).toBe(c.want));
  it('rejects what Go rejects, with its messages', () => {
    expect(() => goDurationMs('1d')).toThrow('time: unknown unit "d" in duration "1d"');
    expect(() => goDurationMs('5')).toThrow('time: missing unit in duration "5"');
    expect(() => goDurationMs('abc')).toThrow('time: invalid duration "abc"');
    expect(() => goDurationMs('')).toThrow('time: invalid duration ""');
  });
});

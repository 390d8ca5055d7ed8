import { describe, expect, it } from 'vitest';
import { StatusError } from '../../../../main/apiserver/api/status';
import { buildImpersonationRequests, impersonatedUser, withImpersonation } from '../../../../main/apiserver/server/filters/withImpersonation';
import type { AuthorizationAttributes } from '../../../../main/apiserver/authz/authorizer';
import type { RequestContext } from '../../../../main/apiserver/server/context';
import { TraceRecorder } from '../../../../main/apiserver/server/traceRecorder';
import type { UserInfo } from '../../../../main/apiserver/authn/user';

type Headers = Record<string, string[]>;

function ctxWith(headers: Headers, user: UserInfo = { username: 'admin', groups: ['system:authenticated'] }) {
  const written: { code?: number; headers?: Record<string, string>; body?: string } = {};
  const ctx = {
    req: {
      url: '/api/v1/namespaces/default/pods',
      headersDistinct: headers,
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.join(', ')])),
      // As clients send them: Impersonate-User, Impersonate-Extra-Scopes (header names are case-insensitive).
      rawHeaders: Object.entries(headers).flatMap(([k, vs]) => vs.flatMap((v) => [k.replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase()), v])),
    },
    res: {
      writeHead(code: number, h: Record<string, string>) {
        written.code = code;
        written.headers = h;
      },
      end(body: string) {
        written.body = body;
      },
    },
    user,
    trace: new TraceRecorder('GET', '/api/v1/namespaces/default/pods'),
  } as unknown as RequestContext;
  return { ctx, written };
}

describe('buildImpersonationRequests', () => {
  const cases: { name: string; headers: Headers; want: unknown[] }[] = [
    { name: 'none', headers: {}, want: [] },
    { name: 'user', headers: { 'impersonate-user': ['jane'] }, want: [{ kind: 'User', name: 'jane', namespace: '' }] },
    { name: 'service account', headers: { 'impersonate-user': ['system:serviceaccount:ns1:builder'] }, want: [{ kind: 'ServiceAccount', name: 'builder', namespace: 'ns1' }] },
    { name: 'invalid service account name is a user', headers: { 'impersonate-user': ['system:serviceaccount:Bad_NS:x'] }, want: [{ kind: 'User', name: 'system:serviceaccount:Bad_NS:x' }] },
    {
      name: 'groups, extras (lower-cased, %-decoded keys) and uid',
      headers: { 'impersonate-user': ['jane'], 'impersonate-group': ['devs', 'ops'], 'impersonate-extra-acme.com%2fproject': ['a', 'b'], 'impersonate-uid': ['123'] },
      want: [
        { kind: 'User', name: 'jane' },
        { kind: 'Group', name: 'devs' },
        { kind: 'Group', name: 'ops' },
        { kind: 'UserExtra', name: 'a', fieldPath: 'acme.com/project', apiVersion: 'authentication.k8s.io/v1' },
        { kind: 'UserExtra', name: 'b', fieldPath: 'acme.com/project' },
        { kind: 'UID', name: '123', apiVersion: 'authentication.k8s.io/v1' },
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = buildImpersonationRequests({ headersDistinct: c.headers });
      expect(got).toHaveLength(c.want.length);
      c.want.forEach((w, i) => expect(got[i]).toMatchObject(w as object));
    });
  }
  it('groups without a user', () => {
    expect(() => buildImpersonationRequests({ headersDistinct: { 'impersonate-group': ['devs'], 'impersonate-uid': ['1'] } })).toThrow(
      'requested [{Group  devs    } {UID  1  authentication.k8s.io/v1  }] without impersonating a user',
    );
  });
});

describe('impersonatedUser (kube group rules)', () => {
  const cases: { name: string; headers: Headers; want: UserInfo }[] = [
    { name: 'user alone gets system:authenticated', headers: { 'impersonate-user': ['jane'] }, want: { username: 'jane', groups: ['system:authenticated'] } },
    { name: 'named groups then system:authenticated', headers: { 'impersonate-user': ['jane'], 'impersonate-group': ['devs'] }, want: { username: 'jane', groups: ['devs', 'system:authenticated'] } },
    { name: 'system:unauthenticated asked: no system:authenticated', headers: { 'impersonate-user': ['jane'], 'impersonate-group': ['system:unauthenticated'] }, want: { username: 'jane', groups: ['system:unauthenticated'] } },
    { name: 'anonymous gets system:unauthenticated', headers: { 'impersonate-user': ['system:anonymous'] }, want: { username: 'system:anonymous', groups: ['system:unauthenticated'] } },
    {
      name: 'service account: its groups unless groups are named',
      headers: { 'impersonate-user': ['system:serviceaccount:ns1:b'] },
      want: { username: 'system:serviceaccount:ns1:b', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'] },
    },
    { name: 'service account with named groups', headers: { 'impersonate-user': ['system:serviceaccount:ns1:b'], 'impersonate-group': ['g'] }, want: { username: 'system:serviceaccount:ns1:b', groups: ['g', 'system:authenticated'] } },
    {
      name: 'uid and extra',
      headers: { 'impersonate-user': ['jane'], 'impersonate-uid': ['u1'], 'impersonate-extra-scopes': ['view', 'edit'] },
      want: { username: 'jane', uid: 'u1', groups: ['system:authenticated'], extra: { scopes: ['view', 'edit'] } },
    },
  ];
  for (const c of cases) it(c.name, () => expect(impersonatedUser(buildImpersonationRequests({ headersDistinct: c.headers }))).toEqual(c.want));
});

describe('withImpersonation', () => {
  const allowOnly = (allowed: (a: AuthorizationAttributes) => boolean) => {
    const asked: AuthorizationAttributes[] = [];
    return {
      asked,
      env: {
        authorize: async (a: AuthorizationAttributes) => {
          asked.push(a);
          return allowed(a) ? { decision: 'allow' as const } : { decision: 'noOpinion' as const, reason: '' };
        },
      },
    };
  };

  it('switches the user, keeps the original and checks each item', async () => {
    const { env, asked } = allowOnly(() => true);
    const { ctx } = ctxWith({ 'impersonate-user': ['jane'], 'impersonate-group': ['devs'], 'impersonate-extra-scopes': ['x'] });
    let ran = false;
    await withImpersonation(env).run(ctx, async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    expect(ctx.user).toEqual({ username: 'jane', groups: ['devs', 'system:authenticated'], extra: { scopes: ['x'] } });
    expect(ctx.impersonatedBy?.username).toBe('admin');
    expect(asked.map((a) => [a.verb, a.apiGroup, a.resource, a.subresource, a.name])).toEqual([
      ['impersonate', '', 'users', '', 'jane'],
      ['impersonate', '', 'groups', '', 'devs'],
      ['impersonate', 'authentication.k8s.io', 'userextras', 'scopes', 'x'],
    ]);
    expect(ctx.trace.trace.stages[0]).toMatchObject({ stage: 'impersonation', verdict: 'allow' });
    expect(ctx.trace.trace.stages[0]!.reason).toContain('admin (groups ["system:authenticated"]) is impersonating jane');
  });

  const denials: { name: string; headers: Headers; allow?: string; want: string }[] = [
    { name: 'user', headers: { 'impersonate-user': ['jane'] }, want: 'users "jane" is forbidden: User "admin" cannot impersonate resource "users" in API group "" at the cluster scope' },
    {
      name: 'service account',
      headers: { 'impersonate-user': ['system:serviceaccount:ns1:b'] },
      want: 'serviceaccounts "b" is forbidden: User "admin" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"',
    },
    { name: 'group', headers: { 'impersonate-user': ['jane'], 'impersonate-group': ['devs'] }, allow: 'users', want: 'groups "devs" is forbidden: User "admin" cannot impersonate resource "groups" in API group "" at the cluster scope' },
    {
      name: 'uid',
      headers: { 'impersonate-user': ['jane'], 'impersonate-uid': ['u1'] },
      allow: 'users',
      want: 'uids.authentication.k8s.io "u1" is forbidden: User "admin" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope',
    },
  ];
  for (const d of denials) {
    it(`403 for ${d.name}`, async () => {
      const { env } = allowOnly((a) => a.resource === d.allow);
      const { ctx } = ctxWith(d.headers);
      const err = await withImpersonation(env)
        .run(ctx, async () => {})
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(StatusError);
      expect((err as StatusError).status).toMatchObject({ code: 403, reason: 'Forbidden', message: d.want });
      expect(ctx.user?.username).toBe('admin');
    });
  }

  it('no headers: nothing happens', async () => {
    const { env, asked } = allowOnly(() => false);
    const { ctx } = ctxWith({});
    let ran = false;
    await withImpersonation(env).run(ctx, async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    expect(asked).toEqual([]);
    expect(ctx.impersonatedBy).toBeUndefined();
  });
});

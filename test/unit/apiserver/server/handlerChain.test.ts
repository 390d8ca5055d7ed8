// The chain in-process over plain HTTP, with a test authenticator (header
// X-Test-User) and a test authorizer: 401/403 bodies, panic recovery, the
// 404 of unknown paths, and what the trace log records.

import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Authenticator } from '../../../../main/apiserver/authn/authenticator';
import type { Authorizer } from '../../../../main/apiserver/authz/authorizer';
import { compose, requestListener } from '../../../../main/apiserver/server/handlerChain';
import { createRouter } from '../../../../main/apiserver/endpoints/router';
import { RequestTraceLog } from '../../../../main/apiserver/server/traceLog';
import { withAuditHook } from '../../../../main/apiserver/server/filters/withAuditHook';
import { withAuthentication } from '../../../../main/apiserver/server/filters/withAuthentication';
import { withAuthorization } from '../../../../main/apiserver/server/filters/withAuthorization';
import { withPanicRecovery } from '../../../../main/apiserver/server/filters/withPanicRecovery';
import { withRequestInfo } from '../../../../main/apiserver/server/filters/withRequestInfo';
import { writeObject } from '../../../../main/apiserver/server/responseWriter';

const headerUser: Authenticator = {
  name: 'test-header',
  authenticate: (req) => {
    const u = req.headers['x-test-user'];
    return typeof u === 'string' ? { username: u, groups: ['g1'] } : undefined;
  },
};
const onlyAlice: Authorizer = { name: 'test', authorize: (a) => (a.user.username === 'alice' ? { decision: 'allow' } : { decision: 'noOpinion' }) };

let server: Server;
let port = 0;
const traces = new RequestTraceLog(10);
const audited: string[] = [];

beforeAll(async () => {
  const router = createRouter({
    lookup: () => undefined,
    traces,
    meta: async (ctx) => {
      if (ctx.url.pathname === '/boom') throw new Error('kaboom');
      if (ctx.url.pathname === '/hello') {
        writeObject(ctx, 200, { hello: ctx.user!.username });
        return true;
      }
      return false;
    },
  });
  const chain = compose(
    [withPanicRecovery(() => {}), withRequestInfo(), withAuthentication([headerUser]), withAuditHook([{ requestReceived: (c) => audited.push(c.url.pathname) }]), withAuthorization([onlyAlice])],
    router,
  );
  server = createServer(requestListener(chain, traces));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function get(path: string, user?: string): Promise<{ status: number; body: string; type: string }> {
  return new Promise((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port, path, headers: user ? { 'x-test-user': user } : {} }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type']) }));
    });
    r.on('error', reject);
    r.end();
  });
}

describe('handler chain', () => {
  const cases = [
    { name: 'no user → 401 Status', path: '/hello', user: undefined, status: 401, body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}\n' },
    { name: 'allowed', path: '/hello', user: 'alice', status: 200, body: '{"hello":"alice"}\n' },
    { name: 'not authorized → 403 Status', path: '/hello', user: 'bob', status: 403, body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"bob\\" cannot get path \\"/hello\\"","reason":"Forbidden","code":403}\n' },
    { name: 'a handler error → 500 InternalError Status', path: '/boom', user: 'alice', status: 500, body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: kaboom","reason":"InternalError","details":{"causes":[{"message":"kaboom"}]},"code":500}\n' },
    { name: 'unknown non-resource path → 404 page not found', path: '/nope', user: 'alice', status: 404, body: '404 page not found\n' },
    { name: 'unknown resource → 404 Status', path: '/apis/x/v1/namespaces/d/things', user: 'alice', status: 404, body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}\n' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const r = await get(c.path, c.user);
      expect(r.status).toBe(c.status);
      expect(r.body).toBe(c.body);
    });
  }

  it('records traces (not of the traces endpoint itself) with user, stages and decision', async () => {
    await get('/debug/pilothouse/traces', 'alice');
    const list = traces.list();
    expect(list.some((t) => t.path === '/debug/pilothouse/traces')).toBe(false);
    const denied = list.find((t) => t.code === 403)!;
    expect(denied).toMatchObject({ path: '/hello', user: { username: 'bob', groups: ['g1', 'system:authenticated'] }, reason: 'Forbidden', decision: 'denied' });
    expect(denied.stages.map((s) => `${s.stage}:${s.verdict}`)).toEqual(['authentication:allow', 'audit:ok', 'authorization:deny']);
    const anon = list.find((t) => t.code === 401)!;
    expect(anon.stages).toEqual([expect.objectContaining({ stage: 'authentication', verdict: 'deny', reason: 'no credentials' })]);
    expect(audited).toContain('/hello');
  });
});

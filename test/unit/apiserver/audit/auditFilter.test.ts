// The audit filters and the log sink in the real handler chain (in-process
// HTTP on 127.0.0.1:30790): stages, levels, status codes, annotations, 401/403,
// panics and long-running requests, as kube's WithAudit records them.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notFound } from '../../../../main/apiserver/api/status';
import { auditLogSink } from '../../../../main/apiserver/audit/auditSink';
import type { AuditLogWriter } from '../../../../main/apiserver/audit/logBackend';
import { parsePolicy, PolicyChecker } from '../../../../main/apiserver/audit/policy';
import { readBody } from '../../../../main/apiserver/endpoints/requestBody';
import type { Authenticator } from '../../../../main/apiserver/authn/authenticator';
import type { Authorizer } from '../../../../main/apiserver/authz/authorizer';
import type { Handler } from '../../../../main/apiserver/server/context';
import { withAuditHook, withFailedAuthenticationAudit } from '../../../../main/apiserver/server/filters/withAuditHook';
import { withAuthentication } from '../../../../main/apiserver/server/filters/withAuthentication';
import { withAuthorization } from '../../../../main/apiserver/server/filters/withAuthorization';
import { withPanicRecovery } from '../../../../main/apiserver/server/filters/withPanicRecovery';
import { withRequestInfo } from '../../../../main/apiserver/server/filters/withRequestInfo';
import { compose, requestListener } from '../../../../main/apiserver/server/handlerChain';
import { writeError, writeObject } from '../../../../main/apiserver/server/responseWriter';

const lines: string[] = [];
const writer: AuditLogWriter = { write: (l) => void lines.push(l), dropped: 0, flush: async () => {}, close: async () => {} };
const policy = parsePolicy(`apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: [/healthz]
- level: RequestResponse
  resources: [{group: "", resources: [configmaps]}]
  omitManagedFields: true
- level: Request
  resources: [{group: "", resources: [secrets]}]
- level: Metadata
`);
const sink = auditLogSink({ checker: new PolicyChecker(policy), writer });
const authn: Authenticator = {
  name: 'header',
  authenticate: (req) => {
    const u = req.headers['x-user'];
    return typeof u === 'string' ? { username: u, groups: ['team'] } : undefined;
  },
};
const authz: Authorizer = { name: 'test', authorize: (a) => (a.user.username === 'eve' ? { decision: 'noOpinion' } : { decision: 'allow', reason: 'test says yes' }) };

const handler: Handler = async (ctx) => {
  const p = ctx.url.pathname;
  if (p === '/api/v1/namespaces/default/pods') {
    if (ctx.url.searchParams.get('watch') === 'true') {
      ctx.res.writeHead(200, { 'Content-Type': 'application/json' });
      ctx.res.write('{"type":"ADDED","object":{}}\n');
      await new Promise((r) => setTimeout(r, 30));
      ctx.res.end();
      return;
    }
    writeObject(ctx, 200, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: [] });
    return;
  }
  if (p === '/api/v1/namespaces/default/pods/missing') {
    writeError(ctx, notFound({ group: '', resource: 'pods' }, 'missing'));
    return;
  }
  if (p === '/api/v1/namespaces/default/configmaps' || p === '/api/v1/namespaces/default/secrets') {
    const body = JSON.parse((await readBody(ctx)).toString());
    ctx.auditAnnotations['test.example/seen'] = 'yes';
    writeObject(ctx, 201, { ...body, metadata: { ...body.metadata, uid: 'u-1', managedFields: [{ manager: 'kubectl' }] } });
    return;
  }
  if (p === '/api/v1/namespaces/default/pods/boom') throw new Error('boom');
  writeObject(ctx, 200, { ok: true });
};

let server: Server;
beforeAll(async () => {
  const chain = compose(
    [withPanicRecovery(() => {}), withRequestInfo(), withFailedAuthenticationAudit([sink]), withAuthentication([authn]), withAuditHook([sink]), withAuthorization([authz])],
    handler,
  );
  server = createServer(requestListener(chain, undefined));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

function call(method: string, path: string, opts: { user?: string; body?: unknown } = {}): Promise<{ code: number; auditId: string; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'User-Agent': 'kubectl/v1.32.0 (linux/amd64) kubernetes/test', 'Content-Type': 'application/json' };
    if (opts.user) headers['x-user'] = opts.user;
    const req = request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, method, path, headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ code: res.statusCode!, auditId: String(res.headers['audit-id'] ?? ''), body }));
    });
    req.on('error', reject);
    req.end(opts.body === undefined ? undefined : JSON.stringify(opts.body));
  });
}

const eventsOf = (auditId: string) => lines.map((l) => JSON.parse(l)).filter((e) => e.auditID === auditId);

describe('audit filter + log sink', () => {
  it('Metadata list: RequestReceived then ResponseComplete, kube field order, decision annotations', async () => {
    const r = await call('GET', '/api/v1/namespaces/default/pods?limit=500', { user: 'alice' });
    expect(r.code).toBe(200);
    const evs = eventsOf(r.auditId);
    expect(evs.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
    const done = evs[1];
    expect(Object.keys(done)).toEqual(['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'sourceIPs', 'userAgent', 'objectRef', 'responseStatus', 'requestReceivedTimestamp', 'stageTimestamp', 'annotations']);
    expect(done).toMatchObject({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      requestURI: '/api/v1/namespaces/default/pods?limit=500',
      verb: 'list',
      user: { username: 'alice', groups: ['team', 'system:authenticated'] },
      sourceIPs: ['127.0.0.1'],
      userAgent: 'kubectl/v1.32.0 (linux/amd64) kubernetes/test',
      objectRef: { resource: 'pods', namespace: 'default', apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 200 },
      annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': 'test says yes' },
    });
    expect(evs[0].annotations).toBeUndefined();
    expect(done.stageTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(evs[0].stageTimestamp).toBe(evs[0].requestReceivedTimestamp);
  });

  it('a handler-written error keeps its Status fields', async () => {
    const r = await call('GET', '/api/v1/namespaces/default/pods/missing', { user: 'alice' });
    expect(r.code).toBe(404);
    const done = eventsOf(r.auditId).at(-1);
    expect(done.responseStatus).toEqual({ metadata: {}, status: 'Failure', message: 'pods "missing" not found', reason: 'NotFound', details: { name: 'missing', kind: 'pods' }, code: 404 });
    expect(done.objectRef).toEqual({ resource: 'pods', namespace: 'default', name: 'missing', apiVersion: 'v1' });
  });

  it('403 from authorization: forbid decision and the Forbidden Status', async () => {
    const r = await call('GET', '/api/v1/namespaces/default/pods', { user: 'eve' });
    expect(r.code).toBe(403);
    const done = eventsOf(r.auditId).at(-1);
    expect(done.stage).toBe('ResponseComplete');
    expect(done.responseStatus.code).toBe(403);
    expect(done.responseStatus.reason).toBe('Forbidden');
    expect(done.responseStatus.message).toContain('User "eve" cannot list resource "pods"');
    expect(done.annotations).toEqual({ 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' });
  });

  it('401: one ResponseStarted event with an empty user', async () => {
    const r = await call('GET', '/api/v1/namespaces/default/pods');
    expect(r.code).toBe(401);
    const evs = eventsOf(r.auditId);
    expect(evs.map((e) => e.stage)).toEqual(['ResponseStarted']);
    expect(evs[0].user).toEqual({});
    expect(evs[0].responseStatus).toEqual({ metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  });

  it('RequestResponse create: request and response objects, objectRef from the body, managed fields omitted, admission annotations', async () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', managedFields: [{ manager: 'x' }] }, data: { a: 'b' } };
    const r = await call('POST', '/api/v1/namespaces/default/configmaps', { user: 'alice', body: cm });
    expect(r.code).toBe(201);
    const done = eventsOf(r.auditId).at(-1);
    expect(done.level).toBe('RequestResponse');
    expect(done.objectRef).toEqual({ resource: 'configmaps', namespace: 'default', name: 'c1', apiVersion: 'v1' });
    expect(done.requestObject).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { a: 'b' } });
    expect(done.responseObject.metadata).toEqual({ name: 'c1', uid: 'u-1' });
    expect(done.responseStatus).toEqual({ metadata: {}, code: 201 });
    expect(done.annotations['test.example/seen']).toBe('yes');
  });

  it('Request level: request object, no response object', async () => {
    const r = await call('POST', '/api/v1/namespaces/default/secrets', { user: 'alice', body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' } } });
    const done = eventsOf(r.auditId).at(-1);
    expect(done.level).toBe('Request');
    expect(done.requestObject.metadata.name).toBe('s1');
    expect(done.responseObject).toBeUndefined();
  });

  it('None: nothing logged', async () => {
    const r = await call('GET', '/healthz', { user: 'alice' });
    expect(r.code).toBe(200);
    expect(eventsOf(r.auditId)).toEqual([]);
  });

  it('watch (long-running): RequestReceived, ResponseStarted, ResponseComplete', async () => {
    const r = await call('GET', '/api/v1/namespaces/default/pods?watch=true', { user: 'alice' });
    expect(eventsOf(r.auditId).map((e) => [e.stage, e.verb, e.responseStatus?.code])).toEqual([
      ['RequestReceived', 'watch', undefined],
      ['ResponseStarted', 'watch', 200],
      ['ResponseComplete', 'watch', 200],
    ]);
  });

  it('panic: a Panic event with kube\'s message, then the 500', async () => {
    const r = await call('GET', '/api/v1/namespaces/default/pods/boom', { user: 'alice' });
    expect(r.code).toBe(500);
    const evs = eventsOf(r.auditId);
    expect(evs.map((e) => e.stage)).toEqual(['RequestReceived', 'Panic']);
    expect(evs[1].responseStatus).toEqual({ metadata: {}, status: 'Failure', message: "APIServer panic'd: boom", reason: 'InternalError', code: 500 });
  });
});

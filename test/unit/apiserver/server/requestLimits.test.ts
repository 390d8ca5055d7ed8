// withRequestTimeout and withMaxInFlightLimit in-process over plain HTTP:
// requests wait on gates the test opens, so the limits are reached exactly.

import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NamedFilter } from '../../../../main/apiserver/server/context';
import { compose, requestListener } from '../../../../main/apiserver/server/handlerChain';
import { withMaxInFlightLimit } from '../../../../main/apiserver/server/filters/withMaxInFlightLimit';
import { withPanicRecovery } from '../../../../main/apiserver/server/filters/withPanicRecovery';
import { withRequestInfo } from '../../../../main/apiserver/server/filters/withRequestInfo';
import { withRequestTimeout } from '../../../../main/apiserver/server/filters/withRequestTimeout';
import { RequestDeadlines } from '../../../../main/apiserver/server/requestDeadlines';
import { writeObject } from '../../../../main/apiserver/server/responseWriter';

const gates = new Map<string, () => void>();
const userFromHeader: NamedFilter = {
  name: 'testUser',
  run: async (ctx, next) => {
    const groups = String(ctx.req.headers['x-groups'] ?? '').split(',').filter(Boolean);
    ctx.user = { username: 'u', groups };
    return next();
  },
};
let server: Server;
let port = 0;
const deadlines = new RequestDeadlines(undefined, 20);

beforeAll(async () => {
  const chain = compose([withPanicRecovery(() => {}), withRequestInfo(), withRequestTimeout(300, deadlines), userFromHeader, withMaxInFlightLimit(1, 1)], async (ctx) => {
    const gate = ctx.url.searchParams.get('gate');
    if (gate) await new Promise<void>((resolve) => gates.set(gate, resolve));
    writeObject(ctx, 200, { ok: true });
  });
  server = createServer(requestListener(chain, undefined, () => {}));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  deadlines.close();
  await new Promise<void>((r) => server.close(() => r()));
});

function call(method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { ...headers, Connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const waitGate = async (name: string) => expect.poll(() => gates.has(name)).toBe(true);
const open = (name: string) => {
  gates.get(name)!();
  gates.delete(name);
};

describe('withMaxInFlightLimit', () => {
  it('refuses a second non-mutating request with kube\'s 429, serves system:masters, and frees the slot', async () => {
    const first = call('GET', '/api/v1/namespaces/default/pods?gate=r1');
    await waitGate('r1');
    const refused = await call('GET', '/api/v1/namespaces/default/pods');
    expect(refused).toMatchObject({ status: 429, body: 'Too many requests, please try again later.\n' });
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect((await call('GET', '/api/v1/namespaces/default/pods', { 'X-Groups': 'system:masters' })).status).toBe(200);
    // The mutating limit is separate.
    const write = call('POST', '/api/v1/namespaces/default/pods?gate=w1');
    await waitGate('w1');
    expect((await call('DELETE', '/api/v1/namespaces/default/pods/x')).status).toBe(429);
    open('r1');
    open('w1');
    expect((await first).status).toBe(200);
    expect((await write).status).toBe(200);
    expect((await call('GET', '/api/v1/namespaces/default/pods')).status).toBe(200);
  });

  it('a watch holds no slot and is not timed out', async () => {
    const watch = call('GET', '/api/v1/namespaces/default/pods?watch=true&gate=watch');
    await waitGate('watch');
    expect((await call('GET', '/api/v1/namespaces/default/pods')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500)); // past the 300 ms request timeout
    open('watch');
    expect((await watch).status).toBe(200);
  });
});

describe('withRequestTimeout', () => {
  it('answers kube\'s 504 at the deadline and lets the handler finish into nothing', async () => {
    const t0 = performance.now();
    const r = await call('GET', '/api/v1/namespaces/default/pods?gate=slow');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    expect(r.status).toBe(504);
    expect(JSON.parse(r.body)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
      reason: 'Timeout',
      details: {},
      code: 504,
    });
    open('slow');
    expect(deadlines.size).toBe(0);
  });

  it('?timeout= shortens it; a bad one is a 400', async () => {
    const t0 = performance.now();
    const fast = call('GET', '/api/v1/namespaces/default/pods?gate=short&timeout=50ms');
    expect((await fast).status).toBe(504);
    expect(performance.now() - t0).toBeLessThan(290);
    open('short');
    const bad = await call('GET', '/api/v1/namespaces/default/pods?timeout=abc');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ reason: 'BadRequest', message: 'invalid timeout specified in the request URL - time: invalid duration "abc"' });
  });
});

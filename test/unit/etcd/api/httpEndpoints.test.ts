// /health, /version and /metrics on the same port as gRPC, read with Node's
// http client; expected bodies and codes are etcd 3.4.23's.

import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, rawClient, startHarness, type Harness } from './clientHarness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

interface Reply {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

function get(path: string, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: h.handle.ports[0], path, method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('client-port HTTP endpoints', () => {
  const cases: { name: string; path: string; method?: string; leader?: boolean; status: number; body: string; type?: string }[] = [
    { name: 'healthy', path: '/health', status: 200, body: '{"health":"true"}', type: 'text/plain; charset=utf-8' },
    { name: 'unhealthy without a leader', path: '/health', leader: false, status: 503, body: '{"health":"false"}\n' },
    { name: 'health refuses POST', path: '/health', method: 'POST', status: 405, body: 'Method Not Allowed\n' },
    { name: 'version', path: '/version', status: 200, body: '{"etcdserver":"3.4.23","etcdcluster":"3.4.0"}', type: 'application/json' },
    { name: 'unknown path', path: '/v2/keys', status: 404, body: '404 page not found\n' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      h.fake.leader = c.leader ?? true;
      const r = await get(c.path, c.method);
      h.fake.leader = true;
      expect({ status: r.status, body: r.body }).toEqual({ status: c.status, body: c.body });
      if (c.type) expect(r.headers['content-type']).toBe(c.type);
      if (c.status === 405) expect(r.headers.allow).toBe('GET');
    });
  }

  it('metrics is the member registry in Prometheus text', async () => {
    h.fake.requests.reset();
    const kv = rawClient(h.endpoint, 'KV');
    await call(kv, 'Put', { key: Buffer.from('m'), value: Buffer.from('1') });
    kv.close();
    const r = await get('/metrics');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toContain('text/plain; version=0.0.4');
    expect(r.body).toContain('# TYPE fake_requests_total counter\nfake_requests_total 1\n');
    // etcd's go-grpc-prometheus counters, same names and labels
    expect(r.body).toContain('grpc_server_started_total{grpc_type="unary",grpc_service="etcdserverpb.KV",grpc_method="Put"} 1\n');
    expect(r.body).toContain(
      'grpc_server_handled_total{grpc_type="unary",grpc_service="etcdserverpb.KV",grpc_method="Put",grpc_code="OK"} 1\n',
    );
  });

  it('serves HTTP/1.1 keep-alive requests in sequence on one connection', async () => {
    const { Agent } = await import('node:http');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const ports = new Set<number>();
    for (let i = 0; i < 3; i++) {
      await new Promise<void>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: h.handle.ports[0], path: '/version', agent }, (res) => {
          ports.add(res.socket.localPort ?? -1);
          res.resume();
          res.on('end', () => resolve());
        });
        req.on('error', reject);
        req.end();
      });
    }
    agent.destroy();
    expect(ports.size).toBe(1);
  });
});

describe('--listen-metrics-urls listener', () => {
  it('serves /metrics and /health but not /version or gRPC paths', async () => {
    const { startMetricsServer } = await import('../../../../main/etcd/api/index');
    const m = await startMetricsServer(h.fake, { listenUrls: ['http://127.0.0.1:0'] });
    const at = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: m.ports[0], path }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
    const codes = { metrics: await at('/metrics'), health: await at('/health'), version: await at('/version') };
    await m.close();
    expect(codes).toEqual({ metrics: 200, health: 200, version: 404 });
  });
});

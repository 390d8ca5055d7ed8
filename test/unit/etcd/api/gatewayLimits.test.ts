// The gateway's size limits and --cors, on a client port with a small
// --max-request-bytes (1000: the gRPC limit is 1000 + 512 KiB = 525288).
// Texts and codes are etcd 3.4's (checked against Debian's etcd with the
// default limits in test/integration/etcd/badInput.test.ts, which also has
// the server's own "request is too large" below the gRPC limit).

import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClientServer, type ClientServerHandle } from '../../../../main/etcd/api/index';
import { FakeEtcdServer } from './fakeEtcdServer';

const MAX_REQUEST_BYTES = 1000;
const LIMIT = MAX_REQUEST_BYTES + 512 * 1024;
let handle: ClientServerHandle;

beforeAll(async () => {
  const fake = new FakeEtcdServer({ maxRequestBytes: MAX_REQUEST_BYTES });
  handle = await startClientServer(fake, { listenUrls: ['http://127.0.0.1:0'], maxRequestBytes: MAX_REQUEST_BYTES, cors: ['http://a.example:80'] });
});
afterAll(async () => {
  await handle.close();
});

interface Reply {
  status: number;
  body: string;
  headers: Record<string, unknown>;
}

function send(path: string, method: string, body: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: handle.ports[0], path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const put = (valueBytes: number) => JSON.stringify({ key: 'Zm9v', value: Buffer.alloc(valueBytes, 1).toString('base64') });
const grpcError = (message: string, code: number) => JSON.stringify({ error: message, message, code });

describe('gateway body limits', () => {
  it('a request over the gRPC limit gets ResourceExhausted with its protobuf size', async () => {
    // key: 2 + 3 bytes; value: 1 + 3 (varint of 600000) + 600000 bytes
    const r = await send('/v3/kv/put', 'POST', put(600_000));
    expect({ status: r.status, body: r.body }).toEqual({ status: 429, body: grpcError(`grpc: received message larger than max (600009 vs. ${LIMIT})`, 8) });
  });

  it('a body over twice the limit is refused by its Content-Length and dropped, not kept', async () => {
    const body = put(1_200_000);
    const r = await send('/v3/kv/put', 'POST', body);
    expect({ status: r.status, body: r.body }).toEqual({ status: 429, body: grpcError(`grpc: received message larger than max (${body.length} vs. ${LIMIT})`, 8) });
  });
});

describe('--cors with a list of origins', () => {
  it('echoes an allowed origin with the methods and headers', async () => {
    const r = await send('/health', 'GET', '', { origin: 'http://a.example:80' });
    expect(r.headers).toMatchObject({
      'access-control-allow-origin': 'http://a.example:80',
      'access-control-allow-methods': 'POST, GET, OPTIONS, PUT, DELETE',
      'access-control-allow-headers': 'accept, content-type, authorization',
    });
  });

  it('sends no CORS headers to another origin or without one', async () => {
    for (const headers of [{ origin: 'http://b.example:80' }, {}] as Record<string, string>[]) {
      const r = await send('/health', 'GET', '', headers);
      expect(r.status).toBe(200);
      expect(Object.keys(r.headers).filter((k) => k.startsWith('access-control-'))).toEqual([]);
    }
  });

  it('answers OPTIONS 200 with an empty body on any path', async () => {
    const r = await send('/v3/kv/put', 'OPTIONS', '', { origin: 'http://b.example:80' });
    expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: '' });
  });
});

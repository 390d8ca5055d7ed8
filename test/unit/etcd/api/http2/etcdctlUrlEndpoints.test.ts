// Endpoints written as URLs: for Status, etcd's clientv3 dials
// "passthrough:///http://host:port", so grpc-go sends the whole URL as
// :authority. nghttp2 refuses that with RST_STREAM PROTOCOL_ERROR; the
// authority filter in front of grpc-js (http2/authorityFilter.ts) repairs it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ctlError, etcdctl, rawClient, startHarness, type Harness } from '../clientHarness';

let h: Harness;
let url: string;
beforeAll(async () => {
  h = await startHarness();
  url = `http://${h.endpoint}`;
});
afterAll(async () => {
  await h.close();
});

describe('etcdctl with http:// endpoints', () => {
  it('endpoint status prints a table row', async () => {
    const r = await etcdctl(url, ['endpoint', 'status', '-w', 'table']);
    expect(r.stderr).not.toContain('PROTOCOL_ERROR');
    expect(r.code).toBe(0);
    const rows = r.stdout.split('\n').filter((l) => l.startsWith(`| ${url} `));
    expect(rows).toHaveLength(1);
    const cells = rows[0]!.split('|').map((c) => c.trim());
    expect(cells.slice(1, 4)).toEqual([url, 'bdae9bbc11dd390d', '3.4.23']);
  });

  it('endpoint status -w json carries the member id', async () => {
    const r = await etcdctl(url, ['endpoint', 'status', '-w', 'json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`"Endpoint":"${url}"`);
    expect(r.stdout).toContain('"member_id":13668033151171901709');
  });

  it('put and get still work', async () => {
    const put = await etcdctl(url, ['put', 'url-key', 'url-value']);
    const get = await etcdctl(url, ['get', 'url-key', '--print-value-only']);
    expect([put.stdout, get.stdout, ctlError(put), ctlError(get)]).toEqual(['OK\n', 'url-value\n', undefined, undefined]);
  });
});

describe('a client sending a URL :authority on every request of one connection', () => {
  it('is answered every time (later requests name the authority by table index)', async () => {
    const client = rawClient(h.endpoint, 'KV', { 'grpc.default_authority': 'http://127.0.0.1:1/some/path' });
    try {
      for (let i = 0; i < 20; i++) {
        const put = await call(client, 'Put', { key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`) });
        expect(put.err?.details).toBeUndefined();
      }
      const range = await call(client, 'Range', { key: Buffer.from('k'), range_end: Buffer.from('l') });
      expect(range.res?.count).toBe('20');
    } finally {
      client.close();
    }
  });
});

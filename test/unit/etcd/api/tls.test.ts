// https:// listen URLs: TLS in front of the same routing. etcdctl with
// client certificates, a grpc-js TLS client, and Node's https client on the
// same port; a client without a certificate is turned away.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request, type RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { credentials } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClientServer, type ClientServerHandle } from '../../../../main/etcd/api/index';
import { etcdGrpcPackage } from '../../../support/etcdGrpc';
import { selectAlpn } from '../../../../main/etcd/api/tlsTermination';
import { call, ctlError, etcdctl, type RawClient } from './clientHarness';
import { FakeEtcdServer } from './fakeEtcdServer';

/** A throwaway CA, a server cert for 127.0.0.1 and a client cert, made with openssl. */
function makePki(dir: string): void {
  const script = `
set -e
cd "${dir}"
ec="-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
openssl req -x509 $ec -keyout ca.key -out ca.crt -days 2 -subj /CN=test-ca 2>/dev/null
for who in server client; do
  openssl req $ec -keyout $who.key -out $who.csr -subj /CN=$who 2>/dev/null
done
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nextendedKeyUsage=serverAuth,clientAuth\\n' > server.ext
printf 'extendedKeyUsage=clientAuth\\n' > client.ext
for who in server client; do
  openssl x509 -req -in $who.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out $who.crt -days 2 -extfile $who.ext 2>/dev/null
done`;
  execFileSync('bash', ['-c', script]);
}

let dir: string;
let handle: ClientServerHandle;
let endpoint: string;
const file = (name: string) => join(dir, name);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pilothouse-api-tls-'));
  makePki(dir);
  handle = await startClientServer(new FakeEtcdServer(), {
    listenUrls: ['https://127.0.0.1:0'],
    maxRequestBytes: 1.5 * 1024 * 1024,
    tls: { cert: readFileSync(file('server.crt')), key: readFileSync(file('server.key')), ca: readFileSync(file('ca.crt')), clientCertAuth: true },
  });
  endpoint = `https://127.0.0.1:${handle.ports[0]}`;
});
afterAll(async () => {
  await handle?.close();
  rmSync(dir, { recursive: true, force: true });
});

const certArgs = () => ['--cacert', file('ca.crt'), '--cert', file('client.crt'), '--key', file('client.key')];

describe('client port over TLS', () => {
  it('etcdctl with a client certificate puts and gets', async () => {
    const put = await etcdctl(endpoint, [...certArgs(), 'put', 'secure', 'yes']);
    const get = await etcdctl(endpoint, [...certArgs(), 'get', 'secure', '--print-value-only']);
    expect([put.stdout, get.stdout, ctlError(put), ctlError(get)]).toEqual(['OK\n', 'yes\n', undefined, undefined]);
  });

  it('etcdctl endpoint status with an https:// endpoint (URL :authority through the filter)', async () => {
    const r = await etcdctl(endpoint, [...certArgs(), 'endpoint', 'status', '-w', 'table']);
    expect(r.stderr).not.toContain('PROTOCOL_ERROR');
    const row = r.stdout.split('\n').find((l) => l.startsWith(`| ${endpoint} `));
    expect(row?.split('|').map((c) => c.trim()).slice(1, 4)).toEqual([endpoint, 'bdae9bbc11dd390d', '3.4.23']);
  });

  it('etcdctl without a client certificate is refused', async () => {
    const r = await etcdctl(endpoint, ['--cacert', file('ca.crt'), '--dial-timeout=1s', '--command-timeout=2s', 'get', 'secure']);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
  });

  it('a grpc-js TLS client (ALPN h2 only) reaches gRPC', async () => {
    const etcdserverpb = etcdGrpcPackage();
    const creds = credentials.createSsl(readFileSync(file('ca.crt')), readFileSync(file('client.key')), readFileSync(file('client.crt')));
    const client = new etcdserverpb.Maintenance(`127.0.0.1:${handle.ports[0]}`, creds) as RawClient;
    const { err, res } = await call(client, 'Status', {});
    client.close();
    expect([err?.details, res?.version]).toEqual([undefined, '3.4.23']);
  });

  it('an https client offering h2 and http/1.1 gets /health over HTTP/1.1', async () => {
    const r = await new Promise<{ status: number; body: string; alpn: string | false }>((resolve, reject) => {
      // ALPNProtocols reaches tls.connect though https.RequestOptions does not declare it
      const options: RequestOptions & { ALPNProtocols: string[] } = {
        host: '127.0.0.1',
        port: handle.ports[0],
        path: '/health',
        ca: readFileSync(file('ca.crt')),
        cert: readFileSync(file('client.crt')),
        key: readFileSync(file('client.key')),
        ALPNProtocols: ['h2', 'http/1.1'],
      };
      const req = request(
        options,
        (res) => {
          const alpn = (res.socket as TLSSocket).alpnProtocol ?? false;
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, alpn }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(r).toEqual({ status: 200, body: '{"health":"true"}', alpn: 'http/1.1' });
  });
});

describe('selectAlpn', () => {
  const cases = [
    { offered: ['h2'], want: 'h2' },
    { offered: ['h2', 'http/1.1'], want: 'http/1.1' },
    { offered: ['http/1.1'], want: 'http/1.1' },
    { offered: ['acme-tls/1'], want: undefined },
  ];
  for (const c of cases) {
    it(c.offered.join(','), () => expect(selectAlpn(c.offered)).toBe(c.want));
  }
});

describe('https without TLS material', () => {
  it('is refused with etcd’s message', async () => {
    await expect(startClientServer(new FakeEtcdServer(), { listenUrls: ['https://127.0.0.1:0'], maxRequestBytes: 1024 })).rejects.toThrow(
      'TLS key/cert (--cert-file, --key-file) must be provided for client url https://127.0.0.1:0 with HTTPS scheme',
    );
  });
});

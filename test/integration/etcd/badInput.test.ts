// Members under hostile clients: a three-member cluster with TLS on client
// and peer URLs (and --cors), fed malformed and oversized input on a client
// port. Each case asserts the answer, that no member exited, and at the end
// that every key written before is intact and etcdctl still works.
// PILOTHOUSE_TEST_IMPL=etcd runs the same cases against Debian's etcd 3.4
// (on a TLS client port it serves gRPC through Go's net/http2 server); where
// the answers differ (both refuse, in other words) `want` names each.
// Ports 21000–21099: the cluster on 21000–21005.

import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { connect as connectTcp } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterPki } from '../../../main/common/pki/clusterPki';
import { TARGET, memberLogTails, reapClusters, startTestCluster, type TestCluster } from '../../support/cluster';
import { etcdctl, type CtlResult } from '../../support/etcdctl';
import { F, PREFACE, T, exchange, frame, grpcMessage, grpcRequestBlock, headerFrames, literal, type Answer } from '../../support/http2Wire';

const PORT_BASE = 21000;
const ALLOWED_ORIGIN = 'http://console.example:8080';
const KEYS = Array.from({ length: 20 }, (_, i) => [`/before/${i}`, `value-${i}`] as const);
const RANGE = '/etcdserverpb.KV/Range';
/** RangeRequest{key: "/before/0"} */
const RANGE_BODY = grpcMessage(Buffer.concat([Buffer.from([0x0a, 9]), Buffer.from('/before/0')]));

let tc: TestCluster;
let pki: ClusterPki;
let port: number;
let authority: string;

/** The expected answer for the implementation under test. */
const want = <V>(answers: { etcd: V; pilothouse: V }): V => answers[TARGET];

function ctl(args: string[], stdin?: string): Promise<CtlResult> {
  const tls = [`--cacert=${pki.ca.cert}`, `--cert=${pki.client.cert}`, `--key=${pki.client.key}`];
  return etcdctl([...tls, '--command-timeout=5s', ...args], { endpoints: tc.cluster.layout.map((m) => m.clientUrl), ...(stdin !== undefined && { stdin }) });
}

/** A TLS connection to the first member, offering `alpn` (none: the member sniffs the bytes). */
function tlsSocket(alpn: string[] = ['h2']): TLSSocket {
  return connectTls({
    host: '127.0.0.1',
    port,
    servername: 'localhost',
    ca: readFileSync(pki.ca.cert),
    cert: readFileSync(pki.client.cert),
    key: readFileSync(pki.client.key),
    ...(alpn.length > 0 && { ALPNProtocols: alpn }),
  });
}

/** An HTTP/2 connection that sends `frames` after the preface and an empty SETTINGS. */
function h2(frames: Buffer[], waitMs = 5_000, until?: (f: string[]) => boolean): Promise<Answer> {
  return exchange(tlsSocket(), [PREFACE, frame(T.SETTINGS, 0, 0), ...frames], waitMs, until);
}

const answered = (stream: number) => (f: string[]) => f.some((x) => x.startsWith(`HEADERS ${stream}`) || x.startsWith(`RST_STREAM ${stream}`) || x.startsWith('GOAWAY'));

/** One 4000-octet entry added to the table, then `refs` one-byte references to it. */
function bomb(refs: number): Buffer {
  return Buffer.concat([grpcRequestBlock(RANGE, authority, 'https'), literal('x-a', 'a'.repeat(4000), true), Buffer.alloc(refs, 0xbe)]);
}

function membersRunning(): string[] {
  return tc.cluster.layout.filter((m) => tc.cluster.member(m.name).running).map((m) => m.name);
}

function gatewayPut(valueBytes: number, declaredLength?: number): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({ key: Buffer.from('/gateway/big').toString('base64'), value: Buffer.alloc(valueBytes, 1).toString('base64') });
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/v3/kv/put', method: 'POST', servername: 'localhost', ca: readFileSync(pki.ca.cert), cert: readFileSync(pki.client.cert), key: readFileSync(pki.client.key), headers: { 'content-length': declaredLength ?? Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    // A member may close before reading the whole body; its answer came first.
    req.on('error', reject);
    req.end(body);
  });
}

function httpsGet(path: string, method: string, origin?: string): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, servername: 'localhost', ca: readFileSync(pki.ca.cert), cert: readFileSync(pki.client.cert), key: readFileSync(pki.client.key), headers: origin ? { origin } : {} }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  tc = await startTestCluster(TARGET, PORT_BASE, 30_000, { tls: true, extraFlags: ['--cors', ALLOWED_ORIGIN] });
  pki = tc.cluster.pki!;
  port = Number(new URL(tc.cluster.layout[0]!.clientUrl).port);
  authority = `localhost:${port}`;
  for (const [k, v] of KEYS) expect((await ctl(['put', k, v])).stdout.trim()).toBe('OK');
}, 60_000);
afterAll(reapClusters);

describe(`members under hostile clients (${TARGET})`, { timeout: 30_000 }, () => {
  it('a well-formed raw request is answered (the frames below are right but for what each case breaks)', async () => {
    const a = await h2([...headerFrames(1, grpcRequestBlock(RANGE, authority, 'https'), false), frame(T.DATA, F.END_STREAM, 1, RANGE_BODY)], 10_000, answered(1));
    expect(a.frames).toContain('HEADERS 1');
    expect(a.closed).toBe(false);
  });

  it('garbage after the TLS handshake: the connection is closed', async () => {
    const a = await exchange(tlsSocket(), [Buffer.alloc(300, 0xff)], 10_000);
    expect(a.closed).toBe(true);
    expect(a.frames).toEqual(want({ etcd: [], pilothouse: ['SETTINGS', 'GOAWAY INTERNAL_ERROR'] }));
  });

  it('HTTP/2 garbage after the preface (a 16 MB DATA frame header, then noise): GOAWAY FRAME_SIZE_ERROR', async () => {
    const a = await h2([Buffer.from([0xff, 0xff, 0xff, T.DATA, 0, 0, 0, 0, 1]), Buffer.alloc(300, 0xff)], 10_000);
    expect(a.frames.filter((f) => f.startsWith('GOAWAY'))).toEqual(['GOAWAY FRAME_SIZE_ERROR']);
    expect(a.closed).toBe(true);
  });

  it('an HPACK expansion bomb (19 KB referring 15,000 times to a 4 KB entry) is refused on its stream', async () => {
    const a = await h2(headerFrames(1, bomb(15_000), true), 10_000, answered(1));
    // Go's net/http2 answers a header list over its limit with a 431 response; nghttp2 resets the stream.
    expect(a.frames).toContain(want({ etcd: 'HEADERS 1', pilothouse: 'RST_STREAM 1 ENHANCE_YOUR_CALM' }));
    expect(a.closed).toBe(false);
  });

  it('an HPACK bomb after a request whose :authority had to be repaired is never re-encoded', async () => {
    const first = headerFrames(1, grpcRequestBlock(RANGE, `https://${authority}`, 'https'), false);
    const a = await h2([...first, frame(T.DATA, F.END_STREAM, 1, RANGE_BODY), ...headerFrames(3, bomb(50_000), true)], 10_000, answered(3));
    // etcd takes the URL :authority as it is and answers 431 as above; here the filter ends the connection.
    expect(a.frames).toContain(want({ etcd: 'HEADERS 3', pilothouse: 'GOAWAY ENHANCE_YOUR_CALM' }));
  });

  it('a CONTINUATION flood (a HEADERS without END_HEADERS, then 5,000 empty CONTINUATIONs)', async () => {
    const flood = Array.from({ length: 5_000 }, () => frame(T.CONTINUATION, 0, 1));
    const a = await h2([frame(T.HEADERS, 0, 1, grpcRequestBlock(RANGE, authority, 'https')), ...flood], 5_000);
    // Debian's etcd 3.4 keeps reading (its x/net predates the CONTINUATION limit).
    expect({ goaway: a.frames.filter((f) => f.startsWith('GOAWAY')), closed: a.closed }).toEqual(
      want({ etcd: { goaway: [], closed: false }, pilothouse: { goaway: ['GOAWAY INTERNAL_ERROR'], closed: true } }),
    );
  });

  it('a header table size update above the 4096 advertised is a COMPRESSION_ERROR', async () => {
    const block = Buffer.concat([Buffer.from([0x3f, 0xe2, 0x1f]), grpcRequestBlock(RANGE, authority, 'https')]); // update to 4097
    const a = await h2(headerFrames(1, block, true), 10_000);
    expect(a.frames.filter((f) => f.startsWith('GOAWAY') || f.startsWith('HEADERS'))).toEqual(['GOAWAY COMPRESSION_ERROR']);
    expect(a.closed).toBe(true);
  });

  it('a huge SETTINGS_HEADER_TABLE_SIZE from the client is acknowledged and the connection serves', async () => {
    const settings = Buffer.alloc(6);
    settings.writeUInt16BE(0x1, 0);
    settings.writeUInt32BE(0xffffffff, 2);
    const a = await exchange(
      tlsSocket(),
      [PREFACE, frame(T.SETTINGS, 0, 0, settings), ...headerFrames(1, grpcRequestBlock(RANGE, authority, 'https'), false), frame(T.DATA, F.END_STREAM, 1, RANGE_BODY)],
      10_000,
      answered(1),
    );
    expect(a.frames).toContain('SETTINGS ACK');
    expect(a.frames).toContain('HEADERS 1');
  });

  it('plaintext on the TLS port: no HTTP answer, the connection is closed', async () => {
    const a = await exchange(connectTcp(port, '127.0.0.1'), [Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\n\r\n')], 10_000);
    expect(a.closed).toBe(true);
    expect(a.rest).not.toMatch(/^HTTP\//);
  });

  it('a TLS connection that sends nothing is closed by the protocol sniffer', async () => {
    const started = Date.now();
    const a = await exchange(tlsSocket([]), [], 12_000);
    // etcd (cmux without a read timeout) keeps it open.
    expect(a.closed).toBe(want({ etcd: false, pilothouse: true }));
    if (TARGET === 'pilothouse') expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);
  });

  it('a TCP connection to the TLS port that never starts a handshake is closed', async () => {
    const a = await exchange(connectTcp(port, '127.0.0.1'), [], 15_000);
    // etcd has no handshake deadline and keeps it open.
    expect(a.closed).toBe(want({ etcd: false, pilothouse: true }));
  });

  it('gateway: a body over max-request-bytes is "request is too large"; over the gRPC limit, ResourceExhausted', async () => {
    expect(await gatewayPut(1_600_000)).toEqual({ status: 400, body: JSON.stringify({ error: 'etcdserver: request is too large', message: 'etcdserver: request is too large', code: 3 }) });
    const tooLarge = 'grpc: received message larger than max (3000019 vs. 2097152)';
    expect(await gatewayPut(3_000_000)).toEqual({ status: 429, body: JSON.stringify({ error: tooLarge, message: tooLarge, code: 8 }) });
    // Past twice the limit the member stops reading and names the body's size.
    const huge = await gatewayPut(9_000_000);
    expect(huge.status).toBe(429);
    expect(JSON.parse(huge.body)).toMatchObject({ code: 8, error: expect.stringMatching(/^grpc: received message larger than max \(\d+ vs\. 2097152\)$/) });
  });

  it('--cors: an allowed origin is echoed, another gets no CORS headers, OPTIONS is answered 200', async () => {
    const allowed = await httpsGet('/health', 'GET', ALLOWED_ORIGIN);
    expect(allowed.headers['access-control-allow-origin']).toBe(ALLOWED_ORIGIN);
    expect(allowed.headers['access-control-allow-methods']).toBe('POST, GET, OPTIONS, PUT, DELETE');
    const other = await httpsGet('/health', 'GET', 'http://evil.example:80');
    expect(other.status).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect((await httpsGet('/v3/kv/put', 'OPTIONS', 'http://evil.example:80')).status).toBe(200);
  });

  it('a value over max-request-bytes through etcd3: "etcdserver: request is too large"', async () => {
    const client = new Etcd3({
      hosts: tc.cluster.layout[0]!.clientUrl,
      credentials: { rootCertificate: readFileSync(pki.ca.cert), certChain: readFileSync(pki.client.cert), privateKey: readFileSync(pki.client.key) },
      dialTimeout: 5_000,
    });
    try {
      await expect(client.put('/big').value(Buffer.alloc(1_600_000, 1))).rejects.toThrow('etcdserver: request is too large');
    } finally {
      client.close();
    }
  });

  it('a txn of 129 operations through etcdctl: "etcdserver: too many operations in txn request"', async () => {
    const puts = Array.from({ length: 129 }, (_, i) => `put /txn/${i} v`).join('\n');
    const r = await ctl(['txn'], `\n${puts}\n\n\n`);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n').at(-1)).toBe('Error: etcdserver: too many operations in txn request');
  });

  it('garbage and an HPACK bomb on a peer port (with a member\'s peer certificate) cost that connection only', async () => {
    const peer = pki.members.get('m2')!.peer;
    const peerSocket = () =>
      connectTls({ host: '127.0.0.1', port: Number(new URL(tc.cluster.layout[0]!.peerUrl).port), servername: 'localhost', ca: readFileSync(pki.ca.cert), cert: readFileSync(peer.cert), key: readFileSync(peer.key), ALPNProtocols: ['h2'] });
    const garbage = await exchange(peerSocket(), [PREFACE, Buffer.alloc(300, 0xff)], 10_000);
    expect(garbage.closed).toBe(true);
    const bombed = await exchange(peerSocket(), [PREFACE, frame(T.SETTINGS, 0, 0), ...headerFrames(1, bomb(15_000), true)], 10_000, answered(1));
    // etcd's peer port speaks HTTP/1.1 (rafthttp) and drops an HTTP/2 preface; ours is gRPC, which refuses the stream.
    const refused = bombed.frames.some((f) => /^(HEADERS|RST_STREAM) 1/.test(f) || f.startsWith('GOAWAY'));
    expect(want({ etcd: bombed.closed, pilothouse: refused })).toBe(true);
    expect((await ctl(['put', '/after/peer', 'ok'])).stdout.trim()).toBe('OK');
  });

  it('afterwards: every member is running, every key is intact and etcdctl works', async () => {
    expect(membersRunning(), memberLogTails(tc.cluster)).toEqual(tc.cluster.layout.map((m) => m.name));
    const r = await ctl(['get', '/before/', '--prefix', '-w', 'json']);
    const kvs = (JSON.parse(r.stdout) as { kvs: { key: string; value: string }[] }).kvs.map((kv) => [Buffer.from(kv.key, 'base64').toString(), Buffer.from(kv.value, 'base64').toString()]);
    expect(kvs.sort()).toEqual([...KEYS].map(([k, v]) => [k, v]).sort());
    expect((await ctl(['endpoint', 'health'])).code).toBe(0);
    expect((await ctl(['get', '/txn/0'])).stdout).toBe('');
  });
});

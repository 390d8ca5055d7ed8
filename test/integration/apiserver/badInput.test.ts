// Hostile input against a real API server (harness: three members with TLS,
// `pilothouse apiserver` as `pilothouse up` runs it): malformed request
// lines and targets, oversized heads, bad lengths and chunking, bodies that
// do not decode, bad patches, bad list options, encoded traversal, unknown
// methods, bad credentials. Each case gets the answer kube-apiserver (or Go's
// net/http in front of it) gives; afterwards the API server is the same
// process, its log shows no crash, and the objects written before are intact.
// Raw TLS sockets carry the requests Node's HTTP client will not send.
// Ports 20100–20106.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';
import { openTls, parseResponse, rawExchange, type RawOptions } from '../../support/rawTls';

const PORT_BASE = 20100;
let api: TestApiServer;
let pid: number | undefined;
let admin: RawOptions;
const before = new Map<string, { resourceVersion: string; data: unknown }>();

const GO_400 = 'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request';
const goStatus = (line: string, body = line.replace(/^HTTP\/1\.1 /, '')) => `${line}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${body}`;

/** One HTTP/1.1 request as the admin (client certificate), `Connection: close`. */
function request(method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}, opts: RawOptions = admin) {
  const h: Record<string, string> = { Host: '127.0.0.1', Connection: 'close', ...headers };
  if (body !== undefined && h['Content-Length'] === undefined && h['Transfer-Encoding'] === undefined) h['Content-Length'] = String(Buffer.byteLength(body));
  const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(h).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  return rawExchange(api.layout.port, body === undefined ? head : [head, body], opts).then((r) => ({ ...r, ...parseResponse(r.text) }));
}

/** The metav1.Status of a response (asserting it is one). */
function statusOf(r: { body: string; headers: Record<string, string> }) {
  expect(r.headers['content-type']).toBe('application/json');
  return JSON.parse(r.body) as { code: number; reason?: string; message: string };
}

beforeAll(async () => {
  api = await startTestApiServer(PORT_BASE);
  pid = api.proc.pid;
  admin = { cert: readFileSync(api.layout.pki.admin.cert), key: readFileSync(api.layout.pki.admin.key) };
  for (let i = 0; i < 5; i++) {
    const r = await api.kubectl(['create', 'configmap', `keep-${i}`, `--from-literal=k=v${i}`]);
    expect(r.stderr).toBe('');
  }
  const list = await api.kubectl(['get', 'configmaps', '-o', 'json']);
  for (const cm of (JSON.parse(list.stdout) as { items: { metadata: { name: string; resourceVersion: string }; data: unknown }[] }).items) {
    before.set(cm.metadata.name, { resourceVersion: cm.metadata.resourceVersion, data: cm.data });
  }
}, 180_000);

afterAll(async () => {
  await reapApiServers();
});

describe('what Go net/http refuses before kube-apiserver sees it', () => {
  const cases: { name: string; payload: string; want: string }[] = [
    { name: 'unparsable absolute target (the request that once ended the process)', payload: 'GET http://[ HTTP/1.1\r\nHost: x\r\n\r\n', want: GO_400 },
    { name: 'bad percent escape in the path', payload: 'GET /api/%zz HTTP/1.1\r\nHost: x\r\n\r\n', want: GO_400 },
    { name: 'target without a leading slash', payload: 'GET api/v1 HTTP/1.1\r\nHost: x\r\n\r\n', want: GO_400 },
    { name: 'absolute target with a bad port', payload: 'GET https://h:99999999/api HTTP/1.1\r\nHost: x\r\n\r\n', want: GO_400 },
    { name: 'garbage request line', payload: '\x16\x03\x01garbage\r\n\r\n', want: GO_400 },
    { name: 'request line without a version', payload: 'GET /api\r\nHost: x\r\n\r\n', want: GO_400 },
    { name: 'HTTP/3.1 request line', payload: 'GET /api HTTP/3.1\r\nHost: x\r\n\r\n', want: goStatus('HTTP/1.1 505 HTTP Version Not Supported') },
    { name: 'HTTP/2.0 on an HTTP/1 request line', payload: 'GET /api HTTP/2.0\r\nHost: x\r\n\r\n', want: goStatus('HTTP/1.1 505 HTTP Version Not Supported') },
    { name: 'HTTP/1.1 without Host', payload: 'GET /version HTTP/1.1\r\n\r\n', want: goStatus('HTTP/1.1 400 Bad Request: missing required Host header') },
    { name: 'two Host headers', payload: 'GET /version HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n', want: goStatus('HTTP/1.1 400 Bad Request: too many Host headers') },
    { name: 'header line without a colon', payload: 'GET /version HTTP/1.1\r\nHost: x\r\nnocolon\r\n\r\n', want: GO_400 },
    { name: 'Content-Length that is not a number', payload: 'POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}', want: GO_400 },
    { name: 'two different Content-Lengths', payload: 'POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}', want: GO_400 },
    { name: 'negative Content-Length', payload: 'POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n{}', want: GO_400 },
    { name: 'a transfer coding net/http does not know', payload: 'POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n', want: goStatus('HTTP/1.1 501 Not Implemented', 'Unsupported transfer encoding') },
    { name: 'a method token Node cannot parse', payload: 'BR(EW /api HTTP/1.1\r\nHost: x\r\n\r\n', want: GO_400 },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const r = await rawExchange(api.layout.port, c.payload, admin);
      expect(r.text).toBe(c.want);
      expect(r.closed).toBe(true);
    });
  }

  it('a malformed chunk size ends the request with 400 and closes the connection', async () => {
    const r = await rawExchange(
      api.layout.port,
      ['POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n', 'zz\r\n{}\r\n0\r\n\r\n'],
      admin,
    );
    expect(r.text).toBe(GO_400);
    expect(r.closed).toBe(true);
  });

  it('a request line and headers past MaxHeaderBytes (1 MiB) are 431; a 200 KiB header is served', async () => {
    const longUrl = await rawExchange(api.layout.port, `GET /api/v1/namespaces?x=${'a'.repeat(1_100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, admin);
    expect(longUrl.text).toBe(goStatus('HTTP/1.1 431 Request Header Fields Too Large'));
    const bigHeader = await rawExchange(api.layout.port, `GET /version HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(1_100_000)}\r\n\r\n`, admin);
    expect(bigHeader.text).toBe(goStatus('HTTP/1.1 431 Request Header Fields Too Large'));
    const r = await request('GET', '/version', undefined, { 'X-Big': 'c'.repeat(200_000) });
    expect(r.code).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ major: '1' });
  });

  it('an absolute-form target is served by its path, as net/http does', async () => {
    const r = await request('GET', 'https://elsewhere.example:6443/version');
    expect(r.code).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ major: '1' });
  });
});

describe('bodies kube cannot decode', () => {
  const cm = '/api/v1/namespaces/default/configmaps';
  const cases: { name: string; body: string | Buffer; type: string; code: number; reason: string; message: string }[] = [
    {
      name: 'truncated JSON',
      body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"t"',
      type: 'application/json',
      code: 400,
      reason: 'BadRequest',
      message: 'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":"v1","kind":"Con ...)',
    },
    {
      name: 'JSON nested past 10000 levels',
      body: `{"a":${'['.repeat(10_001)}${']'.repeat(10_001)}}`,
      type: 'application/json',
      code: 400,
      reason: 'BadRequest',
      message: 'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: invalid character \'[\' exceeded max depth ({"a":[[[[[[[[[[[[[[[[[[[[[[[[[ ...)',
    },
    {
      name: 'a YAML alias bomb',
      body: ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...'bcdefgh'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(',')}]`)].join('\n'),
      type: 'application/yaml',
      code: 400,
      reason: 'BadRequest',
      message: 'the object provided is unrecognized (must be of type ConfigMap): error converting YAML to JSON: yaml: document contains excessive aliasing (a: &a ["x","x","x","x","x","x" ...)',
    },
    {
      name: 'protobuf without the k8s magic',
      body: Buffer.from('garbage!'),
      type: 'application/vnd.kubernetes.protobuf',
      code: 400,
      reason: 'BadRequest',
      message: 'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (garbage!)',
    },
    {
      name: 'a content type kube does not decode',
      body: 'x',
      type: 'text/plain',
      code: 415,
      reason: 'UnsupportedMediaType',
      message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    },
    {
      name: 'an unparsable content type',
      body: '{}',
      type: ';;;',
      code: 415,
      reason: 'UnsupportedMediaType',
      message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const r = await request('POST', cm, c.body, { 'Content-Type': c.type });
      expect(r.code).toBe(c.code);
      expect(statusOf(r)).toMatchObject({ code: c.code, reason: c.reason, message: c.message });
    });
  }

  it('protobuf garbage after the magic is a 400, not a crash', async () => {
    const r = await request('POST', cm, Buffer.concat([Buffer.from('k8s\0'), Buffer.from('ffffffff0f0102', 'hex')]), { 'Content-Type': 'application/vnd.kubernetes.protobuf' });
    expect(r.code).toBe(400);
    expect(statusOf(r).message).toMatch(/^the object provided is unrecognized \(must be of type ConfigMap\): /);
  });

  it('a body past 3 MiB is 413 and the connection closes', async () => {
    const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"k":"${'x'.repeat(3 * 1024 * 1024)}"}}`;
    const r = await request('POST', cm, body, { 'Content-Type': 'application/json', Connection: 'keep-alive' });
    expect(r.code).toBe(413);
    expect(statusOf(r)).toMatchObject({ code: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728' });
    expect(r.headers.connection).toBe('close');
    expect(r.closed).toBe(true);
  });
});

describe('bad patches, list options, paths, methods and credentials', () => {
  const item = '/api/v1/namespaces/default/configmaps/keep-0';
  const cases: { name: string; method: string; path: string; body?: string; headers?: Record<string, string>; code: number; reason?: string; message: string }[] = [
    { name: 'JSON patch that is not JSON', method: 'PATCH', path: item, body: '[{"op":', headers: { 'Content-Type': 'application/json-patch+json' }, code: 400, reason: 'BadRequest', message: 'unexpected end of JSON input' },
    { name: 'JSON patch that is not a list', method: 'PATCH', path: item, body: '{"op":"add"}', headers: { 'Content-Type': 'application/json-patch+json' }, code: 400, reason: 'BadRequest', message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch' },
    { name: 'merge patch that is not JSON', method: 'PATCH', path: item, body: '{"data":', headers: { 'Content-Type': 'application/merge-patch+json' }, code: 400, reason: 'BadRequest', message: 'error decoding patch: unexpected end of JSON input' },
    { name: 'strategic merge patch that is not JSON', method: 'PATCH', path: item, body: '{"data":', headers: { 'Content-Type': 'application/strategic-merge-patch+json' }, code: 400, reason: 'BadRequest', message: 'unexpected end of JSON input' },
    { name: 'apply patch without a field manager', method: 'PATCH', path: item, body: '{}', headers: { 'Content-Type': 'application/apply-patch+yaml' }, code: 422, reason: 'Invalid', message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch' },
    { name: 'PATCH without Content-Type', method: 'PATCH', path: item, body: '{}', code: 415, reason: 'UnsupportedMediaType', message: 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json' },
    { name: 'limit that is not a number', method: 'GET', path: '/api/v1/namespaces/default/configmaps?limit=abc', code: 400, reason: 'BadRequest', message: 'strconv.ParseInt: parsing "abc": invalid syntax' },
    { name: 'label selector that does not parse', method: 'GET', path: '/api/v1/namespaces/default/configmaps?labelSelector=a%20in%20(', code: 400, reason: 'BadRequest', message: 'unable to parse requirement: found \'\', expected: \',\', \')\' or identifier' },
    { name: 'field selector on a field configmaps do not have', method: 'GET', path: '/api/v1/namespaces/default/configmaps?fieldSelector=spec.x%3Dy', code: 400, reason: 'BadRequest', message: 'field label not supported: spec.x' },
    { name: 'resourceVersion that is not a number', method: 'GET', path: '/api/v1/namespaces/default/configmaps?resourceVersion=abc&resourceVersionMatch=NotOlderThan', code: 400, reason: 'BadRequest', message: 'invalid resource version "abc"' },
    { name: 'timeout that is not a duration', method: 'GET', path: '/api/v1/namespaces/default/configmaps?timeout=abc', code: 400, reason: 'BadRequest', message: 'invalid timeout specified in the request URL - time: invalid duration "abc"' },
    { name: 'encoded .. as a name', method: 'GET', path: '/api/v1/namespaces/default/configmaps/%2e%2e', code: 400, reason: 'BadRequest', message: 'Name parameter invalid: "..": may not be \'..\'' },
    { name: 'encoded % in a name', method: 'GET', path: '/api/v1/namespaces/default/configmaps/a%25b', code: 400, reason: 'BadRequest', message: 'Name parameter invalid: "a%b": may not contain \'%\'' },
    // Go's URL.Path is decoded before kube splits it: namespace kube-system, resource secrets, name configmaps.
    { name: 'encoded / splits the path as Go does', method: 'GET', path: '/api/v1/namespaces/kube-system%2Fsecrets/configmaps', code: 404, reason: 'NotFound', message: 'secrets "configmaps" not found' },
    { name: 'a method kube has no verb for', method: 'PROPFIND', path: '/api/v1/namespaces/default/configmaps', code: 405, reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const r = await request(c.method, c.path, c.body, c.headers ?? {});
      expect(r.code).toBe(c.code);
      expect(statusOf(r)).toMatchObject({ code: c.code, reason: c.reason, message: c.message });
    });
  }

  it('encoded .. as a namespace lists nothing (it is not resolved into a cluster-wide list)', async () => {
    const r = await request('GET', '/api/v1/namespaces/%2e%2e/configmaps');
    expect(r.code).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ kind: 'ConfigMapList', items: [] });
  });

  it('a garbage bearer token is 401', async () => {
    const r = await request('GET', '/api/v1/namespaces', undefined, { Authorization: 'Bearer garbage.garbage.garbage' }, {});
    expect(r.code).toBe(401);
    expect(statusOf(r)).toMatchObject({ code: 401, reason: 'Unauthorized', message: 'Unauthorized' });
  });

  it('a client certificate from another CA is 401', async () => {
    const { cert, key } = foreignClientCert();
    const r = await request('GET', '/api/v1/namespaces', undefined, {}, { cert, key });
    expect(r.code).toBe(401);
    expect(statusOf(r)).toMatchObject({ code: 401, reason: 'Unauthorized', message: 'Unauthorized' });
  });
});

describe('slow clients', () => {
  it('300 slowloris connections do not keep a normal kubectl request from being served', async () => {
    const sockets = await Promise.all(Array.from({ length: 300 }, () => openTls(api.layout.port, admin)));
    let closedByServer = 0;
    for (const s of sockets) {
      s.on('error', () => {});
      s.once('close', () => closedByServer++);
      s.write('GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    }
    // One more header byte now and then, never the end of the head.
    const drip = setInterval(() => {
      for (const s of sockets) if (!s.destroyed) s.write('a');
    }, 1000);
    try {
      const t0 = Date.now();
      const r = await api.kubectl(['get', 'configmap', 'keep-1', '-o', 'jsonpath={.data.k}']);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe('v1');
      expect(Date.now() - t0).toBeLessThan(15_000);
      // net/http's ReadHeaderTimeout (32 s) ends them.
      await expect.poll(() => closedByServer, { timeout: 60_000, interval: 500 }).toBe(300);
    } finally {
      clearInterval(drip);
      for (const s of sockets) s.destroy();
    }
  }, 90_000);
});

describe('afterwards', () => {
  it('the API server is the same process, logged no crash, and every object written before is intact', async () => {
    expect(api.proc.running).toBe(true);
    expect(api.proc.pid).toBe(pid);
    const log = readFileSync(api.layout.logFile, 'utf8');
    expect(log.split('\n').filter((l) => /uncaught exception|unhandled rejection|panic serving/.test(l))).toEqual([]);
    const list = await apiRequest(api.layout, 'GET', '/api/v1/namespaces/default/configmaps');
    const items = (list.json().items as { metadata: { name: string; resourceVersion: string }; data: unknown }[]).filter((i) => before.has(i.metadata.name));
    expect(new Map(items.map((i) => [i.metadata.name, { resourceVersion: i.metadata.resourceVersion, data: i.data }]))).toEqual(before);
  });
});

/** A self-signed CA and a client certificate it signed (CN=mallory, O=system:masters): not the cluster's CA. */
function foreignClientCert(): { cert: Buffer; key: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'foreign-ca-'));
  const ssl = (...args: string[]) => execFileSync('/usr/bin/openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=foreign-ca', '-days', '1');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'c.key', '-out', 'c.csr', '-subj', '/CN=mallory/O=system:masters');
  ssl('x509', '-req', '-in', 'c.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'c.crt', '-days', '1');
  const pair = { cert: readFileSync(join(dir, 'c.crt')), key: readFileSync(join(dir, 'c.key')) };
  rmSync(dir, { recursive: true, force: true });
  return pair;
}

// --request-timeout and --max-mutating-requests-inflight against a real API
// server (harness), with small values so they can be reached: a request
// whose body never completes holds a mutating slot until the timeout answers
// it with kube's 504 Timeout Status; meanwhile another user's mutating
// request is kube's 429 (plain text, Retry-After: 1), system:masters is
// still served, and a watch (long-running) holds no slot. Ports 20110–20116.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapApiServers, run, startTestApiServer, KUBECTL, type TestApiServer } from '../../support/apiserver';
import { openTls, parseResponse, rawExchange, type RawOptions } from '../../support/rawTls';

const PORT_BASE = 20110;
let api: TestApiServer;
let admin: RawOptions;
let jane: RawOptions;

const CREATE = '/api/v1/namespaces/default/configmaps';
const cmBody = (name: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"}}`;
const post = (path: string, body: string, opts: RawOptions) =>
  rawExchange(api.layout.port, `POST ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`, opts).then((r) => parseResponse(r.text));

beforeAll(async () => {
  api = await startTestApiServer(PORT_BASE, ['--request-timeout=4s', '--max-mutating-requests-inflight=1']);
  admin = { cert: readFileSync(api.layout.pki.admin.cert), key: readFileSync(api.layout.pki.admin.key) };
  jane = clientCert(api.layout.pki.ca.cert, api.layout.pki.ca.key, '/CN=jane/O=dev');
  // jane may create configmaps in default (so only the limit can refuse her).
  for (const args of [
    ['create', 'role', 'cm-writer', '--verb=create,get,list,watch', '--resource=configmaps'],
    ['create', 'rolebinding', 'jane-cm', '--role=cm-writer', '--user=jane'],
  ]) {
    const r = await api.kubectl(args);
    expect(r.stderr).toBe('');
  }
}, 180_000);

afterAll(async () => {
  await reapApiServers();
});

describe('request limits', () => {
  it('a stalled body holds the one mutating slot: others get 429, system:masters is served, the stalled request gets 504 at the timeout', async () => {
    const stalled = await openTls(api.layout.port, admin);
    let text = '';
    stalled.setEncoding('latin1').on('data', (d: string) => (text += d));
    const closed = new Promise<void>((r) => stalled.once('close', () => r()));
    const t0 = Date.now();
    stalled.write(`POST ${CREATE} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"apiVersion"`);

    // Wait until the stalled request holds the slot (jane's create is refused), then check the answer.
    let refused: ReturnType<typeof parseResponse> | undefined;
    await expect
      .poll(async () => {
        refused = await post(CREATE, cmBody('jane-1'), jane);
        return refused.code;
      }, { timeout: 3000, interval: 100 })
      .toBe(429);
    expect(refused!.headers['retry-after']).toBe('1');
    expect(refused!.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(refused!.body).toBe('Too many requests, please try again later.\n');

    // system:masters is always served; reads are not limited by the mutating limit.
    const masters = await post(CREATE, cmBody('admin-1'), admin);
    expect(masters.code).toBe(201);
    const read = await run(KUBECTL, ['get', 'configmap', 'admin-1', '-o', 'name'], { KUBECONFIG: api.layout.kubeconfig, HOME: api.home });
    expect(read.stdout.trim()).toBe('configmap/admin-1');

    await closed;
    const timedOut = parseResponse(text);
    expect(timedOut.code).toBe(504);
    expect(JSON.parse(timedOut.body)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
      reason: 'Timeout',
      details: {},
      code: 504,
    });
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(3900);
    expect(took).toBeLessThan(12_000);

    // The slot is free again.
    await expect.poll(async () => (await post(CREATE, cmBody('jane-2'), jane)).code, { timeout: 10_000, interval: 200 }).toBe(201);
  }, 60_000);

  it('?timeout= shortens the request timeout', async () => {
    const t0 = Date.now();
    const r = await rawExchange(
      api.layout.port,
      `POST ${CREATE}?timeout=1s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
      { ...admin, waitMs: 15_000 },
    );
    const res = parseResponse(r.text);
    expect(res.code).toBe(504);
    expect(JSON.parse(res.body)).toMatchObject({ reason: 'Timeout', message: 'Timeout: request did not complete within requested timeout - context deadline exceeded' });
    expect(Date.now() - t0).toBeLessThan(3900);
  }, 30_000);

  it('a watch outlives the request timeout and holds no mutating slot', async () => {
    const watch = await openTls(api.layout.port, jane);
    let text = '';
    watch.setEncoding('latin1').on('data', (d: string) => (text += d));
    watch.write(`GET ${CREATE}?watch=true HTTP/1.1\r\nHost: x\r\n\r\n`);
    await expect.poll(() => text, { timeout: 10_000 }).toContain('HTTP/1.1 200 OK');
    await new Promise((r) => setTimeout(r, 5000)); // past --request-timeout=4s: a watch is not bounded by it
    expect(watch.destroyed).toBe(false);
    const created = await post(CREATE, cmBody('jane-3'), jane);
    expect(created.code).toBe(201);
    await expect.poll(() => text, { timeout: 10_000 }).toContain('"name":"jane-3"');
    watch.destroy();
  }, 40_000);
});

/** A client certificate signed by the cluster CA for `subject`. */
function clientCert(caCert: string, caKey: string, subject: string): RawOptions {
  const dir = mkdtempSync(join(tmpdir(), 'client-cert-'));
  const ssl = (...args: string[]) => execFileSync('/usr/bin/openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'c.key', '-out', 'c.csr', '-subj', subject);
  ssl('x509', '-req', '-in', 'c.csr', '-CA', caCert, '-CAkey', caKey, '-CAcreateserial', '-CAserial', join(dir, 'ca.srl'), '-out', 'c.crt', '-days', '1');
  const pair = { cert: readFileSync(join(dir, 'c.crt')), key: readFileSync(join(dir, 'c.key')) };
  rmSync(dir, { recursive: true, force: true });
  return pair;
}

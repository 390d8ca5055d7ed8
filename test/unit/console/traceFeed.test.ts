// The trace feed against a local HTTPS server that speaks like the API
// server's /debug/pilothouse/traces?watch=true: mutual TLS, NDJSON, a replay
// of the buffer on reconnect (deduplicated), and reconnecting after the
// server drops the stream.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeEventName, BridgeEvents, EventSink, TraceRecord } from '../../../preload/contract';
import { issueCa, issueLeaf } from '../../../main/common/pki/certificates';
import { TraceFeed } from '../../../main/console/traceFeed';
import type { RequestTrace } from '../../../main/kube/requestTrace';
import { eventually } from '../../support/waitFor';

const trace = (id: string, code: number): RequestTrace => ({
  id,
  receivedAt: new Date().toISOString(),
  user: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
  verb: 'create',
  method: 'POST',
  path: '/apis/apps/v1/namespaces/default/deployments',
  apiGroup: 'apps',
  resource: 'deployments',
  namespace: 'default',
  name: 'nginx',
  stages: [{ stage: 'authentication', verdict: 'allow', reason: 'x509', latencyMs: 0.1 }],
  code,
  latencyMs: 3,
});

let dir: string;
let server: Server;
let url: string;
const clientsSeen: string[] = [];
const open: ServerResponse[] = [];
const served: RequestTrace[] = [trace('t1', 201), trace('t2', 409)];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tracefeed-'));
  const ca = await issueCa('test-ca');
  const srv = await issueLeaf(ca, { profile: 'server', commonName: 'apiserver', hosts: ['127.0.0.1'] });
  const cli = await issueLeaf(ca, { profile: 'client', commonName: 'admin' });
  writeFileSync(join(dir, 'ca.crt'), ca.cert);
  writeFileSync(join(dir, 'client.crt'), cli.cert);
  writeFileSync(join(dir, 'client.key'), cli.key);
  server = createServer({ key: srv.key, cert: srv.cert, ca: ca.cert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
    clientsSeen.push(String(peer.subject?.CN ?? ''));
    if (req.url !== '/debug/pilothouse/traces?watch=true') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    for (const t of served) res.write(`${JSON.stringify(t)}\n`);
    open.push(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const r of open) r.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('TraceFeed', () => {
  it('follows the stream with a client certificate, batches, dedupes replays and reconnects', async () => {
    const batches: TraceRecord[][] = [];
    const sink: EventSink = {
      emit<E extends BridgeEventName>(event: E, payload: BridgeEvents[E]) {
        if (event === 'traces') batches.push(payload as TraceRecord[]);
      },
    };
    const feed = new TraceFeed({ url, tls: { caFile: join(dir, 'ca.crt'), certFile: join(dir, 'client.crt'), keyFile: join(dir, 'client.key') }, events: sink });
    feed.start();
    try {
      await eventually('the trace batches', () => batches.flat().length >= 2, { timeoutMs: 5000, intervalMs: 20 });
      expect(clientsSeen[0]).toBe('admin');
      const [first, second] = batches.flat();
      expect(first).toMatchObject({ id: 't1', user: 'admin', verb: 'create', resource: 'deployments', decision: 'allowed', code: 201 });
      expect(second).toMatchObject({ id: 't2', decision: 'denied', code: 409 });
      expect(first.stages).toEqual([{ stage: 'authentication', verdict: 'allow', reason: 'x509', patch: undefined, latencyMs: 0.1 }]);

      // A live trace, then the server drops the stream; on reconnect it replays its buffer.
      open[0].write(`${JSON.stringify(trace('t3', 200))}\n`);
      await eventually('the trace batches', () => batches.flat().length >= 3, { timeoutMs: 5000, intervalMs: 20 });
      served.push(trace('t3', 200), trace('t4', 500));
      open[0].end();
      await eventually('the trace batches', () => batches.flat().length >= 4, { timeoutMs: 5000, intervalMs: 20 });
      expect(batches.flat().map((t) => t.id)).toEqual(['t1', 't2', 't3', 't4']);
      expect(batches.flat()[3].decision).toBe('error');
      expect(feed.recent({ limit: 2 }).map((t) => t.id)).toEqual(['t3', 't4']);
      expect(open.length).toBe(2);
    } finally {
      feed.dispose();
    }
  });
});

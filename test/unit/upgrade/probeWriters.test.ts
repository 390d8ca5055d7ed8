// The probe's etcd writer measures the cluster, not the member its client
// happens to use: a Put that timed out on a member that never answers (a
// follower without a leader) fails, and the next one goes to another member.
// The client alone would stay: a Txn that may have committed is not retried
// and does not move it. Two node:http2 servers stand in for members.

import { createServer, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etcdMethod } from '../../../main/client/etcd/etcdClient';
import { frame } from '../../../main/client/etcd/etcdChannel';
import { etcdProbeWriter } from '../../../main/upgrade/probeWriters';

const TXN_OK = etcdMethod('KV', 'Txn').responseSerialize({ header: { revision: '9' }, succeeded: true, responses: [] }) as Buffer;

describe('etcdProbeWriter', () => {
  let silent: Http2Server;
  let answerer: Http2Server;
  const seen = { silent: 0, answerer: 0 };
  const endpoint = (s: Http2Server) => `127.0.0.1:${(s.address() as AddressInfo).port}`;

  beforeAll(async () => {
    silent = createServer();
    silent.on('stream', (stream) => {
      seen.silent++;
      stream.on('error', () => {});
      stream.on('data', () => {});
    });
    answerer = createServer();
    answerer.on('stream', (stream) => {
      seen.answerer++;
      stream.on('data', () => {});
      stream.on('end', () => {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(frame(TXN_OK));
      });
    });
    await Promise.all([silent, answerer].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
  });

  afterAll(async () => {
    await Promise.all([silent, answerer].map((s) => new Promise((r) => s.close(r))));
  });

  it('moves to the next member after a Put that failed on one', async () => {
    const writer = etcdProbeWriter({ endpoints: [endpoint(silent), endpoint(answerer)], runId: 'unit', writeTimeoutMs: 300 });
    try {
      await expect(writer.write(1, new AbortController().signal)).rejects.toThrow(/DEADLINE_EXCEEDED/);
      await writer.write(2, new AbortController().signal);
      await writer.write(3, new AbortController().signal);
      expect(seen).toEqual({ silent: 1, answerer: 2 });
    } finally {
      writer.close();
    }
  });
});

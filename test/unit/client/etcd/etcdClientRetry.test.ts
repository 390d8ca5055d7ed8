// Which etcd calls the API server's client sends again on another member
// (clientv3's rules): reads, compactions and lease grants after any
// UNAVAILABLE; a Txn only when the first member certainly never processed it.
// Two node:http2 servers stand in for members: "dropper" takes each call and
// drops the connection (the call may have committed), "answerer" answers.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { status } from '@grpc/grpc-js';
import { EtcdClient, EtcdError, etcdMethod } from '../../../../main/client/etcd/etcdClient';
import { frame } from '../../../../main/client/etcd/etcdChannel';

const replies: Record<string, unknown> = {
  '/etcdserverpb.KV/Range': etcdMethod('KV', 'Range').responseSerialize({ header: { revision: '7' }, kvs: [], more: false, count: '0' }),
  '/etcdserverpb.KV/Txn': etcdMethod('KV', 'Txn').responseSerialize({ header: { revision: '8' }, succeeded: true, responses: [] }),
};

describe('EtcdClient retries', () => {
  let dropper: Http2Server;
  let answerer: Http2Server;
  const seen = { dropper: [] as string[], answerer: [] as string[] };
  const endpoint = (s: Http2Server) => `127.0.0.1:${(s.address() as AddressInfo).port}`;

  beforeAll(async () => {
    dropper = createServer();
    dropper.on('stream', (stream, headers) => {
      seen.dropper.push(String(headers[':path']));
      stream.on('error', () => {});
      stream.on('data', () => {});
      stream.on('end', () => stream.session?.destroy());
    });
    answerer = createServer();
    answerer.on('stream', (stream, headers) => {
      const path = String(headers[':path']);
      seen.answerer.push(path);
      stream.on('data', () => {});
      stream.on('end', () => {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(frame(replies[path] as Buffer));
      });
    });
    await Promise.all([dropper, answerer].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
  });

  afterAll(async () => {
    await Promise.all([dropper, answerer].map((s) => new Promise((r) => s.close(r))));
  });

  it('a read whose connection drops is read again on the next member', async () => {
    const client = new EtcdClient({ endpoints: [endpoint(dropper), endpoint(answerer)] });
    try {
      seen.dropper.length = seen.answerer.length = 0;
      const r = await client.range({ key: '/registry/x' });
      expect(r.revision).toBe(7n);
      expect([seen.dropper, seen.answerer]).toEqual([['/etcdserverpb.KV/Range'], ['/etcdserverpb.KV/Range']]);
    } finally {
      client.close();
    }
  });

  it('a Txn the member may have processed is not sent again: the caller gets UNAVAILABLE; one never sent goes to the next member', async () => {
    const client = new EtcdClient({ endpoints: [endpoint(dropper), endpoint(answerer)] });
    try {
      seen.dropper.length = seen.answerer.length = 0;
      const err = await client.txn([{ key: '/registry/x', modRevision: 0n }], [{ put: { key: '/registry/x', value: Buffer.from('v') } }], []).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(EtcdError);
      expect((err as EtcdError).code).toBe(status.UNAVAILABLE);
      expect([seen.dropper, seen.answerer]).toEqual([['/etcdserverpb.KV/Txn'], []]);

      // The client moved on to the answerer; with nothing listening at the first endpoint, a Txn is never sent there and goes on.
      const down = createServer();
      await new Promise<void>((r) => down.listen(0, '127.0.0.1', r));
      const closedPort = endpoint(down);
      await new Promise((r) => down.close(r));
      const fresh = new EtcdClient({ endpoints: [closedPort, endpoint(answerer)] });
      try {
        const res = await fresh.txn([{ key: '/registry/y', modRevision: 0n }], [{ put: { key: '/registry/y', value: Buffer.from('v') } }], []);
        expect([res.succeeded, res.revision]).toEqual([true, 8n]);
        expect(seen.answerer).toEqual(['/etcdserverpb.KV/Txn']);
      } finally {
        fresh.close();
      }
    } finally {
      client.close();
    }
  });
});

// The API server's gRPC channel, both transports (our own HTTP/2 client and
// grpc-js, etcdChannel.ts) through one suite, against a plain node:http2
// server that answers the way grpc servers do (the etcd store suites run it
// against our members and Debian's etcd): message framing across any chunk
// boundaries, status from trailers or a trailers-only reply, HTTP and reset
// codes mapped as grpc-go maps them, deadlines, and a refused connection as
// UNAVAILABLE. Then what only our own client bounds: the wait for a server
// that allows no streams.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, constants, type Http2Server, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { status } from '@grpc/grpc-js';
import { frame, GrpcCallError, type ChannelOptions, type EtcdChannel } from '../../../../main/client/etcd/etcdChannel';
import { GrpcChannel, MessageReader } from '../../../../main/client/etcd/grpcChannel';
import { GrpcJsChannel } from '../../../../main/client/etcd/grpcJsChannel';
import { DEFAULT_MAX_WAITING_STREAMS } from '../../../../main/client/etcd/http2Connection';

const transports: { name: string; make: (url: string, opts: ChannelOptions) => EtcdChannel }[] = [
  { name: 'builtin', make: (url, opts) => new GrpcChannel(url, undefined, opts) },
  { name: 'grpc-js', make: (url, opts) => new GrpcJsChannel(url, undefined, opts) },
];

const failure = async (p: Promise<unknown>): Promise<GrpcCallError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof GrpcCallError) return e;
    throw e;
  }
  throw new Error('the call succeeded');
};

describe('MessageReader', () => {
  it('splits messages whatever the chunk boundaries', () => {
    const wire = Buffer.concat([frame(Buffer.from('one')), frame(Buffer.alloc(0)), frame(Buffer.from('three'))]);
    for (let size = 1; size <= wire.length; size++) {
      const r = new MessageReader();
      const got: string[] = [];
      for (let i = 0; i < wire.length; i += size) for (const m of r.push(wire.subarray(i, i + size))) got.push(m.toString());
      expect(got, `chunks of ${size}`).toEqual(['one', '', 'three']);
    }
  });

  it('refuses a compressed message', () => {
    const m = frame(Buffer.from('x'));
    m[0] = 1;
    expect(() => new MessageReader().push(m)).toThrow(GrpcCallError);
  });
});

type Handler = (stream: ServerHttp2Stream, body: Buffer, headers: Record<string, unknown>) => void;

describe.each(transports)('the $name channel', ({ make }) => {
  let server: Http2Server;
  let url: string;
  const handlers = new Map<string, Handler>();
  const cancelled: string[] = [];
  const pings: number[] = [];

  beforeAll(async () => {
    server = createServer();
    server.on('session', (s) => s.on('ping', () => pings.push(Date.now())));
    server.on('stream', (stream, headers) => {
      const path = String(headers[':path']);
      const chunks: Buffer[] = [];
      stream.on('error', () => {}); // resets the cases ask for
      stream.on('close', () => {
        if (stream.rstCode === constants.NGHTTP2_CANCEL) cancelled.push(path);
      });
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => handlers.get(path)?.(stream, Buffer.concat(chunks), headers));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  const channel = () => make(url, { keepaliveTimeMs: 200, keepaliveTimeoutMs: 1000 });

  it('a unary call: headers as grpc wants them, the framed reply, OK in trailers', async () => {
    let seen: Record<string, unknown> = {};
    handlers.set('/t.S/Echo', (stream, body, headers) => {
      seen = headers;
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      // The reply in two DATA frames, split inside the length prefix.
      const reply = frame(Buffer.concat([Buffer.from('echo:'), body.subarray(5)]));
      stream.write(reply.subarray(0, 3));
      stream.end(reply.subarray(3));
    });
    const ch = channel();
    try {
      const got = await ch.unary('/t.S/Echo', Buffer.from('hi'), Date.now() + 5000);
      expect(got.toString()).toBe('echo:hi');
      expect(seen['content-type']).toBe('application/grpc');
      expect(seen.te).toBe('trailers');
      expect(seen['grpc-timeout']).toMatch(/^\d+m$/);
    } finally {
      ch.close();
    }
  });

  it('thousands of calls share one connection: finished calls are not reset (nghttp2 counts resets of closed streams as invalid frames and drops the session after 1,000)', async () => {
    let sessions = 0;
    const count = () => sessions++;
    server.on('session', count);
    const ch = channel();
    try {
      for (let i = 0; i < 1200; i += 50) {
        const replies = await Promise.all(Array.from({ length: 50 }, (_, j) => ch.unary('/t.S/Echo', Buffer.from(String(i + j)), Date.now() + 5000)));
        expect(replies.map(String)).toEqual(Array.from({ length: 50 }, (_, j) => `echo:${i + j}`));
      }
      expect(sessions).toBe(1);
    } finally {
      server.off('session', count);
      ch.close();
    }
  });

  it('a status from a trailers-only reply, with grpc-message percent-decoded; HTTP errors and resets as grpc-go maps them; which failures leave the request certainly unprocessed', async () => {
    handlers.set('/t.S/Compacted', (stream) =>
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '11', 'grpc-message': 'etcdserver: mvcc: required revision has been compacted%0Anext' }, { endStream: true }),
    );
    handlers.set('/t.S/Busy', (stream) => stream.respond({ ':status': 503 }, { endStream: true }));
    handlers.set('/t.S/Refused', (stream) => stream.close(constants.NGHTTP2_REFUSED_STREAM));
    // Processed (maybe), then the connection is gone: not safe to send again.
    handlers.set('/t.S/Dropped', (stream) => stream.session?.destroy());
    // A GOAWAY, then the connection is gone. The server had taken the stream,
    // so its GOAWAY names it as processed (nghttp2 puts the last stream it
    // accepted there): not safe either.
    handlers.set('/t.S/GoneAway', (stream) => {
      stream.session?.goaway(constants.NGHTTP2_INTERNAL_ERROR, 0);
      setTimeout(() => stream.session?.destroy(), 50);
    });
    handlers.set('/t.S/Empty', (stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end();
    });
    const ch = channel();
    try {
      const compacted = await failure(ch.unary('/t.S/Compacted', Buffer.alloc(0), Date.now() + 5000));
      expect([compacted.code, compacted.details]).toEqual([status.OUT_OF_RANGE, 'etcdserver: mvcc: required revision has been compacted\nnext']);
      expect((await failure(ch.unary('/t.S/Busy', Buffer.alloc(0), Date.now() + 5000))).code).toBe(status.UNAVAILABLE);
      const refused = await failure(ch.unary('/t.S/Refused', Buffer.alloc(0), Date.now() + 5000));
      expect([refused.code, refused.unprocessed]).toEqual([status.UNAVAILABLE, true]);
      const dropped = await failure(ch.unary('/t.S/Dropped', Buffer.alloc(0), Date.now() + 5000));
      expect([dropped.code, dropped.unprocessed]).toEqual([status.UNAVAILABLE, false]);
      const goneAway = await failure(ch.unary('/t.S/GoneAway', Buffer.alloc(0), Date.now() + 5000));
      expect([goneAway.code, goneAway.unprocessed, goneAway.details]).toEqual([status.UNAVAILABLE, false, 'Session closed with error code 2']);
      // OK without a message is not a reply.
      expect((await failure(ch.unary('/t.S/Empty', Buffer.alloc(0), Date.now() + 5000))).code).toBe(status.UNIMPLEMENTED);
    } finally {
      ch.close();
    }
  });

  it('a deadline fails the call DEADLINE_EXCEEDED and cancels the stream on the server; a stream call is pinged while open', async () => {
    handlers.set('/t.S/Slow', () => {});
    const ch = channel();
    try {
      const t0 = Date.now();
      const e = await failure(ch.unary('/t.S/Slow', Buffer.alloc(0), Date.now() + 300));
      expect(e.code).toBe(status.DEADLINE_EXCEEDED);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
      for (let i = 0; i < 50 && !cancelled.includes('/t.S/Slow'); i++) await new Promise((r) => setTimeout(r, 20));
      expect(cancelled).toContain('/t.S/Slow');

      // A long-lived stream: messages both ways, keepalive pings while it is open, ended by the server's status.
      let serverStream: ServerHttp2Stream | undefined;
      server.once('stream', (s) => (serverStream = s));
      const got: string[] = [];
      let ended: GrpcCallError | undefined | 'open' = 'open';
      const call = ch.stream('/t.S/Watch', { hasleader: 'true' }, { onMessage: (m) => got.push(m.toString()), onEnd: (err) => (ended = err) });
      call.write(Buffer.from('create'));
      for (let i = 0; i < 50 && !serverStream; i++) await new Promise((r) => setTimeout(r, 20));
      serverStream!.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      serverStream!.write(frame(Buffer.from('created')));
      const pingsBefore = pings.length;
      await new Promise((r) => setTimeout(r, 700));
      expect(pings.length - pingsBefore).toBeGreaterThanOrEqual(2);
      expect(got).toEqual(['created']);
      serverStream!.on('wantTrailers', () => serverStream!.sendTrailers({ 'grpc-status': '14', 'grpc-message': 'etcdserver: no leader' }));
      serverStream!.end();
      for (let i = 0; i < 50 && ended === 'open'; i++) await new Promise((r) => setTimeout(r, 20));
      expect(ended).toBeInstanceOf(GrpcCallError);
      expect([(ended as unknown as GrpcCallError).code, (ended as unknown as GrpcCallError).details]).toEqual([status.UNAVAILABLE, 'etcdserver: no leader']);
    } finally {
      ch.close();
    }
  });

  it('nothing listening: UNAVAILABLE; a closed channel refuses calls', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const ch = make(`http://127.0.0.1:${port}`, { keepaliveTimeMs: 1000, keepaliveTimeoutMs: 1000 });
    const refused = await failure(ch.unary('/t.S/Echo', Buffer.alloc(0), Date.now() + 5000));
    // Never sent: safe to send elsewhere.
    expect([refused.code, refused.unprocessed]).toEqual([status.UNAVAILABLE, true]);
    ch.close();
    expect((await failure(ch.unary('/t.S/Echo', Buffer.alloc(0), Date.now() + 5000))).code).toBe(status.UNAVAILABLE);
  });
});

describe('the builtin channel against a server that allows no streams (SETTINGS_MAX_CONCURRENT_STREAMS 0)', () => {
  let server: Http2Server;
  let url: string;
  let settingsAcked: Promise<void>;

  beforeAll(async () => {
    server = createServer({ settings: { maxConcurrentStreams: 0 } });
    // Our SETTINGS acknowledged by the client: it knows the limit from then on.
    settingsAcked = new Promise((resolve) => server.once('session', (s) => s.once('localSettings', () => resolve())));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it(`${DEFAULT_MAX_WAITING_STREAMS} calls wait (until their deadline); the next fails at once UNAVAILABLE, never sent, naming the server's limit`, async () => {
    const ch = new GrpcChannel(url, undefined, { keepaliveTimeMs: 10_000, keepaliveTimeoutMs: 10_000 });
    try {
      const deadline = Date.now() + 4_000;
      const waiting = [failure(ch.unary('/t.S/Wait', Buffer.alloc(0), deadline))];
      await settingsAcked;
      for (let i = 1; i < DEFAULT_MAX_WAITING_STREAMS; i++) waiting.push(failure(ch.unary('/t.S/Wait', Buffer.alloc(0), deadline)));
      const t0 = Date.now();
      const refused = await failure(ch.unary('/t.S/Wait', Buffer.alloc(0), deadline));
      expect(Date.now() - t0).toBeLessThan(1_000);
      expect([refused.code, refused.unprocessed, refused.details]).toEqual([
        status.UNAVAILABLE,
        true,
        `${DEFAULT_MAX_WAITING_STREAMS} streams already wait for the server's limit of 0 concurrent streams (SETTINGS_MAX_CONCURRENT_STREAMS)`,
      ]);
      const ends = await Promise.all(waiting);
      expect(new Set(ends.map((e) => e.code))).toEqual(new Set([status.DEADLINE_EXCEEDED]));
    } finally {
      ch.close();
    }
  });
});

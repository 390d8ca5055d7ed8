// The API server's own HTTP/2 client connection (RFC 9113), checked against
// an independent peer: node:http2's server (nghttp2) wherever it can produce
// the input, so header blocks, flow control, concurrency limits and HPACK's
// dynamic table are judged by a real implementation rather than by our own
// reading of the spec; and a hand-written frame peer on a raw socket for what
// nghttp2 never sends (CONTINUATIONs, padding, GOAWAY while streams are open,
// unanswered PINGs, malformed frames). Loopback only, every wait bounded.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecureServer, createServer, constants, type Http2SecureServer, type Http2Server, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { createServer as netCreateServer, type Server as NetServer, type Socket } from 'node:net';
import { createServer as tlsCreateServer, type Server as TlsServer } from 'node:tls';
import { issueCa, issueLeaf, type KeyAndCert } from '../../../../main/common/pki/certificates';
import type { Http2Connection } from '../../../../main/client/etcd/http2Connection';
import { ACK, CONTINUATION, DATA, END_HEADERS, END_STREAM, GOAWAY, HEADERS, PADDED, PING, PRIORITY, PUSH_PROMISE, RST_STREAM, SETTINGS, WINDOW_UPDATE, block, closeConnectionsAfterEach, connect, frame, goaway, listen, okHeaders, pattern, rawPeerFixture, recorder, requestBlock, shut, u32s } from './http2Peer';
import { eventually } from '../../../support/waitFor';

closeConnectionsAfterEach();

// ---- against node:http2 ----

type Handler = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, rawHeaders: string[]) => void;

describe('Http2Connection against node:http2', () => {
  let server: Http2Server;
  let port: number;
  const handlers = new Map<string, Handler>();
  const sessions: { destroy(): void }[] = [];

  beforeAll(async () => {
    server = createServer();
    server.on('session', (s) => sessions.push(s));
    // node passes the header list as received (rawHeaders) as a fourth argument its types leave out.
    server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, _flags: number, rawHeaders?: string[]) => {
      stream.on('error', () => {}); // resets the cases ask for
      handlers.get(String(headers[':path']))?.(stream, headers, rawHeaders ?? []);
    });
    port = await listen(server);
  });

  afterAll(() => shut(server, sessions));

  it('a request: its header block arrives intact; response headers, DATA and trailers reach the handlers in order, then a clean close', async () => {
    let seen: { rawHeaders: string[]; body: string } | undefined;
    handlers.set('/t.S/Echo', (stream, _headers, rawHeaders) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        seen = { rawHeaders, body: Buffer.concat(chunks).toString() };
        stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'x-reply': 'one' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0', 'grpc-message': 'fine' }));
        stream.write('reply ');
        stream.end('body');
      });
    });
    const conn = connect(port);
    const r = recorder();
    const s = conn.request(requestBlock(port, '/t.S/Echo'), r.handlers);
    s.write(Buffer.from('hello '), false);
    s.write(Buffer.from('server'), true);
    expect(await r.closed()).toEqual({ kind: 'closed' });

    expect(seen!.rawHeaders).toEqual([':method', 'POST', ':scheme', 'http', ':path', '/t.S/Echo', ':authority', `127.0.0.1:${port}`, 'content-type', 'application/grpc']);
    expect(seen!.body).toBe('hello server');
    expect(r.shape()).toEqual(['headers', 'data', 'headers+end', 'close:closed']);
    const [response, trailers] = r.headerBlocks();
    // node adds a date header; the rest is exactly what the handler sent.
    expect(response.filter(([n]) => n !== 'date')).toEqual([[':status', '200'], ['content-type', 'application/grpc'], ['x-reply', 'one']]);
    expect(trailers).toEqual([['grpc-status', '0'], ['grpc-message', 'fine']]);
    expect(r.body().toString()).toBe('reply body');
    expect(conn.openStreams).toBe(0);
    expect(conn.usable).toBe(true);
  });

  it('sending: a 1 MiB body against the default 65,535-byte windows and 16,384-byte frames arrives complete and byte-identical', async () => {
    let received: Buffer | undefined;
    let settings: { initialWindowSize?: number; maxFrameSize?: number } = {};
    handlers.set('/t.S/Upload', (stream) => {
      settings = stream.session!.localSettings;
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received = Buffer.concat(chunks);
        stream.respond({ ':status': 200 }, { endStream: true });
      });
    });
    const body = pattern(1 << 20, 1);
    const conn = connect(port);
    const r = recorder();
    const s = conn.request(requestBlock(port, '/t.S/Upload'), r.handlers);
    // Writes of uneven sizes, some larger than a window, so frames are cut across write boundaries.
    const cuts = [0, 1, 1000, 70_000, 70_001, 300_000, 300_017, body.length];
    for (let i = 1; i < cuts.length; i++) s.write(body.subarray(cuts[i - 1], cuts[i]), i === cuts.length - 1);
    expect(await r.closed('the upload to finish', 10_000)).toEqual({ kind: 'closed' });
    // The limits the body was sent under. nghttp2 enforces the frame size; it
    // reopens its windows as it reads, so keeping within them is judged by the
    // hand-written peer below.
    expect([settings.initialWindowSize, settings.maxFrameSize]).toEqual([65_535, 16_384]);
    expect(received!.length).toBe(body.length);
    expect(received!.equals(body)).toBe(true);
  });

  it('receiving: a 5 MiB response, far beyond the stream and connection windows we advertise, arrives complete (our WINDOW_UPDATEs reopen them)', async () => {
    const body = pattern(5 << 20, 2);
    handlers.set('/t.S/Download', (stream) => {
      stream.respond({ ':status': 200 });
      stream.end(body);
    });
    const conn = connect(port, { streamWindow: 65_535, connectionWindow: 65_535 * 2 });
    const r = recorder();
    conn.request(requestBlock(port, '/t.S/Download'), r.handlers).write(Buffer.alloc(0), true);
    expect(await r.closed('the download to finish', 15_000)).toEqual({ kind: 'closed' });
    const got = r.body();
    expect(got.length).toBe(body.length);
    expect(got.equals(body)).toBe(true);
  });

  it('cancel(): the server sees RST_STREAM(CANCEL), no handler of the cancelled stream runs afterwards, and the connection goes on', async () => {
    let serverClose: { rstCode: number } | undefined;
    handlers.set('/t.S/Endless', (stream) => {
      stream.respond({ ':status': 200 });
      // Data keeps coming until the server learns of the reset: some is in flight when we cancel.
      const timer = setInterval(() => stream.write(Buffer.alloc(1000, 'x')), 1);
      stream.on('close', () => {
        clearInterval(timer);
        serverClose = { rstCode: stream.rstCode };
      });
    });
    handlers.set('/t.S/Ping', (stream) => stream.respond({ ':status': 200 }, { endStream: true }));
    const conn = connect(port);
    const events: string[] = [];
    const s = conn.request(requestBlock(port, '/t.S/Endless'), {
      onHeaders: () => events.push('headers'),
      // Cancelled from inside a handler, while more frames of the same read may follow.
      onData: () => {
        events.push('data');
        s.cancel();
      },
      onClose: (o) => events.push(`close:${o.kind}`),
    });
    s.write(Buffer.alloc(0), true);
    await eventually('the server to see the stream close', () => serverClose, { timeoutMs: 5_000, intervalMs: 5 });
    expect(serverClose!.rstCode).toBe(constants.NGHTTP2_CANCEL);
    // A later request on the same connection completes only after every frame the
    // server sent before it has been read: a barrier instead of a sleep.
    const r = recorder();
    conn.request(requestBlock(port, '/t.S/Ping'), r.handlers).write(Buffer.alloc(0), true);
    expect(await r.closed()).toEqual({ kind: 'closed' });
    expect(events).toEqual(['headers', 'data']);
    s.cancel(); // twice is harmless
    expect([conn.usable, conn.openStreams]).toEqual([true, 0]);
  });

  it('thousands of requests, sequential batches of concurrent ones, share one connection; response headers that churn the server’s HPACK dynamic table decode right throughout', async () => {
    handlers.set('/t.S/Many', (stream, headers) => {
      const n = String(headers['x-n']);
      // A new value each time: nghttp2 indexes it, evicting older entries as the table fills.
      stream.respond({ ':status': 200, 'x-n': n, 'x-pad': `${n}-${'p'.repeat(Number(n) % 97)}` });
      stream.end(`body ${n}`);
    });
    let sessionsSeen = 0;
    const count = () => sessionsSeen++;
    server.on('session', count);
    try {
      const conn = connect(port);
      const base = requestBlock(port, '/t.S/Many');
      const one = async (n: number) => {
        const r = recorder();
        conn.request(Buffer.concat([base, block([['x-n', String(n)]])]), r.handlers).write(Buffer.alloc(0), true);
        const outcome = await r.closed(`request ${n}`);
        const headers = new Map(r.headerBlocks()[0]);
        return `${outcome.kind}|${headers.get('x-n')}|${headers.get('x-pad')?.length}|${r.body()}`;
      };
      const batch = 100;
      for (let i = 0; i < 3_000; i += batch) {
        const got = await Promise.all(Array.from({ length: batch }, (_, j) => one(i + j)));
        expect(got).toEqual(Array.from({ length: batch }, (_, j) => `closed|${i + j}|${String(i + j).length + 1 + ((i + j) % 97)}|body ${i + j}`));
      }
      expect(sessionsSeen).toBe(1);
      expect(conn.usable).toBe(true);
    } finally {
      server.off('session', count);
    }
  });
});

describe('Http2Connection against node:http2 with SETTINGS_MAX_CONCURRENT_STREAMS 2', () => {
  let server: Http2Server;
  let port: number;
  const sessions: { destroy(): void }[] = [];
  let open = 0;
  let maxOpen = 0;
  let refused = 0;

  beforeAll(async () => {
    server = createServer({ settings: { maxConcurrentStreams: 2 } });
    server.on('session', (s) => sessions.push(s));
    server.on('stream', (stream) => {
      open++;
      maxOpen = Math.max(maxOpen, open);
      stream.on('error', () => {});
      stream.on('close', () => open--);
      // Held open a little, so a third stream would overlap if we sent one.
      setTimeout(() => {
        stream.respond({ ':status': 200 });
        stream.end('ok');
      }, 10);
    });
    port = await listen(server);
  });

  afterAll(() => shut(server, sessions));

  const ten = (conn: Http2Connection) =>
    Promise.all(
      Array.from({ length: 10 }, async () => {
        const r = recorder();
        conn.request(requestBlock(port, '/t.S/Limited'), r.handlers).write(Buffer.alloc(0), true);
        const o = await r.closed('a limited request to finish');
        if (o.kind === 'reset' && o.code === constants.NGHTTP2_REFUSED_STREAM) refused++;
        return o;
      }),
    );

  it('once the server’s SETTINGS are in, 10 requests all complete and the server never has more than 2 open', async () => {
    const conn = connect(port);
    // One request first: its answer comes after the server's SETTINGS on the wire.
    const first = recorder();
    conn.request(requestBlock(port, '/t.S/Limited'), first.handlers).write(Buffer.alloc(0), true);
    expect(await first.closed()).toEqual({ kind: 'closed' });
    maxOpen = 0;
    refused = 0;
    const outcomes = await ten(conn);
    expect(outcomes).toEqual(Array.from({ length: 10 }, () => ({ kind: 'closed' })));
    expect(maxOpen).toBeLessThanOrEqual(2);
    expect(refused).toBe(0);
  });

  it('10 requests made at once on a fresh connection, before the server’s SETTINGS can have arrived, all complete', async () => {
    const conn = connect(port);
    maxOpen = 0;
    refused = 0;
    const outcomes = await ten(conn);
    expect({ refused, outcomes }).toEqual({ refused: 0, outcomes: Array.from({ length: 10 }, () => ({ kind: 'closed' })) });
    expect(maxOpen).toBeLessThanOrEqual(2);
  });
});

// ---- against a hand-written peer (http2Peer.ts) ----

describe('Http2Connection against a hand-written frame peer', () => {
  const { opened, port: rawPort } = rawPeerFixture();
  let port = 0;
  beforeAll(() => {
    port = rawPort();
  });

  it('a header block split into HEADERS + CONTINUATIONs, a PADDED DATA frame and PADDED+PRIORITY trailers decode; frames cut at any byte reassemble', async () => {
    const { peer, rs } = await opened(1);
    const [r] = rs;
    const headers = block([[':status', '200'], ['content-type', 'application/grpc'], ['x-long', 'v'.repeat(60)]]);
    const data = Buffer.concat([Buffer.from([7]), Buffer.from('padded payload'), Buffer.alloc(7)]);
    const trailerBlock = block([['grpc-status', '0']]);
    // Pad length, then the priority fields (dependency, weight), then the block, then the padding (§6.2).
    const trailers = Buffer.concat([Buffer.from([3]), u32s(0x80000000), Buffer.from([15]), trailerBlock, Buffer.alloc(3)]);
    const wire = Buffer.concat([
      frame(HEADERS, 0, 1, headers.subarray(0, 10)),
      frame(CONTINUATION, 0, 1, headers.subarray(10, 30)),
      frame(CONTINUATION, END_HEADERS, 1, headers.subarray(30)),
      frame(DATA, PADDED, 1, data),
      frame(HEADERS, PADDED | PRIORITY | END_HEADERS | END_STREAM, 1, trailers),
    ]);
    // In 7-byte pieces, each its own socket write: frame headers and payloads arrive cut.
    for (let i = 0; i < wire.length; i += 7) {
      peer.socket.write(wire.subarray(i, i + 7));
      await new Promise((res) => setImmediate(res));
    }
    expect(await r.closed()).toEqual({ kind: 'closed' });
    expect(r.shape()).toEqual(['headers', 'data', 'headers+end', 'close:closed']);
    expect(r.headerBlocks()).toEqual([
      [[':status', '200'], ['content-type', 'application/grpc'], ['x-long', 'v'.repeat(60)]],
      [['grpc-status', '0']],
    ]);
    expect(r.body().toString()).toBe('padded payload');
  });

  it('a server PING is answered with a PING ACK carrying the same 8 bytes', async () => {
    const { peer } = await opened(0);
    const from = peer.frames.length;
    peer.send(frame(PING, 0, 0, Buffer.from('pingpong')));
    const ack = await peer.frame('the PING ACK', (f) => f.type === PING, from);
    expect([ack.flags, ack.streamId, ack.payload.toString()]).toEqual([ACK, 0, 'pingpong']);
  });

  it('GOAWAY(NO_ERROR, last stream 1) with streams 1 and 3 open: 3 fails as certainly unprocessed, 1 still completes, the connection is unusable at once', async () => {
    const { conn, peer, rs } = await opened(2);
    let unusable = 0;
    conn.onUnusable = () => unusable++;
    peer.send(goaway(1, 0));
    const three = await rs[1].closed('stream 3 to fail');
    expect(three).toMatchObject({ kind: 'failed', unprocessed: true });
    expect(rs[0].outcome()).toBeUndefined();
    expect([conn.usable, unusable]).toEqual([false, 1]);
    expect(() => conn.request(requestBlock(port, '/t.S/Raw'), recorder().handlers)).toThrow();

    peer.send(frame(HEADERS, END_HEADERS, 1, okHeaders), frame(DATA, END_STREAM, 1, Buffer.from('done')));
    expect(await rs[0].closed('stream 1 to complete')).toEqual({ kind: 'closed' });
    expect(rs[0].body().toString()).toBe('done');
    // Its last stream done, the connection closes itself.
    await eventually('the connection to close after its last stream', () => peer.ended, { timeoutMs: 5_000, intervalMs: 5 });
  });

  it('GOAWAY with an error code fails every open stream with "Session closed with error code N"; only streams above its last stream id are unprocessed', async () => {
    const { conn, peer, rs } = await opened(2);
    peer.send(goaway(1, 2));
    expect(await rs[0].closed()).toEqual({ kind: 'failed', message: 'Session closed with error code 2', unprocessed: false });
    expect(await rs[1].closed()).toEqual({ kind: 'failed', message: 'Session closed with error code 2', unprocessed: true });
    expect(conn.usable).toBe(false);
  });

  it('cancel(): exactly one RST_STREAM(CANCEL) and nothing more for the stream, no handler runs, yet its late header block is decoded so the next block, which refers to the entry it added to the dynamic table, decodes right', async () => {
    const { conn, peer } = await opened(0);
    const cancelled = recorder();
    const other = recorder();
    const s1 = conn.request(requestBlock(port, '/t.S/Raw'), cancelled.handlers); // its request still open
    conn.request(requestBlock(port, '/t.S/Raw'), other.handlers).write(Buffer.alloc(0), true);
    await peer.streams(1, 3);
    s1.cancel();
    s1.write(Buffer.from('too late'), true);
    s1.cancel();
    await peer.settled();
    expect(peer.frames.filter((f) => f.streamId === 1).map((f) => [f.type, f.type === RST_STREAM ? f.payload.readUInt32BE(0) : f.flags])).toEqual([
      [HEADERS, END_HEADERS],
      [RST_STREAM, 8],
    ]);
    // Written by hand, as our encoder never indexes: :status 200 (static 8), then
    // x-cancelled: yes as a literal with incremental indexing (§6.2.1), which
    // becomes dynamic entry 62; the second block names it by index alone.
    const indexing = Buffer.concat([Buffer.from([0x88, 0x40, 11]), Buffer.from('x-cancelled'), Buffer.from([3]), Buffer.from('yes')]);
    peer.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, indexing), frame(HEADERS, END_HEADERS | END_STREAM, 3, Buffer.from([0x88, 0xbe])));
    expect(await other.closed()).toEqual({ kind: 'closed' });
    expect(other.headerBlocks()).toEqual([[[':status', '200'], ['x-cancelled', 'yes']]]);
    expect(cancelled.events).toEqual([]);
  });

  it('sending keeps exactly within the server’s windows: the connection window, a stream’s window, WINDOW_UPDATEs on each, and a new SETTINGS_INITIAL_WINDOW_SIZE moving an open stream’s window (§6.9.2)', async () => {
    // node:http2 cannot judge this: it reopens its windows as it reads, so a
    // client that overran them would still look fine there.
    const { conn, peer } = await opened(0);
    const sent = (id: number) => Buffer.concat(peer.frames.filter((f) => f.type === DATA && f.streamId === id).map((f) => f.payload));
    const ended = (id: number) => peer.frames.some((f) => f.type === DATA && f.streamId === id && (f.flags & END_STREAM) !== 0);
    const initialWindow = (n: number) => frame(SETTINGS, 0, 0, Buffer.concat([Buffer.from([0, 4]), u32s(n)]));

    // The connection window (65,535 until the server opens it) is what stops stream 1.
    peer.send(initialWindow(1_000_000));
    await peer.settled();
    const body1 = pattern(100_000, 3);
    conn.request(requestBlock(port, '/t.S/Raw'), recorder().handlers).write(body1, true);
    await peer.streams(1);
    await peer.settled();
    expect(sent(1).length).toBe(65_535);
    peer.send(frame(WINDOW_UPDATE, 0, 0, u32s(10_000)));
    await peer.settled();
    expect(sent(1).length).toBe(75_535);
    peer.send(frame(WINDOW_UPDATE, 0, 0, u32s(1_000_000)));
    await peer.settled();
    expect([sent(1).equals(body1), ended(1)]).toEqual([true, true]);

    // Now stream 3's own window stops it.
    peer.send(initialWindow(1_000));
    await peer.settled();
    const body3 = pattern(5_000, 4);
    conn.request(requestBlock(port, '/t.S/Raw'), recorder().handlers).write(body3, true);
    await peer.streams(3);
    await peer.settled();
    expect(sent(3).length).toBe(1_000);
    peer.send(frame(WINDOW_UPDATE, 0, 3, u32s(1_500)));
    await peer.settled();
    expect(sent(3).length).toBe(2_500);
    peer.send(initialWindow(3_000)); // +2,000 for the open stream
    await peer.settled();
    expect(sent(3).length).toBe(4_500);
    peer.send(frame(WINDOW_UPDATE, 0, 3, u32s(10_000)));
    await peer.settled();
    expect([sent(3).equals(body3), ended(3)]).toEqual([true, true]);
    expect(Math.max(...peer.frames.filter((f) => f.type === DATA).map((f) => f.payload.length))).toBeLessThanOrEqual(16_384);
  });

  it('RST_STREAM(REFUSED_STREAM) closes that stream as reset with code 7; others on the connection go on', async () => {
    const { conn, peer, rs } = await opened(2);
    peer.send(frame(RST_STREAM, 0, 3, u32s(7)));
    expect(await rs[1].closed()).toEqual({ kind: 'reset', code: 7 });
    expect(rs[0].outcome()).toBeUndefined();
    expect(conn.usable).toBe(true);
    peer.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, okHeaders));
    expect(await rs[0].closed()).toEqual({ kind: 'closed' });
  });

  const FRAME_SIZE_ERROR = 6;
  const PROTOCOL_ERROR = 1;
  const COMPRESSION_ERROR = 9;
  const malformed: { name: string; wire: Buffer; code: number }[] = [
    { name: 'WINDOW_UPDATE with a 3-byte payload', wire: frame(WINDOW_UPDATE, 0, 0, Buffer.alloc(3)), code: FRAME_SIZE_ERROR },
    { name: 'PING with a 7-byte payload', wire: frame(PING, 0, 0, Buffer.alloc(7)), code: FRAME_SIZE_ERROR },
    { name: 'SETTINGS whose length is not a multiple of 6', wire: frame(SETTINGS, 0, 0, Buffer.alloc(5)), code: FRAME_SIZE_ERROR },
    { name: 'a frame above our 16,384-byte SETTINGS_MAX_FRAME_SIZE', wire: frame(DATA, 0, 1, Buffer.alloc(16_385)), code: FRAME_SIZE_ERROR },
    { name: 'PUSH_PROMISE with push disabled', wire: frame(PUSH_PROMISE, END_HEADERS, 1, Buffer.concat([u32s(2), okHeaders])), code: PROTOCOL_ERROR },
    { name: 'DATA whose padding is longer than the frame', wire: frame(DATA, PADDED, 1, Buffer.from([5, 1, 2])), code: PROTOCOL_ERROR },
    { name: 'a DATA frame inside a header block', wire: Buffer.concat([frame(HEADERS, 0, 1, okHeaders), frame(DATA, 0, 1, Buffer.from('x'))]), code: PROTOCOL_ERROR },
    { name: 'CONTINUATION without a header block', wire: frame(CONTINUATION, END_HEADERS, 1, okHeaders), code: PROTOCOL_ERROR },
    { name: 'a header block that is not HPACK (index 0)', wire: frame(HEADERS, END_HEADERS, 1, Buffer.from([0x80])), code: COMPRESSION_ERROR },
  ];

  it.each(malformed)('$name: the client sends GOAWAY with code $code and fails its open stream instead of throwing', async ({ wire, code }) => {
    const { conn, peer, rs } = await opened(1);
    const from = peer.frames.length;
    peer.send(wire);
    expect(await rs[0].closed()).toMatchObject({ kind: 'failed', unprocessed: false });
    const away = await peer.frame('the client’s GOAWAY', (f) => f.type === GOAWAY, from);
    expect([away.streamId, away.payload.readUInt32BE(4)]).toEqual([0, code]);
    expect(conn.usable).toBe(false);
    await eventually('the client to close the connection', () => peer.ended, { timeoutMs: 5_000, intervalMs: 5 });
  });

  it('keepalive: with a stream open and PINGs unanswered, the stream fails "keepalive ping not answered" within keepaliveTimeMs + keepaliveTimeoutMs', async () => {
    const keepaliveTimeMs = 150;
    const keepaliveTimeoutMs = 250;
    const t0 = Date.now();
    const { conn, peer, rs } = await opened(1, { keepaliveTimeMs, keepaliveTimeoutMs }, { pingsAnswered: false });
    const outcome = await rs[0].closed('the keepalive to give up', 5_000);
    const elapsed = Date.now() - t0;
    expect(outcome).toEqual({ kind: 'failed', message: 'keepalive ping not answered', unprocessed: false });
    expect(peer.frames.some((f) => f.type === PING && !(f.flags & ACK))).toBe(true);
    // Slack for the connect and a loaded machine; the point is that it is not unbounded.
    expect(elapsed).toBeLessThan(keepaliveTimeMs + keepaliveTimeoutMs + 1_000);
    expect(conn.usable).toBe(false);
  });

  it('keepalive: with PINGs answered, an open stream outlives several intervals', async () => {
    const { conn, peer, rs } = await opened(1, { keepaliveTimeMs: 50, keepaliveTimeoutMs: 200 });
    const pings = () => peer.frames.filter((f) => f.type === PING && !(f.flags & ACK)).length;
    await eventually('five keepalive PINGs', () => pings() >= 5, { timeoutMs: 5_000, intervalMs: 5 });
    expect(rs[0].outcome()).toBeUndefined();
    expect(conn.usable).toBe(true);
    peer.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, okHeaders));
    expect(await rs[0].closed()).toEqual({ kind: 'closed' });
  });
});

// ---- TLS ----

describe('Http2Connection over TLS', () => {
  let ca: KeyAndCert;
  let leaf: KeyAndCert;
  const servers: { server: Http2SecureServer | TlsServer | NetServer; sockets: { destroy(): void }[] }[] = [];

  beforeAll(async () => {
    ca = await issueCa('http2Connection-test-ca');
    leaf = await issueLeaf(ca, { profile: 'server', commonName: 'localhost', hosts: ['localhost', '127.0.0.1'] });
  });

  afterAll(async () => {
    for (const { server, sockets } of servers) await shut(server, sockets);
  });

  it('negotiates h2 by ALPN against node’s secure server and completes a request', async () => {
    const server = createSecureServer({ key: leaf.key, cert: leaf.cert });
    const sockets: { destroy(): void }[] = [];
    servers.push({ server, sockets });
    let alpn: string | false | undefined;
    server.on('session', (s) => {
      sockets.push(s);
      alpn = s.alpnProtocol;
    });
    server.on('stream', (stream) => {
      stream.respond({ ':status': 200 });
      stream.end('secure');
    });
    const port = await listen(server);
    const conn = connect(port, { tls: { ca: ca.cert, servername: 'localhost' } });
    const r = recorder();
    conn.request(requestBlock(port, '/t.S/Tls', 'https'), r.handlers).write(Buffer.alloc(0), true);
    expect(await r.closed()).toEqual({ kind: 'closed' });
    expect(r.body().toString()).toBe('secure');
    expect(alpn).toBe('h2');
  });

  it('keepalive covers the handshake: a server that accepts the TCP connection and never answers (a paused member) fails the stream within keepaliveTimeMs + keepaliveTimeoutMs', async () => {
    // A paused process still has its listen backlog: the kernel completes the
    // TCP handshake, and nothing more ever comes back.
    const sockets: Socket[] = [];
    const server = netCreateServer((s) => {
      s.on('error', () => {});
      sockets.push(s);
    });
    servers.push({ server, sockets });
    const port = await listen(server);
    const keepaliveTimeMs = 150;
    const keepaliveTimeoutMs = 250;
    const conn = connect(port, { tls: { ca: ca.cert, servername: 'localhost' }, keepaliveTimeMs, keepaliveTimeoutMs });
    const r = recorder();
    conn.request(requestBlock(port, '/t.S/Tls', 'https'), r.handlers).write(Buffer.alloc(0), true);
    await eventually('the TCP connection', () => sockets.length > 0, { timeoutMs: 5_000, intervalMs: 5 });
    // Slack for a loaded machine; without a bound the stream would wait for as long as the member stays paused.
    const outcome = await r.closed('the stream to fail', keepaliveTimeMs + keepaliveTimeoutMs + 1_500);
    expect(outcome).toMatchObject({ kind: 'failed', unprocessed: true });
    expect(conn.usable).toBe(false);
  });

  // Two ways a server can fail to speak h2: RFC 7301 §3.2 has a server that
  // offers other protocols abort the handshake (node sends no_application_protocol);
  // one that knows no ALPN completes the handshake with none chosen.
  const noH2: { name: string; ALPNProtocols?: string[] }[] = [
    { name: 'a TLS server that offers only http/1.1', ALPNProtocols: ['http/1.1'] },
    { name: 'a TLS server without ALPN' },
  ];

  it.each(noH2)('$name: the stream fails, naming ALPN, as certainly unprocessed', async ({ ALPNProtocols }) => {
    const sockets: Socket[] = [];
    const server = tlsCreateServer({ key: leaf.key, cert: leaf.cert, ...(ALPNProtocols ? { ALPNProtocols } : {}) }, (s) => {
      s.on('error', () => {});
      sockets.push(s);
    });
    servers.push({ server, sockets });
    const port = await listen(server);
    const conn = connect(port, { tls: { ca: ca.cert, servername: 'localhost' } });
    const r = recorder();
    conn.request(requestBlock(port, '/t.S/Tls', 'https'), r.handlers).write(Buffer.alloc(0), true);
    const outcome = await r.closed();
    expect(outcome).toMatchObject({ kind: 'failed', unprocessed: true });
    expect((outcome as { message: string }).message).toContain('ALPN');
  });
});

// ---- nothing listening ----

describe('Http2Connection to a port nothing listens on', () => {
  it('fails the stream as certainly unprocessed and calls onUnusable', async () => {
    const probe = netCreateServer();
    const port = await listen(probe);
    await shut(probe);
    const conn = connect(port);
    let unusable = 0;
    conn.onUnusable = () => unusable++;
    const r = recorder();
    conn.request(requestBlock(port, '/t.S/Nowhere'), r.handlers).write(Buffer.from('x'), true);
    expect(await r.closed()).toMatchObject({ kind: 'failed', unprocessed: true });
    expect(r.shape()).toEqual(['close:failed']);
    expect([conn.usable, unusable]).toEqual([false, 1]);
  });
});

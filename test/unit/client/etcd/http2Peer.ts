// Test helpers for http2Connection.ts: frames written by hand, bounded
// waiting, a recorder of a stream's handlers, connections closed after each
// test, and a hand-written frame peer on a raw socket (RawPeer) with a
// fixture that hands out a fresh connection to it per test.

import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Http2SecureServer, Http2Server } from 'node:http2';
import { createServer as netCreateServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import type { Server as TlsServer } from 'node:tls';
import { encodeHeaderBlock } from '../../../../main/common/http2/hpackEncoder';
import type { HeaderField } from '../../../../main/common/http2/hpackDecoder';
import { Http2Connection, type Http2ConnectionOptions, type StreamHandlers, type StreamOutcome } from '../../../../main/client/etcd/http2Connection';
import { eventually } from '../../../support/waitFor';

// ---- frames, by hand (RFC 9113 §4.1, §6) ----

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
export const DATA = 0x0;
export const HEADERS = 0x1;
export const RST_STREAM = 0x3;
export const SETTINGS = 0x4;
export const PUSH_PROMISE = 0x5;
export const PING = 0x6;
export const GOAWAY = 0x7;
export const WINDOW_UPDATE = 0x8;
export const CONTINUATION = 0x9;
export const END_STREAM = 0x1;
export const ACK = 0x1;
export const END_HEADERS = 0x4;
export const PADDED = 0x8;
export const PRIORITY = 0x20;

export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId, 5);
  return Buffer.concat([head, payload]);
}

export function u32s(...values: number[]): Buffer {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeUInt32BE(v >>> 0, 4 * i));
  return b;
}

export const goaway = (lastStreamId: number, code: number) => frame(GOAWAY, 0, 0, u32s(lastStreamId, code));

export function block(fields: [string, string][]): Buffer {
  return encodeHeaderBlock(fields.map(([name, value]) => ({ name, value, sensitive: false })));
}

export const pairs = (fields: HeaderField[]): [string, string][] => fields.map((f) => [f.name, f.value]);

// ---- bounded waiting ----

// ---- a stream's handlers, recorded in order ----

export type StreamEvent = { on: 'headers'; fields: [string, string][]; end: boolean } | { on: 'data'; chunk: Buffer; end: boolean } | { on: 'close'; outcome: StreamOutcome };

export function recorder() {
  const events: StreamEvent[] = [];
  const handlers: StreamHandlers = {
    onHeaders: (fields, end) => events.push({ on: 'headers', fields: pairs(fields), end }),
    onData: (chunk, end) => events.push({ on: 'data', chunk: Buffer.from(chunk), end }),
    onClose: (outcome) => events.push({ on: 'close', outcome }),
  };
  const outcome = () => events.find((e): e is Extract<StreamEvent, { on: 'close' }> => e.on === 'close')?.outcome;
  return {
    events,
    handlers,
    outcome,
    closed: (what = 'the stream to close', timeoutMs?: number) => eventually(what, outcome, { timeoutMs: timeoutMs ?? 5_000, intervalMs: 5 }),
    body: () => Buffer.concat(events.flatMap((e) => (e.on === 'data' ? [e.chunk] : []))),
    /** The header blocks delivered (response headers, then trailers), as [name, value] pairs. */
    headerBlocks: () => events.flatMap((e) => (e.on === 'headers' ? [e.fields] : [])),
    /** The handler sequence with runs of DATA folded into one, e.g. ['headers', 'data', 'headers+end', 'close:closed']. */
    shape: () =>
      events
        .map((e) => (e.on === 'close' ? `close:${e.outcome.kind}` : `${e.on}${e.end ? '+end' : ''}`))
        .filter((s, i, all) => !(s === 'data' && all[i + 1]?.startsWith('data'))),
  };
}

// ---- connections, closed after each test ----

const connections: Http2Connection[] = [];

/** Closes, after each test of the file that calls it, every connection connect() made. */
export function closeConnectionsAfterEach(): void {
  afterEach(() => {
    for (const c of connections.splice(0)) c.close();
  });
}

export function connect(port: number, opts: Partial<Http2ConnectionOptions> = {}): Http2Connection {
  const c = new Http2Connection({ host: '127.0.0.1', port, streamWindow: 4 << 20, connectionWindow: 16 << 20, keepaliveTimeMs: 10_000, keepaliveTimeoutMs: 10_000, ...opts });
  connections.push(c);
  return c;
}

export function requestBlock(port: number, path: string, scheme = 'http'): Buffer {
  return block([
    [':method', 'POST'],
    [':scheme', scheme],
    [':path', path],
    [':authority', `127.0.0.1:${port}`],
    ['content-type', 'application/grpc'],
  ]);
}

/** Deterministic pseudo-random bytes (xorshift): a lost, doubled or reordered frame shows in a byte comparison. */
export function pattern(size: number, seed: number): Buffer {
  const b = Buffer.alloc(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

export async function listen(server: NetServer | Http2Server | Http2SecureServer | TlsServer): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/** Closes a server, dropping the connections it still holds. */
export async function shut(server: NetServer | Http2Server | Http2SecureServer | TlsServer, sockets: { destroy(): void }[] = []): Promise<void> {
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
}

// ---- against a hand-written peer ----

export interface Frame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
}

/** The server end of one connection: checks the preface, sends SETTINGS, ACKs the client's, records every frame. */
export class RawPeer {
  readonly frames: Frame[] = [];
  prefaceOk: boolean | undefined;
  answerPings = true;
  ended = false;
  private buf = Buffer.alloc(0);

  constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('error', () => {});
    socket.on('data', (c: Buffer) => this.read(c));
    socket.on('close', () => (this.ended = true));
    socket.write(frame(SETTINGS, 0, 0));
  }

  send(...frames: Buffer[]): void {
    this.socket.write(Buffer.concat(frames));
  }

  /** The first recorded frame (from index `from`) that matches. */
  async frame(what: string, match: (f: Frame) => boolean, from = 0): Promise<Frame> {
    return eventually(what, () => this.frames.slice(from).find(match), { timeoutMs: 5_000, intervalMs: 5 });
  }

  private barriers = 0;

  /**
   * Returns once the client has answered a PING sent now: it handles frames in
   * order and flushes what it queued before the answer, so everything it was
   * going to send in reply to our earlier frames has arrived. No sleeping.
   */
  async settled(): Promise<void> {
    const payload = u32s(0xba771e5, ++this.barriers);
    this.send(frame(PING, 0, 0, payload));
    await this.frame('the PING ACK', (f) => f.type === PING && (f.flags & ACK) !== 0 && f.payload.equals(payload));
  }

  /** Waits until the client's HEADERS for these streams have arrived. */
  async streams(...ids: number[]): Promise<void> {
    await eventually(`HEADERS for streams ${ids.join(', ')}`, () => ids.every((id) => this.frames.some((f) => f.type === HEADERS && f.streamId === id)), { timeoutMs: 5_000, intervalMs: 5 });
  }

  private read(chunk: Buffer): void {
    this.buf = Buffer.concat([this.buf, chunk]);
    if (this.prefaceOk === undefined) {
      if (this.buf.length < PREFACE.length) return;
      this.prefaceOk = this.buf.subarray(0, PREFACE.length).equals(PREFACE);
      this.buf = this.buf.subarray(PREFACE.length);
    }
    while (this.buf.length >= 9) {
      const length = this.buf.readUIntBE(0, 3);
      if (this.buf.length < 9 + length) break;
      const f = { type: this.buf[3], flags: this.buf[4], streamId: this.buf.readUInt32BE(5) & 0x7fffffff, payload: Buffer.from(this.buf.subarray(9, 9 + length)) };
      this.buf = this.buf.subarray(9 + length);
      this.frames.push(f);
      if (f.type === SETTINGS && !(f.flags & ACK)) this.send(frame(SETTINGS, ACK, 0));
      if (f.type === PING && !(f.flags & ACK) && this.answerPings) this.send(frame(PING, ACK, 0, f.payload));
    }
  }
}

/**
 * A raw-socket server of RawPeers for the describe block that calls it, and
 * opened(): a new connection, its server end, and n streams (ids 1, 3, …)
 * whose requests have ended, as the server has seen them.
 */
export function rawPeerFixture() {
  let server: NetServer;
  let port = 0;
  const peers: RawPeer[] = [];
  let taken = 0;
  let answerPings = true;

  beforeAll(async () => {
    server = netCreateServer((socket) => {
      const peer = new RawPeer(socket);
      // Set before the first frame is read, so not even an early PING is answered when a test says so.
      peer.answerPings = answerPings;
      peers.push(peer);
    });
    port = await listen(server);
  });

  afterAll(() => shut(server, peers.map((p) => p.socket)));

  async function opened(n: number, opts: Partial<Http2ConnectionOptions> = {}, { pingsAnswered = true } = {}) {
    answerPings = pingsAnswered;
    const conn = connect(port, opts);
    const peer = await eventually('the connection to arrive', () => peers[taken], { timeoutMs: 5_000, intervalMs: 5 });
    taken++;
    answerPings = true;
    const rs = Array.from({ length: n }, () => recorder());
    const streams = rs.map((r) => {
      const s = conn.request(requestBlock(port, '/t.S/Raw'), r.handlers);
      s.write(Buffer.alloc(0), true);
      return s;
    });
    await eventually('the client preface', () => peer.prefaceOk !== undefined, { timeoutMs: 5_000, intervalMs: 5 });
    expect(peer.prefaceOk).toBe(true);
    await peer.streams(...rs.map((_, i) => 1 + 2 * i));
    return { conn, peer, rs, streams };
  }

  return { opened, port: () => port };
}

export const okHeaders = block([[':status', '200'], ['content-type', 'application/grpc']]);

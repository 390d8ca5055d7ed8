// The bounds Http2Connection keeps against a bad or buggy server, each driven
// by a hand-written frame peer (http2Peer.ts): the header block size
// (CONTINUATION floods) and the decoded header list, WINDOW_UPDATE zero
// increments and window overflow (RFC 9113 §6.9), the wait queue when the
// server allows no streams, and the socket's backpressure when the server
// stops reading. Loopback only, every wait bounded.

import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_HEADER_LIST, StreamQueueFullError } from '../../../../main/client/etcd/http2Connection';
import { CONGESTED_BYTES, MAX_BATCH_BYTES, MAX_HELD_FRAMES } from '../../../../main/client/etcd/http2Writer';
import { CONTINUATION, DATA, END_HEADERS, END_STREAM, GOAWAY, HEADERS, PING, RST_STREAM, SETTINGS, WINDOW_UPDATE, block, closeConnectionsAfterEach, frame, okHeaders, pattern, rawPeerFixture, recorder, requestBlock, u32s, type RawPeer } from './http2Peer';
import { eventually } from '../../../support/waitFor';

closeConnectionsAfterEach();

const PROTOCOL_ERROR = 1;
const FLOW_CONTROL_ERROR = 3;
const FRAME_SIZE_ERROR = 6;
const MAX_WINDOW = 2 ** 31 - 1;
const MAX_CONCURRENT_STREAMS = 3;
const INITIAL_WINDOW_SIZE = 4;
const MAX_HEADER_LIST_SIZE = 6;

const setting = (id: number, value: number) => frame(SETTINGS, 0, 0, Buffer.concat([Buffer.from([id >> 8, id & 0xff]), u32s(value)]));

describe('Http2Connection bounds against a hand-written frame peer', () => {
  const { opened, port: rawPort } = rawPeerFixture();
  let port = 0;
  beforeAll(() => {
    port = rawPort();
  });

  /** The client's GOAWAY after `from`, as [last stream id, error code]. */
  const goawayOf = async (peer: RawPeer, from: number) => {
    const f = await peer.frame('the client’s GOAWAY', (x) => x.type === GOAWAY, from);
    return [f.payload.readUInt32BE(0), f.payload.readUInt32BE(4)];
  };
  const rstOf = async (peer: RawPeer, streamId: number, from: number) => {
    const f = await peer.frame(`RST_STREAM on stream ${streamId}`, (x) => x.type === RST_STREAM && x.streamId === streamId, from);
    return f.payload.readUInt32BE(0);
  };

  it(`advertises SETTINGS_MAX_HEADER_LIST_SIZE ${DEFAULT_MAX_HEADER_LIST} in its SETTINGS`, async () => {
    const { peer } = await opened(0);
    const settings = await peer.frame('the client’s SETTINGS', (f) => f.type === SETTINGS && f.flags === 0);
    const values = new Map<number, number>();
    for (let at = 0; at < settings.payload.length; at += 6) values.set(settings.payload.readUInt16BE(at), settings.payload.readUInt32BE(at + 2));
    expect(values.get(MAX_HEADER_LIST_SIZE)).toBe(DEFAULT_MAX_HEADER_LIST);
  });

  it('a CONTINUATION flood: past twice the header list limit the client sends GOAWAY(PROTOCOL_ERROR) and fails the stream, before the flood ends', async () => {
    const { conn, peer, rs } = await opened(1);
    const from = peer.frames.length;
    const fragment = Buffer.alloc(16_384, 0x82);
    // 1,000 × 16 KiB = 16 MiB of one header block; the bound is 128 KiB.
    peer.send(frame(HEADERS, 0, 1, fragment));
    for (let i = 0; i < 1_000 && !peer.ended; i++) {
      peer.socket.write(frame(CONTINUATION, 0, 1, fragment));
      if (i % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(await goawayOf(peer, from)).toEqual([0, PROTOCOL_ERROR]);
    expect(await rs[0].closed()).toEqual({ kind: 'failed', message: `header block of more than ${2 * DEFAULT_MAX_HEADER_LIST} bytes (SETTINGS_MAX_HEADER_LIST_SIZE ${DEFAULT_MAX_HEADER_LIST})`, unprocessed: false });
    expect(conn.usable).toBe(false);
    await eventually('the client to close the connection', () => peer.ended, { timeoutMs: 5_000, intervalMs: 5 });
  });

  it('the header block bound is exact: 2 × maxHeaderListSize bytes of fragments are taken, one byte more is a connection error', async () => {
    const { peer, rs } = await opened(2, { maxHeaderListSize: 1_000 });
    // Within the bound, in HEADERS and many small CONTINUATIONs: decodes (its list is 7 + 32 + 5 + 900 + 32 bytes, 688 encoded).
    const ok = block([[':status', '200'], ['x-pad', 'p'.repeat(900)]]);
    const pieces = [frame(HEADERS, END_STREAM, 1, ok.subarray(0, 10))];
    for (let at = 10; at < ok.length; at += 10) pieces.push(frame(CONTINUATION, at + 10 >= ok.length ? END_HEADERS : 0, 1, ok.subarray(at, at + 10)));
    // The second block is never decoded: 2,000 bytes of fragments, then one more.
    peer.send(...pieces, frame(HEADERS, 0, 3, Buffer.alloc(1_000)), frame(CONTINUATION, 0, 3, Buffer.alloc(1_000)));
    expect(await rs[0].closed()).toEqual({ kind: 'closed' });
    expect(rs[0].headerBlocks()[0][1]).toEqual(['x-pad', 'p'.repeat(900)]);
    const from = peer.frames.length;
    expect(rs[1].outcome()).toBeUndefined();
    peer.send(frame(CONTINUATION, 0, 3, Buffer.alloc(1)));
    expect(await goawayOf(peer, from)).toEqual([0, PROTOCOL_ERROR]);
    expect(await rs[1].closed()).toMatchObject({ kind: 'failed', message: 'header block of more than 2000 bytes (SETTINGS_MAX_HEADER_LIST_SIZE 1000)' });
  });

  it('a decoded header list above maxHeaderListSize resets that stream with FRAME_SIZE_ERROR ("peer header list size exceeded limit"); the connection and its HPACK table go on', async () => {
    const { conn, peer, rs } = await opened(2, { maxHeaderListSize: 1_000 });
    const from = peer.frames.length;
    // :status 200 (static 8), x-big: 100 × v as a literal with incremental indexing (§6.2.1; it
    // becomes dynamic entry 62), and x-pad: 900 × p without indexing: 1,176 bytes decoded.
    const indexing = Buffer.concat([Buffer.from([0x88, 0x40, 5]), Buffer.from('x-big'), Buffer.from([100]), Buffer.from('v'.repeat(100)), block([['x-pad', 'p'.repeat(900)]])]);
    peer.send(frame(HEADERS, END_HEADERS, 1, indexing));
    expect(await rstOf(peer, 1, from)).toBe(FRAME_SIZE_ERROR);
    expect(await rs[0].closed()).toEqual({ kind: 'error', code: FRAME_SIZE_ERROR, message: 'peer header list size exceeded limit' });
    expect(conn.usable).toBe(true);
    // Stream 3's block names entry 62 by index alone: it decodes only if the reset stream's block still went into the table.
    peer.send(frame(HEADERS, END_HEADERS | END_STREAM, 3, Buffer.from([0x88, 0xbe])));
    expect(await rs[1].closed()).toEqual({ kind: 'closed' });
    expect(rs[1].headerBlocks()).toEqual([[[':status', '200'], ['x-big', 'v'.repeat(100)]]]);
  });

  const windowCases: { name: string; wire: (peer: RawPeer) => Buffer[]; want: { goaway?: number; rst?: number } }[] = [
    { name: 'WINDOW_UPDATE with a zero increment on the connection: connection error PROTOCOL_ERROR', wire: () => [frame(WINDOW_UPDATE, 0, 0, u32s(0))], want: { goaway: PROTOCOL_ERROR } },
    { name: 'WINDOW_UPDATE with a zero increment on stream 1: stream error PROTOCOL_ERROR', wire: () => [frame(WINDOW_UPDATE, 0, 1, u32s(0))], want: { rst: PROTOCOL_ERROR } },
    {
      name: 'the connection window pushed one past 2^31-1: connection error FLOW_CONTROL_ERROR',
      wire: () => [frame(WINDOW_UPDATE, 0, 0, u32s(MAX_WINDOW - 65_535)), frame(WINDOW_UPDATE, 0, 0, u32s(1))],
      want: { goaway: FLOW_CONTROL_ERROR },
    },
    {
      name: 'stream 1’s window pushed one past 2^31-1: stream error FLOW_CONTROL_ERROR',
      wire: () => [frame(WINDOW_UPDATE, 0, 1, u32s(MAX_WINDOW - 65_535)), frame(WINDOW_UPDATE, 0, 1, u32s(1))],
      want: { rst: FLOW_CONTROL_ERROR },
    },
    {
      name: 'a new SETTINGS_INITIAL_WINDOW_SIZE that moves stream 1’s window past 2^31-1: connection error FLOW_CONTROL_ERROR (§6.9.2)',
      wire: () => [frame(WINDOW_UPDATE, 0, 1, u32s(MAX_WINDOW - 65_535)), setting(INITIAL_WINDOW_SIZE, 65_536)],
      want: { goaway: FLOW_CONTROL_ERROR },
    },
  ];

  it.each(windowCases)('$name', async ({ wire, want }) => {
    const { conn, peer, rs } = await opened(2);
    // Up to the maximum is fine: the same frames without the last one leave everything open.
    const frames = wire(peer);
    peer.send(...frames.slice(0, -1));
    await peer.settled();
    expect([rs[0].outcome(), rs[1].outcome(), conn.usable]).toEqual([undefined, undefined, true]);
    const from = peer.frames.length;
    peer.send(frames[frames.length - 1]);
    if (want.goaway !== undefined) {
      expect(await goawayOf(peer, from)).toEqual([0, want.goaway]);
      expect(await rs[0].closed()).toMatchObject({ kind: 'failed', unprocessed: false });
      expect(await rs[1].closed()).toMatchObject({ kind: 'failed', unprocessed: false });
      expect(conn.usable).toBe(false);
      await eventually('the client to close the connection', () => peer.ended, { timeoutMs: 5_000, intervalMs: 5 });
    } else {
      expect(await rstOf(peer, 1, from)).toBe(want.rst);
      expect(await rs[0].closed()).toMatchObject({ kind: 'error', code: want.rst });
      // Stream 3 and the connection go on.
      expect(conn.usable).toBe(true);
      peer.send(frame(HEADERS, END_HEADERS | END_STREAM, 3, okHeaders));
      expect(await rs[1].closed()).toEqual({ kind: 'closed' });
    }
  });

  it('SETTINGS_MAX_CONCURRENT_STREAMS 0: requests wait up to maxWaitingStreams, the next one is refused at once; a raised limit opens the waiting ones', async () => {
    const { conn, peer } = await opened(0, { maxWaitingStreams: 3 });
    peer.send(setting(MAX_CONCURRENT_STREAMS, 0));
    await peer.settled();
    const rs = [recorder(), recorder(), recorder()];
    for (const r of rs) conn.request(requestBlock(port, '/t.S/Raw'), r.handlers).write(Buffer.from('body'), true);
    expect(() => conn.request(requestBlock(port, '/t.S/Raw'), recorder().handlers)).toThrow(StreamQueueFullError);
    expect(() => conn.request(requestBlock(port, '/t.S/Raw'), recorder().handlers)).toThrow(
      "3 streams already wait for the server's limit of 0 concurrent streams (SETTINGS_MAX_CONCURRENT_STREAMS)",
    );
    await peer.settled();
    expect(peer.frames.filter((f) => f.type === HEADERS)).toEqual([]);
    expect([conn.usable, conn.openStreams]).toEqual([true, 3]);

    peer.send(setting(MAX_CONCURRENT_STREAMS, 2));
    await peer.streams(1, 3);
    await peer.settled();
    expect(peer.frames.filter((f) => f.type === HEADERS).map((f) => f.streamId)).toEqual([1, 3]);
    peer.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, okHeaders));
    expect(await rs[0].closed()).toEqual({ kind: 'closed' });
    await peer.streams(5);
    const body5 = Buffer.concat(peer.frames.filter((f) => f.type === DATA && f.streamId === 5).map((f) => f.payload));
    expect(body5.toString()).toBe('body');
  });

  it('socket backpressure: against a server that stops reading, a 32 MiB body stops at the socket (a bounded backlog, not the body), then arrives whole once the server reads again', async () => {
    const { conn, peer } = await opened(0);
    // Windows wide open, so only the socket can hold the body back.
    peer.send(setting(INITIAL_WINDOW_SIZE, MAX_WINDOW), frame(WINDOW_UPDATE, 0, 0, u32s(MAX_WINDOW - 65_535)));
    await peer.settled();
    peer.socket.pause();
    const body = pattern(32 << 20, 5);
    const r = recorder();
    const s = conn.request(requestBlock(port, '/t.S/Raw'), r.handlers);
    for (let at = 0; at < body.length; at += 1 << 20) s.write(body.subarray(at, at + (1 << 20)), at + (1 << 20) >= body.length);
    await eventually('the client’s socket to refuse more', () => conn.writeBacklog.congested, { timeoutMs: 15_000, intervalMs: 5 });
    // A few more turns: nothing more is queued while congested.
    for (let i = 0; i < 20; i++) await new Promise((res) => setImmediate(res));
    const { bytes } = conn.writeBacklog;
    // What the socket held when it refused more, and at most one more batch: not the body.
    expect(bytes).toBeLessThanOrEqual(CONGESTED_BYTES + 2 * MAX_BATCH_BYTES);

    peer.socket.resume();
    await eventually('the whole body', () => peer.frames.some((f) => f.type === DATA && f.streamId === 1 && (f.flags & END_STREAM) !== 0), { timeoutMs: 30_000, intervalMs: 5 });
    const got = Buffer.concat(peer.frames.filter((f) => f.type === DATA && f.streamId === 1).map((f) => f.payload));
    expect(got.length).toBe(body.length);
    expect(got.equals(body)).toBe(true);
    expect(conn.writeBacklog.congested).toBe(false);
    expect(conn.usable).toBe(true);
  });

  it(`a server that does not read yet keeps sending PINGs: past ${MAX_HELD_FRAMES} answers held behind the socket the connection is given up`, async () => {
    const { conn, peer, rs } = await opened(1);
    peer.send(setting(INITIAL_WINDOW_SIZE, MAX_WINDOW), frame(WINDOW_UPDATE, 0, 0, u32s(MAX_WINDOW - 65_535)));
    await peer.settled();
    peer.socket.pause();
    const r = recorder();
    conn.request(requestBlock(port, '/t.S/Raw'), r.handlers).write(pattern(32 << 20, 6), true);
    await eventually('the client’s socket to refuse more', () => conn.writeBacklog.congested, { timeoutMs: 15_000, intervalMs: 5 });
    const pings = Buffer.concat(Array.from({ length: MAX_HELD_FRAMES + 1 }, (_, i) => frame(PING, 0, 0, u32s(0, i))));
    peer.socket.write(pings);
    expect(await rs[0].closed('the connection to be given up', 15_000)).toEqual({ kind: 'failed', message: 'the server does not read: too many frames queued behind socket backpressure', unprocessed: false });
    expect(await r.closed()).toMatchObject({ kind: 'failed' });
    expect(conn.usable).toBe(false);
  });
});

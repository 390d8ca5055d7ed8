// The client-to-server frame filter: header blocks re-encoded with a repaired
// :authority, every other byte unchanged, however the stream is split.

import { describe, expect, it } from 'vitest';
import { repairAuthorityFields } from '../../../../../main/etcd/api/http2/authorityFilter';
import { ErrorCode, HeaderFilterError, HeaderFrameFilter, MAX_CONTINUATIONS } from '../../../../../main/etcd/api/http2/headerFrameFilter';
import { HpackDecoder } from '../../../../../main/common/http2/hpackDecoder';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const T = { DATA: 0x0, HEADERS: 0x1, SETTINGS: 0x4, PING: 0x6, WINDOW_UPDATE: 0x8, CONTINUATION: 0x9 };
const F = { END_STREAM: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 };

function frame(type: number, flags: number, streamId: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(9);
  h.writeUIntBE(payload.length, 0, 3);
  h[3] = type;
  h[4] = flags;
  h.writeUInt32BE(streamId, 5);
  return Buffer.concat([h, payload]);
}

interface Frame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
}

function parseFrames(stream: Buffer): Frame[] {
  expect(stream.subarray(0, 24)).toEqual(PREFACE);
  const frames: Frame[] = [];
  for (let pos = 24; pos < stream.length; ) {
    const len = stream.readUIntBE(pos, 3);
    frames.push({ type: stream[pos + 3]!, flags: stream[pos + 4]!, streamId: stream.readUInt32BE(pos + 5), payload: stream.subarray(pos + 9, pos + 9 + len) });
    pos += 9 + len;
  }
  return frames;
}

// A client encoder's blocks, by hand: raw (non-Huffman) strings, indexing on.
const str = (s: string) => {
  const b = Buffer.from(s, 'latin1');
  if (b.length >= 127) throw new Error('test strings stay short');
  return Buffer.concat([Buffer.from([b.length]), b]);
};
const indexedLiteral = (nameIndex: number, value: string) => Buffer.concat([Buffer.from([0x40 | nameIndex]), str(value)]);
const BAD = 'http://127.0.0.1:2379';
const GOOD = '127.0.0.1:2379';

/** Request 1 adds to the client's table: [62] content-type, [63] :authority BAD, [64] :path. */
const block1 = Buffer.concat([
  Buffer.from([0x83, 0x86]), // :method POST, :scheme http
  indexedLiteral(4, '/etcdserverpb.KV/Put'),
  indexedLiteral(1, BAD),
  indexedLiteral(31, 'application/grpc'),
]);
/** Request 2 refers to those entries and carries a never-indexed credential. */
const block2 = Buffer.concat([
  Buffer.from([0x83, 0x86, 0xc0, 0xbf, 0xbe]),
  Buffer.from([0x1f, 0x08]), // never indexed, name: static 23 (authorization)
  str('secret'),
]);

const want1 = [[':method', 'POST'], [':scheme', 'http'], [':path', '/etcdserverpb.KV/Put'], [':authority', GOOD], ['content-type', 'application/grpc']];
const want2 = [[':method', 'POST'], [':scheme', 'http'], [':path', '/etcdserverpb.KV/Put'], [':authority', GOOD], ['content-type', 'application/grpc'], ['authorization', 'secret']];

const data1 = frame(T.DATA, F.END_STREAM, 1, Buffer.from('put request body'));
const priority = Buffer.from([0x80, 0, 0, 1, 200]); // exclusive on stream 1, weight 201
const padLength = 7;
const clientStream = Buffer.concat([
  PREFACE,
  frame(T.SETTINGS, 0, 0, Buffer.from([0, 2, 0, 0, 0, 0])),
  frame(T.HEADERS, F.END_HEADERS, 1, block1),
  data1,
  // request 2: padded, with priority, split into HEADERS + CONTINUATION
  frame(T.HEADERS, F.PADDED | F.PRIORITY | F.END_STREAM, 3, Buffer.concat([Buffer.from([padLength]), priority, block2.subarray(0, 4), Buffer.alloc(padLength)])),
  frame(T.CONTINUATION, F.END_HEADERS, 3, block2.subarray(4)),
  frame(T.WINDOW_UPDATE, 0, 0, Buffer.from([0, 0, 0x40, 0])),
  frame(T.PING, 0, 0, Buffer.from('12345678')),
]);

const newFilter = () => new HeaderFrameFilter(repairAuthorityFields);
const run = (chunks: Buffer[]) => {
  const f = newFilter();
  return Buffer.concat(chunks.flatMap((c) => f.push(c)));
};

describe('HeaderFrameFilter', () => {
  const whole = run([clientStream]);

  it('repairs :authority in every block and keeps all other fields and frames', () => {
    const frames = parseFrames(whole);
    expect(frames.map((f) => [f.type, f.flags, f.streamId])).toEqual([
      [T.SETTINGS, 0, 0],
      [T.HEADERS, F.END_HEADERS, 1],
      [T.DATA, F.END_STREAM, 1],
      [T.HEADERS, F.PRIORITY | F.END_STREAM | F.END_HEADERS, 3], // padding dropped, one frame
      [T.WINDOW_UPDATE, 0, 0],
      [T.PING, 0, 0],
    ]);
    const server = new HpackDecoder();
    const h1 = server.decode(frames[1]!.payload);
    expect(h1.fields.map((f) => [f.name, f.value])).toEqual(want1);
    expect(frames[3]!.payload.subarray(0, 5)).toEqual(priority);
    const h2 = server.decode(frames[3]!.payload.subarray(5));
    expect(h2.fields.map((f) => [f.name, f.value])).toEqual(want2);
    expect(h2.fields.find((f) => f.name === 'authorization')?.sensitive).toBe(true);
    // Re-encoded blocks never index: the server's table stays empty.
    expect(server.table.entries).toEqual([]);
    // Everything else is byte for byte.
    expect(Buffer.concat([frame(frames[2]!.type, frames[2]!.flags, 1, frames[2]!.payload)])).toEqual(data1);
    expect(whole.subarray(whole.length - 17 - 13)).toEqual(clientStream.subarray(clientStream.length - 17 - 13));
  });

  it('gives the same bytes for the stream split in two at every offset', () => {
    for (let k = 1; k < clientStream.length; k++) {
      expect(run([clientStream.subarray(0, k), clientStream.subarray(k)]), `split at ${k}`).toEqual(whole);
    }
  });

  it('gives the same bytes fed one byte at a time', () => {
    const bytes = Array.from({ length: clientStream.length }, (_, i) => clientStream.subarray(i, i + 1));
    expect(run(bytes)).toEqual(whole);
  });

  it('passes a stream with accepted authorities through unchanged, a whole chunk as itself', () => {
    const good = Buffer.concat([
      PREFACE,
      frame(T.HEADERS, F.END_HEADERS, 1, Buffer.concat([Buffer.from([0x83, 0x86]), indexedLiteral(1, GOOD)])),
      data1,
      frame(T.HEADERS, F.END_HEADERS | F.END_STREAM, 3, Buffer.from([0x83, 0x86, 0xbe])),
    ]);
    const f = newFilter();
    const out = f.push(good);
    expect(out).toHaveLength(1);
    expect(out[0]).toEqual(good);
    expect(f.push(data1)[0]).toBe(data1);
    for (let k = 1; k < good.length; k++) expect(run([good.subarray(0, k), good.subarray(k)])).toEqual(good);
  });

  it('splits a re-encoded block larger than 16384 bytes into CONTINUATION frames', () => {
    const big = 'x'.repeat(120);
    // 200 literal fields with a 120-byte value each: about 25 KB of block, all raw strings.
    const fields = Buffer.concat(Array.from({ length: 200 }, (_, i) => Buffer.concat([Buffer.from([0x00]), str(`x-h${i}`), str(big)])));
    const block = Buffer.concat([indexedLiteral(1, BAD), fields]);
    const input = Buffer.concat([
      PREFACE,
      frame(T.HEADERS, F.PRIORITY, 1, Buffer.concat([priority, block.subarray(0, 16000)])),
      frame(T.CONTINUATION, 0, 1, block.subarray(16000, 20000)),
      frame(T.CONTINUATION, F.END_HEADERS, 1, block.subarray(20000)),
    ]);
    const frames = parseFrames(run([input]));
    expect(frames.every((f) => f.payload.length <= 16384)).toBe(true);
    expect(frames.map((f) => [f.type, f.flags])).toEqual([[T.HEADERS, F.PRIORITY], [T.CONTINUATION, F.END_HEADERS]]);
    expect(frames[0]!.payload.subarray(0, 5)).toEqual(priority);
    const decoded = new HpackDecoder().decode(Buffer.concat([frames[0]!.payload.subarray(5), frames[1]!.payload]));
    expect(decoded.fields).toHaveLength(201);
    expect(decoded.fields[0]).toEqual({ name: ':authority', value: GOOD, sensitive: false });
    expect(decoded.fields[200]).toEqual({ name: 'x-h199', value: big, sensitive: false });
  });

  it('steps aside, bytes unchanged, on a block it cannot decode before any rewrite', () => {
    const input = Buffer.concat([PREFACE, frame(T.HEADERS, F.END_HEADERS, 1, Buffer.from([0x80])), frame(T.HEADERS, F.END_HEADERS, 3, block1)]);
    expect(run([input])).toEqual(input);
  });

  it('steps aside when a CONTINUATION is missing', () => {
    const input = Buffer.concat([PREFACE, frame(T.HEADERS, 0, 1, block1), data1, frame(T.HEADERS, F.END_HEADERS, 3, block1)]);
    for (let k = 1; k < input.length; k++) expect(run([input.subarray(0, k), input.subarray(k)])).toEqual(input);
  });

  it('fails the connection on an undecodable block after a rewrite', () => {
    const f = newFilter();
    f.push(Buffer.concat([PREFACE, frame(T.HEADERS, F.END_HEADERS, 1, block1)]));
    expect(f.hasRewritten).toBe(true);
    expect(() => f.push(frame(T.HEADERS, F.END_HEADERS, 3, Buffer.from([0x80])))).toThrow(HeaderFilterError);
  });
});


/** The HeaderFilterError `push` throws, or null. */
function pushError(f: HeaderFrameFilter, chunk: Buffer): HeaderFilterError | null {
  try {
    f.push(chunk);
    return null;
  } catch (err) {
    if (err instanceof HeaderFilterError) return err;
    throw err;
  }
}

/** A filter that has rewritten stream 1's block. */
function rewritingFilter(): HeaderFrameFilter {
  const f = newFilter();
  f.push(Buffer.concat([PREFACE, frame(T.HEADERS, F.END_HEADERS, 1, block1)]));
  expect(f.hasRewritten).toBe(true);
  return f;
}

/** One 4000-octet entry added to the table, then `refs` one-byte references to it: an HPACK bomb. */
function bombBlock(refs: number): Buffer {
  const value = 'a'.repeat(4000);
  const entry = Buffer.concat([Buffer.from([0x40, 3]), Buffer.from('x-a'), Buffer.from([0x7f, ...[4000 - 127].flatMap((v) => [(v % 128) | 0x80, v >> 7])]), Buffer.from(value)]);
  return Buffer.concat([Buffer.from([0x83, 0x86]), entry, Buffer.alloc(refs, 0xbe)]);
}

describe('HeaderFrameFilter limits', () => {
  it('a CONTINUATION flood is not held: before a rewrite it is handed on at the limit', () => {
    const f = newFilter();
    const head = Buffer.concat([PREFACE, frame(T.HEADERS, 0, 1, block1)]);
    const empty = frame(T.CONTINUATION, 0, 1, Buffer.alloc(0));
    expect(f.push(head)).toEqual([PREFACE]);
    for (let i = 0; i < MAX_CONTINUATIONS; i++) expect(f.push(empty), `continuation ${i + 1}`).toEqual([]);
    // The next one is past nghttp2's limit: everything goes on unchanged, and so does the rest.
    expect(Buffer.concat(f.push(empty))).toEqual(Buffer.concat([head.subarray(24), ...Array.from({ length: MAX_CONTINUATIONS + 1 }, () => empty)]));
    expect(f.push(empty)).toEqual([empty]);
  });

  it('a CONTINUATION flood after a rewrite is a connection error, ENHANCE_YOUR_CALM', () => {
    const f = rewritingFilter();
    f.push(frame(T.HEADERS, 0, 3, block2));
    const empty = frame(T.CONTINUATION, 0, 3, Buffer.alloc(0));
    for (let i = 0; i < MAX_CONTINUATIONS; i++) expect(pushError(f, empty)).toBeNull();
    const err = pushError(f, empty);
    expect(err?.code).toBe(ErrorCode.ENHANCE_YOUR_CALM);
    expect(err?.lastStreamId).toBe(1);
  });

  it('an HPACK bomb is never expanded: a connection error after a rewrite', () => {
    const f = rewritingFilter();
    const block = bombBlock(15_000); // 19 KB that would decode to 60 MB
    const err = pushError(f, Buffer.concat([frame(T.HEADERS, F.END_STREAM, 3, block.subarray(0, 16_000)), frame(T.CONTINUATION, F.END_HEADERS, 3, block.subarray(16_000))]));
    expect(err?.code).toBe(ErrorCode.ENHANCE_YOUR_CALM);
    expect(err?.message).toMatch(/header list larger than/);
  });

  it('an HPACK bomb before a rewrite is handed on as it came (the server refuses it itself)', () => {
    const f = newFilter();
    const block = bombBlock(10_000);
    const input = Buffer.concat([PREFACE, frame(T.HEADERS, F.END_HEADERS, 1, block)]);
    expect(Buffer.concat(f.push(input))).toEqual(input);
  });

  it('a rewritten block stays within the bytes its input decodes to', () => {
    const f = rewritingFilter();
    const block = bombBlock(30); // 30 references to the 4000-octet entry: 120 KB decoded, within the limit
    const out = Buffer.concat(f.push(frame(T.HEADERS, F.END_HEADERS | F.END_STREAM, 3, block)));
    expect(out.length).toBeLessThan(31 * 4100);
    const frames = parseFrames(Buffer.concat([PREFACE, out]));
    expect(frames.length).toBeLessThanOrEqual(1 + MAX_CONTINUATIONS);
    const fields = new HpackDecoder().decode(Buffer.concat(frames.map((fr) => fr.payload))).fields;
    expect(fields).toHaveLength(2 + 1 + 30);
    expect(fields[32]).toEqual({ name: 'x-a', value: 'a'.repeat(4000), sensitive: false });
  });

  it('a table size update above 4096 is a COMPRESSION_ERROR after a rewrite', () => {
    const f = rewritingFilter();
    // 0x3f e1 1f: size update to 4096 + 1 (5-bit prefix: 31 + 0x61 + 0x1f * 128)
    const err = pushError(f, frame(T.HEADERS, F.END_HEADERS, 3, Buffer.from([0x3f, 0xe2, 0x1f, 0x82])));
    expect(err?.code).toBe(ErrorCode.COMPRESSION_ERROR);
    expect(pushError(rewritingFilter(), frame(T.HEADERS, F.END_HEADERS, 3, Buffer.from([0x3f, 0xe1, 0x1f, 0x82])))).toBeNull();
  });
});


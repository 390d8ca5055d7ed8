// The stateless HPACK encoder: whatever it writes, a decoder reads back
// exactly, without its dynamic table changing.

import { describe, expect, it } from 'vitest';
import { HpackDecoder, type HeaderField } from '../../../../main/common/http2/hpackDecoder';
import { encodeHeaderBlock } from '../../../../main/common/http2/hpackEncoder';

const f = (name: string, value: string, sensitive = false): HeaderField => ({ name, value, sensitive });
const latin1 = (bytes: number[]) => Buffer.from(bytes).toString('latin1');

describe('encodeHeaderBlock round trips', () => {
  const cases: { name: string; fields: HeaderField[]; updates?: number[] }[] = [
    { name: 'empty block', fields: [] },
    {
      name: 'a gRPC request',
      fields: [
        f(':method', 'POST'),
        f(':scheme', 'http'),
        f(':path', '/etcdserverpb.KV/Put'),
        f(':authority', '127.0.0.1:2379'),
        f('content-type', 'application/grpc'),
        f('user-agent', 'grpc-go/1.26.0'),
        f('te', 'trailers'),
        f('grpc-timeout', '4999877u'),
      ],
    },
    { name: 'never-indexed fields stay never indexed', fields: [f('authorization', 'token', true), f('x-secret', 'v', true)] },
    { name: 'empty names and values', fields: [f('', ''), f('x-empty', '')] },
    { name: 'every octet in a value', fields: [f('x-bin', latin1(Array.from({ length: 256 }, (_, i) => i)))] },
    { name: 'long value (multi-byte length)', fields: [f('x-long', 'v'.repeat(70000))] },
    { name: 'static name with a different value', fields: [f(':status', '599'), f('accept-encoding', 'br')] },
    { name: 'table size updates first', fields: [f(':method', 'GET')], updates: [0, 4096] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = new HpackDecoder();
      const block = encodeHeaderBlock(c.fields, c.updates);
      expect(d.decode(block)).toEqual({ fields: c.fields, tableSizeUpdates: c.updates ?? [] });
      expect(d.table.entries).toEqual([]);
    });
  }

  it('uses Huffman only when shorter', () => {
    // ':authority' is static index 1: 0x01, then the value.
    expect(encodeHeaderBlock([f(':authority', 'www.example.com')]).toString('hex')).toBe('018cf1e3c2e5f23a6ba0ab90f4ff');
    // '\x00\x00' codes to 13+13 bits (4 bytes) > 2 raw bytes.
    expect(encodeHeaderBlock([f(':authority', '\x00\x00')]).toString('hex')).toBe('01020000');
  });
});

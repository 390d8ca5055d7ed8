// The HPACK Huffman code: codes derived from the length table must be those
// of RFC 7541 Appendix B, and coding must round-trip every octet.

import { describe, expect, it } from 'vitest';
import { EOS, HuffmanError, huffmanCode, huffmanDecode, huffmanEncodedLength, huffmanEncodeInto } from '../../../../main/common/http2/huffman';

const encode = (buf: Buffer) => {
  const b = buf.toString('latin1');
  const out = Buffer.alloc(huffmanEncodedLength(b));
  expect(huffmanEncodeInto(b, out, 0)).toBe(out.length);
  return out;
};

describe('Huffman code table', () => {
  // [symbol, code, bits] straight from RFC 7541 Appendix B, spread over every code length.
  const appendixB: [number, number, number][] = [
    [0, 0x1ff8, 13], [1, 0x7fffd8, 23], [9, 0xffffea, 24], [10, 0x3ffffffc, 30], [22, 0x3ffffffe, 30],
    [31, 0xffffffb, 28], [32, 0x14, 6], [33, 0x3f8, 10], [35, 0xffa, 12], [38, 0xf8, 8], [39, 0x7fa, 11],
    [48, 0x0, 5], [58, 0x5c, 7], [60, 0x7ffc, 15], [92, 0x7fff0, 19], [94, 0x3ffc, 14], [122, 0x7b, 7],
    [126, 0x1ffd, 13], [127, 0xffffffc, 28], [128, 0xfffe6, 20], [153, 0x1fffdc, 21], [129, 0x3fffd2, 22],
    [199, 0x1ffffec, 25], [192, 0x3ffffe0, 26], [203, 0x7ffffde, 27], [220, 0xffffffd, 28],
    [249, 0xffffffe, 28], [254, 0x7fffff0, 27], [255, 0x3ffffee, 26], [EOS, 0x3fffffff, 30],
  ];
  for (const [symbol, code, bits] of appendixB) {
    it(`symbol ${symbol} is ${code.toString(16)}|${bits}`, () => {
      expect(huffmanCode(symbol)).toEqual({ code, bits });
    });
  }

  it('is a complete prefix code (Kraft sum exactly 1)', () => {
    let sum = 0;
    for (let s = 0; s <= EOS; s++) sum += 2 ** -huffmanCode(s).bits;
    expect(sum).toBe(1);
  });
});

describe('Huffman coding', () => {
  it('round-trips every octet, alone and together', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    for (let i = 0; i < 256; i++) expect(huffmanDecode(encode(all.subarray(i, i + 1)))).toEqual(all.subarray(i, i + 1));
    expect(huffmanDecode(encode(all))).toEqual(all);
  });

  it('codes RFC 7541 C.4.1 "www.example.com"', () => {
    expect(encode(Buffer.from('www.example.com')).toString('hex')).toBe('f1e3c2e5f23a6ba0ab90f4ff');
  });

  const bad: { name: string; hex: string }[] = [
    { name: 'EOS inside the string', hex: 'ffffffff' },
    { name: 'padding of 8 bits', hex: '1fff' }, // 'a' (00011) then 11 one-bits
    { name: 'padding that is not all ones', hex: '18' }, // 'a' then 000
  ];
  for (const c of bad) {
    it(`rejects ${c.name}`, () => {
      expect(() => huffmanDecode(Buffer.from(c.hex, 'hex'))).toThrow(HuffmanError);
    });
  }
});

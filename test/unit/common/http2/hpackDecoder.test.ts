// The HPACK decoder against RFC 7541 Appendix C: exact byte vectors, decoded
// header lists and the dynamic table after each block.

import { describe, expect, it } from 'vitest';
import { HeaderListTooLargeError, HpackDecoder, HpackError } from '../../../../main/common/http2/hpackDecoder';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const pairs = (fields: { name: string; value: string }[]) => fields.map((f) => [f.name, f.value]);

describe('RFC 7541 C.2 single representations', () => {
  const cases = [
    { name: 'C.2.1 literal with indexing', block: '400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572', want: ['custom-key', 'custom-header', false], table: 55 },
    { name: 'C.2.2 literal without indexing', block: '040c 2f73 616d 706c 652f 7061 7468', want: [':path', '/sample/path', false], table: 0 },
    { name: 'C.2.3 never indexed', block: '1008 7061 7373 776f 7264 0673 6563 7265 74', want: ['password', 'secret', true], table: 0 },
    { name: 'C.2.4 indexed', block: '82', want: [':method', 'GET', false], table: 0 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = new HpackDecoder();
      const { fields } = d.decode(hex(c.block));
      expect(fields.map((f) => [f.name, f.value, f.sensitive])).toEqual([c.want]);
      expect(d.table.size).toBe(c.table);
    });
  }
});

const requests = [
  [[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com']],
  [[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com'], ['cache-control', 'no-cache']],
  [[':method', 'GET'], [':scheme', 'https'], [':path', '/index.html'], [':authority', 'www.example.com'], ['custom-key', 'custom-value']],
];
const requestTables = [
  { entries: [[':authority', 'www.example.com']], size: 57 },
  { entries: [['cache-control', 'no-cache'], [':authority', 'www.example.com']], size: 110 },
  { entries: [['custom-key', 'custom-value'], ['cache-control', 'no-cache'], [':authority', 'www.example.com']], size: 164 },
];
const date1 = 'Mon, 21 Oct 2013 20:13:21 GMT';
const date2 = 'Mon, 21 Oct 2013 20:13:22 GMT';
const url = 'https://www.example.com';
const cookie = 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1';
const responses = [
  [[':status', '302'], ['cache-control', 'private'], ['date', date1], ['location', url]],
  [[':status', '307'], ['cache-control', 'private'], ['date', date1], ['location', url]],
  [[':status', '200'], ['cache-control', 'private'], ['date', date2], ['location', url], ['content-encoding', 'gzip'], ['set-cookie', cookie]],
];
const responseTables = [
  { entries: [['location', url], ['date', date1], ['cache-control', 'private'], [':status', '302']], size: 222 },
  { entries: [[':status', '307'], ['location', url], ['date', date1], ['cache-control', 'private']], size: 222 },
  { entries: [['set-cookie', cookie], ['content-encoding', 'gzip'], ['date', date2]], size: 215 },
];

const sequences = [
  {
    name: 'C.3 requests without Huffman',
    tableSize: 4096,
    blocks: [
      '8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
      '8286 84be 5808 6e6f 2d63 6163 6865',
      '8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65',
    ],
    want: requests,
    tables: requestTables,
  },
  {
    name: 'C.4 requests with Huffman',
    tableSize: 4096,
    blocks: ['8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff', '8286 84be 5886 a8eb 1064 9cbf', '8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf'],
    want: requests,
    tables: requestTables,
  },
  {
    name: 'C.5 responses without Huffman, evicting from a 256-byte table',
    tableSize: 256,
    blocks: [
      '4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
      '4803 3330 37c1 c0bf',
      '88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31',
    ],
    want: responses,
    tables: responseTables,
  },
  {
    name: 'C.6 responses with Huffman, evicting from a 256-byte table',
    tableSize: 256,
    blocks: [
      '4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3',
      '4883 640e ffc1 c0bf',
      '88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07',
    ],
    want: responses,
    tables: responseTables,
  },
];

describe('RFC 7541 C.3-C.6 sequences on one connection', () => {
  for (const s of sequences) {
    it(s.name, () => {
      const d = new HpackDecoder(s.tableSize);
      s.blocks.forEach((b, i) => {
        const { fields } = d.decode(hex(b));
        expect(pairs(fields), `block ${i + 1}`).toEqual(s.want[i]);
        expect({ entries: pairs(d.table.entries), size: d.table.size }, `table ${i + 1}`).toEqual(s.tables[i]);
      });
    });
  }
});

describe('table size updates and malformed blocks', () => {
  it('a size update at the block start evicts and is reported', () => {
    const d = new HpackDecoder();
    d.decode(hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572')); // 55 bytes
    const r = d.decode(hex('3f05 82')); // update to 36 (31 + 5), then :method GET
    expect(r.tableSizeUpdates).toEqual([36]);
    expect(d.table).toEqual({ entries: [], size: 0, maxSize: 36 });
    expect(pairs(r.fields)).toEqual([[':method', 'GET']]);
  });

  const bad = [
    { name: 'index 0', block: '80' },
    { name: 'index past the dynamic table', block: 'be' },
    { name: 'size update after a field', block: '82 20' },
    { name: 'truncated string', block: '0003 6162' },
    { name: 'truncated integer', block: 'ff' },
    { name: 'bad Huffman padding', block: '0081 18 00' },
  ];
  for (const c of bad) {
    it(`rejects ${c.name}`, () => {
      expect(() => new HpackDecoder().decode(hex(c.block))).toThrow(HpackError);
    });
  }
});

describe('header list size limit', () => {
  it('counts name, value and 32 octets per field, as SETTINGS_MAX_HEADER_LIST_SIZE does', () => {
    // :method GET is 7 + 3 + 32 = 42 octets: two fit in 84, not in 83.
    expect(new HpackDecoder(4096, 4096, { maxHeaderListSize: 84 }).decode(hex('82 82')).fields).toHaveLength(2);
    expect(() => new HpackDecoder(4096, 4096, { maxHeaderListSize: 83 }).decode(hex('82 82'))).toThrow(HeaderListTooLargeError);
  });

  it('stops an indexed entry referenced over and over (an HPACK bomb) at the limit', () => {
    const d = new HpackDecoder(4096, 4096, { maxHeaderListSize: 64 * 1024 });
    const entry = Buffer.concat([Buffer.from([0x40, 0x01, 0x78, 0x7f, 0x81, 0x1d]), Buffer.alloc(3856, 0x61)]); // x: 3856 × 'a' (127 + 1 + 29 × 128)
    expect(() => d.decode(Buffer.concat([entry, Buffer.alloc(100_000, 0xbe)]))).toThrow(/header list larger than 65536 octets/);
  });

  it('is unlimited by default', () => {
    expect(new HpackDecoder().decode(Buffer.alloc(10_000, 0x82)).fields).toHaveLength(10_000);
  });
});

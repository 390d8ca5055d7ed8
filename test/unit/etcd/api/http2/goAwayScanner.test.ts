// Finding a server's error GOAWAY in its byte stream, however the writes split it.

import { describe, expect, it } from 'vitest';
import { GoAwayScanner } from '../../../../../main/etcd/api/http2/goAwayScanner';

function frame(type: number, streamId: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(9);
  h.writeUIntBE(payload.length, 0, 3);
  h[3] = type;
  h.writeUInt32BE(streamId, 5);
  return Buffer.concat([h, payload]);
}
const goAway = (code: number) => {
  const p = Buffer.alloc(8 + 5);
  p.writeUInt32BE(3, 0);
  p.writeUInt32BE(code, 4);
  p.write('debug', 8);
  return frame(0x7, 0, p);
};
// A DATA frame whose payload looks like a GOAWAY header must not be mistaken for one.
const decoy = frame(0x0, 1, Buffer.concat([goAway(0x9), Buffer.alloc(20)]));
const settings = frame(0x4, 0, Buffer.alloc(6));

const scan = (chunks: Buffer[]) => {
  const s = new GoAwayScanner();
  return chunks.map((c) => s.push(c)).filter((c) => c !== undefined);
};

describe('GoAwayScanner', () => {
  const cases = [
    { name: 'an error GOAWAY after other frames', stream: Buffer.concat([settings, decoy, goAway(0x9)]), want: [0x9] },
    { name: 'a graceful GOAWAY (NO_ERROR)', stream: Buffer.concat([settings, goAway(0)]), want: [] },
    { name: 'no GOAWAY at all', stream: Buffer.concat([settings, decoy]), want: [] },
  ];
  for (const c of cases) {
    it(`${c.name}, split at every offset`, () => {
      expect(scan([c.stream])).toEqual(c.want);
      for (let k = 1; k < c.stream.length; k++) expect(scan([c.stream.subarray(0, k), c.stream.subarray(k)]), `split at ${k}`).toEqual(c.want);
      expect(scan(Array.from({ length: c.stream.length }, (_, i) => c.stream.subarray(i, i + 1)))).toEqual(c.want);
    });
  }
});

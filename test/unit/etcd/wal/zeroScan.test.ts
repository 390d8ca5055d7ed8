import { describe, expect, it } from 'vitest';
import { endOfNonZero, isTornTail } from '../../../../main/etcd/wal/reader';

const CHUNK = 64 * 1024;

function bufWith(size: number, nonZeroAt: number[]): Buffer {
  const b = Buffer.alloc(size);
  for (const i of nonZeroAt) b[i] = 7;
  return b;
}

describe('endOfNonZero', () => {
  const cases = [
    { name: 'all zeros', size: 3 * CHUNK, nonZeroAt: [], from: 10, want: 10 },
    { name: 'last byte set', size: 3 * CHUNK, nonZeroAt: [3 * CHUNK - 1], from: 0, want: 3 * CHUNK },
    { name: 'byte on a chunk boundary', size: 3 * CHUNK + 5, nonZeroAt: [2 * CHUNK], from: 0, want: 2 * CHUNK + 1 },
    { name: 'byte before from is ignored', size: 2 * CHUNK, nonZeroAt: [4], from: 5, want: 5 },
    { name: 'byte right at from', size: 2 * CHUNK, nonZeroAt: [5], from: 5, want: 6 },
    { name: 'several, the last wins', size: 4 * CHUNK, nonZeroAt: [1, CHUNK + 3, 3 * CHUNK - 2], from: 0, want: 3 * CHUNK - 1 },
  ];
  for (const c of cases) it(c.name, () => expect(endOfNonZero(bufWith(c.size, c.nonZeroAt), c.from)).toBe(c.want));
});

describe('isTornTail', () => {
  it('zeros after the claimed end over many chunks: torn', () => {
    expect(isTornTail(bufWith(5 * CHUNK, [0, 1, 2]), { offset: 0, reason: 'crc mismatch', claimedEnd: 100 })).toBe(true);
  });
  it('data far after the claimed end, no zero sector: not torn', () => {
    const b = Buffer.alloc(5 * CHUNK, 1);
    expect(isTornTail(b, { offset: 0, reason: 'crc mismatch', claimedEnd: 100 })).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { crc32c } from '../../../../main/etcd/wal/crc32c';

describe('crc32c', () => {
  const cases = [
    { name: 'empty', input: '', want: 0 },
    { name: 'check value', input: '123456789', want: 0xe3069283 },
    { name: 'single byte', input: 'a', want: 0xc1d04330 },
    { name: 'longer than one 8-byte step', input: 'The quick brown fox jumps over the lazy dog', want: 0x22620404 },
  ];
  for (const c of cases) {
    it(c.name, () => expect(crc32c(0, Buffer.from(c.input))).toBe(c.want));
  }

  it('chains: crc of a whole equals crc continued over its parts', () => {
    const buf = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 17) & 0xff));
    const whole = crc32c(0, buf);
    for (const cut of [0, 1, 7, 8, 9, 500, 999, 1000]) {
      expect(crc32c(crc32c(0, buf, 0, cut), buf, cut)).toBe(whole);
    }
  });

  it('matches a bitwise reference on random lengths', () => {
    const ref = (b: Uint8Array) => {
      let c = ~0 >>> 0;
      for (const x of b) {
        c ^= x;
        for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
      }
      return ~c >>> 0;
    };
    for (let n = 0; n < 70; n++) {
      const b = Uint8Array.from({ length: n * 3 + (n % 8) }, (_, i) => (i * 131 + n) & 0xff);
      expect(crc32c(0, b)).toBe(ref(b));
    }
  });
});

import { describe, expect, it } from 'vitest';
import { SnapshotProgressCounter } from '../../../main/backup/snapshotProgress';
import { snapshotFileName } from '../../../main/console/snapshots';

describe('snapshot progress from remaining_bytes', () => {
  // A 70 KiB + 512 body streamed in 32 KiB chunks, then the 32-byte sha256 message.
  const body = 32 * 1024 * 2 + 6 * 1024 + 512;
  const cases = [
    {
      name: 'three data chunks then the hash',
      msgs: [
        [32768, body - 32768],
        [32768, body - 65536],
        [body - 65536, 0],
        [32, 0],
      ],
      want: [
        [32768, body + 32],
        [65536, body + 32],
        [body, body + 32],
        [body + 32, body + 32],
      ],
    },
    { name: 'a body in one chunk', msgs: [[512, 0], [32, 0]], want: [[512, 544], [544, 544]] },
    { name: 'remaining as the wire\'s decimal string', msgs: [[512, '512'], [512, '0'], [32, '0']], want: [[512, 1056], [1024, 1056], [1056, 1056]] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = new SnapshotProgressCounter();
      expect(p.fraction).toBeUndefined();
      const seen = c.msgs.map(([len, rem]) => {
        p.add(len as number, rem as number | string);
        return [p.bytes, p.totalBytes];
      });
      expect(seen).toEqual(c.want);
      expect(p.fraction).toBe(1);
    });
  }
  it('fraction in between', () => {
    const p = new SnapshotProgressCounter();
    p.add(480, 512);
    expect(p.fraction).toBe(480 / 1024); // 480 + 512 + 32
  });
});

describe('snapshot file names', () => {
  it('sortable, without colons', () => {
    expect(snapshotFileName(new Date('2026-11-30T19:37:50.123Z'))).toBe('2026-11-30T19-37-50.123Z.db');
  });
});

import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Wal } from '../../../../main/etcd/wal';
import { SegmentFile } from '../../../../main/etcd/wal/segmentFile';
import { EntryType, type Entry } from '../../../../main/etcd/raft/types';
import { tempDirs, walFiles } from './helpers';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const MB = 1 << 20;

describe('SegmentFile', () => {
  const cases: { name: string; size: number; nonZeroAt: number[]; wantDataEnd: number }[] = [
    { name: 'all zeros', size: 3 * MB, nonZeroAt: [], wantDataEnd: 0 },
    { name: 'records at the start only', size: 3 * MB, nonZeroAt: [0, 100], wantDataEnd: 101 },
    // Reading stops at the first all-zero chunk; the byte past it is read only when asked for.
    { name: 'a stray byte past an all-zero chunk', size: 3 * MB, nonZeroAt: [5, 2 * MB + 7], wantDataEnd: 6 },
    { name: 'data in every chunk', size: 3 * MB, nonZeroAt: [5, MB + 1, 2 * MB + 7], wantDataEnd: 2 * MB + 8 },
    { name: 'the last byte of the file', size: MB + 3, nonZeroAt: [0, MB + 2], wantDataEnd: MB + 3 },
    // A segment's records start at offset 0: a first chunk of zeros ends the read (the scan then finds no header).
    { name: 'nothing in the first chunk', size: MB + 3, nonZeroAt: [MB + 2], wantDataEnd: 0 },
    { name: 'an empty file', size: 0, nonZeroAt: [], wantDataEnd: 0 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const path = join(dirs.make(), 'seg.wal');
      const bytes = Buffer.alloc(c.size);
      for (const at of c.nonZeroAt) bytes[at] = 0xa5;
      fs.writeFileSync(path, bytes);
      const f = SegmentFile.read(path);
      expect(f.size).toBe(c.size);
      expect(f.dataEnd).toBe(c.wantDataEnd);
      // Any prefix, even one past dataEnd, is exactly the file's.
      for (const len of [c.wantDataEnd, c.wantDataEnd + 16, c.size]) expect(f.materialize(len).equals(bytes.subarray(0, Math.min(len, c.size)))).toBe(true);
    });
  }
});

describe('Wal.open over the zero tail', () => {
  it('reads back a last record whose payload ends in more zeros than a record header', async () => {
    const dir = dirs.make();
    const data = new Uint8Array(300 * 1024);
    data[0] = 7;
    const entries: Entry[] = [
      { term: 1, index: 1, type: EntryType.Normal, data: new Uint8Array([1, 2, 3]) },
      { term: 1, index: 2, type: EntryType.Normal, data },
    ];
    const w = await Wal.create(dir, Buffer.from('meta'), { segmentBytes: 4 * MB });
    await w.save({ term: 1, vote: 1n, commit: 1 }, entries.slice(0, 1), true);
    await w.save(undefined, entries.slice(1), true);
    await w.close();

    const f = SegmentFile.read(join(dir, walFiles(dir)[0]));
    expect(f.dataEnd).toBeLessThan(200 * 1024); // the payload's zeros are not kept

    const opened = await Wal.open(dir, { index: 0, term: 0 }, { segmentBytes: 4 * MB });
    expect(opened.entries.map((e) => [e.index, e.data.length, e.data[0]])).toEqual([
      [1, 3, 1],
      [2, data.length, 7],
    ]);
    // Appending resumes after that record, not inside its zeros.
    await opened.wal.save({ term: 1, vote: 1n, commit: 3 }, [{ term: 1, index: 3, type: EntryType.Normal, data: new Uint8Array([9]) }], true);
    await opened.wal.close();
    const again = await Wal.open(dir, { index: 0, term: 0 }, { segmentBytes: 4 * MB });
    expect(again.entries.map((e) => e.index)).toEqual([1, 2, 3]);
    expect(again.hardState.commit).toBe(3);
    await again.wal.close();
  });

  it('reads on past a record whose payload holds whole chunks of zeros, and the records after it', async () => {
    const dir = dirs.make();
    const big = new Uint8Array(3 * MB);
    big[0] = 7;
    big[big.length - 1] = 9;
    const entries: Entry[] = [
      { term: 1, index: 1, type: EntryType.Normal, data: big },
      { term: 1, index: 2, type: EntryType.Normal, data: new Uint8Array([4, 5]) },
    ];
    const w = await Wal.create(dir, Buffer.from('meta'), { segmentBytes: 8 * MB });
    await w.save({ term: 1, vote: 1n, commit: 2 }, entries, true);
    await w.close();

    expect(SegmentFile.read(join(dir, walFiles(dir)[0])).dataEnd).toBeLessThan(2 * MB); // stopped at a chunk of the payload's zeros
    const opened = await Wal.open(dir, { index: 0, term: 0 }, { segmentBytes: 8 * MB });
    expect(opened.entries.map((e) => [e.index, e.data.length, e.data[0], e.data[e.data.length - 1]])).toEqual([
      [1, big.length, 7, 9],
      [2, 2, 4, 5],
    ]);
    expect(opened.hardState.commit).toBe(2);
    await opened.wal.close();
  });
});

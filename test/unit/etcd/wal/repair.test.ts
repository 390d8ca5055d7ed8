import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Wal } from '../../../../main/etcd/wal';
import { ents, tempDirs, walFiles } from './helpers';

// Crash damage is simulated on the bytes of a closed log, then the log is
// reopened: a torn tail must be cut away with everything before it intact and
// appending must resume; damage to data that was once durable must be
// reported with the file and offset.

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const SEG = 64 * 1024;
const META = Buffer.from('meta');
const ZERO = { index: 0, term: 0 };

interface Rec {
  offset: number;
  end: number;
  type: number;
  /** Entry index, for entry records. */
  index?: number;
}

/** Walks the frames of a segment (length u32 at the front of each) up to the zero fill. */
function records(buf: Buffer): Rec[] {
  const out: Rec[] = [];
  let at = 0;
  for (let n = 0; n < 100_000 && at + 8 <= buf.length; n++) {
    const len = buf.readUInt32LE(at);
    if (len === 0) break;
    const type = buf[at + 8];
    const rec: Rec = { offset: at, end: at + 8 + len, type };
    if (type === 2) rec.index = buf.readUInt32LE(at + 9 + 8);
    out.push(rec);
    at += 8 + len;
  }
  return out;
}

/**
 * A one-segment log of 12 saves of entries of 150 bytes and a hard state:
 * 3 entries each, then a last batch of 10 that spans several sectors.
 */
async function writeLog(dir: string, segmentBytes = SEG): Promise<string> {
  const w = await Wal.create(dir, META, { segmentBytes });
  for (let s = 0; s < 11; s++) await w.save({ term: 1, vote: 1n, commit: s * 3 }, ents(s * 3 + 1, s * 3 + 3, 1, 150), true);
  await w.save({ term: 1, vote: 1n, commit: 33 }, ents(34, 43, 1, 150), true);
  await w.close();
  return join(dir, walFiles(dir)[walFiles(dir).length - 1]);
}

const entryIndexesBefore = (recs: Rec[], offset: number) =>
  recs.filter((r) => r.index !== undefined && r.end <= offset).map((r) => r.index);

describe('torn tail repair', () => {
  const lastEntry = (recs: Rec[]) => recs.filter((r) => r.type === 2).at(-1)!;
  const cases: { name: string; damage: (path: string, recs: Rec[]) => number }[] = [
    {
      name: 'file cut short in the middle of the last record',
      damage: (path, recs) => {
        const r = recs.at(-1)!;
        fs.truncateSync(path, r.offset + 5);
        return r.offset;
      },
    },
    {
      name: 'file cut short in the middle of the last entry, before the hard state',
      damage: (path, recs) => {
        const r = lastEntry(recs);
        fs.truncateSync(path, r.offset + 60);
        return r.offset;
      },
    },
    {
      name: 'a flipped byte in the last record, zeros after it',
      damage: (path, recs) => {
        const r = lastEntry(recs);
        const buf = fs.readFileSync(path);
        buf[r.offset + 40] ^= 0x5a;
        // Drop the hard state after it so the entry is the last record.
        buf.fill(0, r.end);
        fs.writeFileSync(path, buf);
        return r.offset;
      },
    },
    {
      name: 'the tail of the last record never reached the disk (zero-filled)',
      damage: (path, recs) => {
        const r = recs.at(-1)!;
        const buf = fs.readFileSync(path);
        buf.fill(0, r.offset + 12, r.end);
        fs.writeFileSync(path, buf);
        return r.offset;
      },
    },
    {
      name: 'one sector of the last batch missing while later sectors landed',
      damage: (path, recs) => {
        // Last batch = ten entries + state; zero the first whole sector inside it.
        const batch = recs.slice(-11);
        const sector = Math.ceil((batch[0].offset + 1) / 512) * 512;
        expect(sector + 512).toBeLessThan(batch[10].offset);
        const buf = fs.readFileSync(path);
        buf.fill(0, sector, sector + 512);
        fs.writeFileSync(path, buf);
        return recs.find((r) => r.end > sector)!.offset;
      },
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const dir = dirs.make();
      const path = await writeLog(dir);
      const recs = records(fs.readFileSync(path));
      const tornAt = c.damage(path, recs);
      const want = entryIndexesBefore(recs, tornAt);
      expect(want.length).toBeGreaterThan(20);

      const got = await Wal.open(dir, ZERO, { segmentBytes: SEG });
      expect(got.entries.map((e) => e.index)).toEqual(want);
      expect(got.entries).toEqual(ents(1, want.length, 1, 150));
      // The tear is gone and the preallocation restored; the log continues after the last good record.
      expect(fs.statSync(path).size).toBe(SEG);
      const next = want.length + 1;
      await got.wal.save({ term: 2, vote: 3n, commit: next }, ents(next, next + 1, 2, 150), true);
      await got.wal.close();
      const again = await Wal.open(dir, ZERO, { segmentBytes: SEG });
      await again.wal.close();
      expect(again.entries).toEqual([...ents(1, want.length, 1, 150), ...ents(next, next + 1, 2, 150)]);
      expect(again.hardState).toEqual({ term: 2, vote: 3n, commit: next });
    });
  }
});

describe('corruption is reported, not repaired', () => {
  it('a flipped byte before the tail names the file and offset', async () => {
    const dir = dirs.make();
    const path = await writeLog(dir);
    const recs = records(fs.readFileSync(path));
    const victim = recs.filter((r) => r.type === 2)[10];
    const buf = fs.readFileSync(path);
    buf[victim.offset + 30] ^= 0x01;
    fs.writeFileSync(path, buf);
    const err = await Wal.open(dir, ZERO, { segmentBytes: SEG }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(`wal: corrupt record in ${path} at offset ${victim.offset}: crc mismatch`);
    // Nothing was rewritten.
    expect(fs.readFileSync(path).equals(buf)).toBe(true);
  });

  it('damage to the last record of a sealed segment is corruption', async () => {
    const dir = dirs.make();
    await writeLog(dir, 2048);
    const files = walFiles(dir);
    expect(files.length).toBeGreaterThan(2);
    const sealed = join(dir, files[0]);
    const buf = fs.readFileSync(sealed);
    const last = records(buf).at(-1)!;
    buf[last.end - 1] ^= 0xff;
    fs.writeFileSync(sealed, buf);
    await expect(Wal.open(dir, ZERO, { segmentBytes: 2048 })).rejects.toThrow(`wal: corrupt record in ${sealed} at offset ${last.offset}`);
  });

  it('a missing middle segment breaks the sequence', async () => {
    const dir = dirs.make();
    await writeLog(dir, 2048);
    fs.rmSync(join(dir, walFiles(dir)[1]));
    await expect(Wal.open(dir, ZERO, { segmentBytes: 2048 })).rejects.toThrow(/out of sequence/);
  });

  it('a segment swapped for one from another log breaks the crc chain', async () => {
    const a = dirs.make();
    const b = dirs.make();
    await writeLog(a, 2048);
    const w = await Wal.create(b, META, { segmentBytes: 2048 });
    for (let s = 0; s < 12; s++) await w.save({ term: 1, vote: 1n, commit: 0 }, ents(s * 3 + 1, s * 3 + 3, 1, 151), true);
    await w.close();
    const name = walFiles(a)[1];
    expect(walFiles(b)).toContain(name);
    fs.copyFileSync(join(b, name), join(a, name));
    await expect(Wal.open(a, ZERO, { segmentBytes: 2048 })).rejects.toThrow(/crc chain broken/);
  });
});

import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Wal } from '../../../../main/etcd/wal';
import type { Entry, HardState } from '../../../../main/etcd/raft/types';
import { ents, tempDirs, walFiles } from './helpers';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const SEG = 64 * 1024;
const META = Buffer.from('member=8e9e05c52164694d cluster=cdf818194e3a8c32');
const opts = { segmentBytes: SEG };

type Step =
  | { save: { hs?: HardState; entries: Entry[] } }
  | { snap: { index: number; term: number } };

async function runSteps(dir: string, steps: Step[]): Promise<void> {
  const w = await Wal.create(dir, META, opts);
  for (const s of steps) {
    if ('save' in s) await w.save(s.save.hs, s.save.entries, true);
    else await w.saveSnapshot(s.snap);
  }
  await w.close();
}

describe('Wal round trips', () => {
  const hs = (term: number, vote: bigint, commit: number): HardState => ({ term, vote, commit });
  const cases: { name: string; steps: Step[]; from?: { index: number; term: number }; want: { entries: Entry[]; hs: HardState } }[] = [
    { name: 'empty log', steps: [], want: { entries: [], hs: hs(0, 0n, 0) } },
    {
      name: 'entries and hard state',
      steps: [{ save: { hs: hs(1, 1n, 0), entries: ents(1, 3, 1) } }, { save: { hs: hs(1, 1n, 3), entries: [] } }],
      want: { entries: ents(1, 3, 1), hs: hs(1, 1n, 3) },
    },
    {
      name: 'a 64-bit member id as vote',
      steps: [{ save: { hs: hs(7, 0xfedcba9876543210n, 2), entries: ents(1, 2, 7) } }],
      want: { entries: ents(1, 2, 7), hs: hs(7, 0xfedcba9876543210n, 2) },
    },
    {
      name: 'a new leader overwrites an uncommitted tail',
      steps: [
        { save: { hs: hs(1, 1n, 2), entries: ents(1, 5, 1) } },
        { save: { hs: hs(2, 2n, 2), entries: ents(3, 4, 2) } },
      ],
      want: { entries: [...ents(1, 2, 1), ...ents(3, 4, 2)], hs: hs(2, 2n, 2) },
    },
    {
      name: 'open from a snapshot ref skips entries at or below it',
      steps: [
        { save: { hs: hs(1, 1n, 6), entries: ents(1, 6, 1) } },
        { snap: { index: 4, term: 1 } },
        { save: { entries: ents(7, 8, 1) } },
      ],
      from: { index: 4, term: 1 },
      want: { entries: ents(5, 8, 1), hs: hs(1, 1n, 6) },
    },
    {
      name: 'a snapshot received ahead of the log, then entries after it',
      steps: [
        { save: { hs: hs(1, 1n, 2), entries: ents(1, 3, 1) } },
        { snap: { index: 10, term: 3 } },
        { save: { hs: hs(3, 0n, 10), entries: ents(11, 12, 3) } },
      ],
      from: { index: 10, term: 3 },
      want: { entries: ents(11, 12, 3), hs: hs(3, 0n, 10) },
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const dir = dirs.make();
      await runSteps(dir, c.steps);
      const got = await Wal.open(dir, c.from ?? { index: 0, term: 0 }, opts);
      await got.wal.close();
      expect(Buffer.from(got.metadata)).toEqual(META);
      expect(got.hardState).toEqual(c.want.hs);
      expect(got.entries).toEqual(c.want.entries);
    });
  }

  it('large terms and indexes survive the u64 encoding', async () => {
    const dir = dirs.make();
    const big = 2 ** 45 + 5;
    await runSteps(dir, [{ snap: { index: big, term: 2 ** 40 } }, { save: { hs: hs(2 ** 40, 3n, big + 1), entries: ents(big + 1, big + 2, 2 ** 40) } }]);
    const got = await Wal.open(dir, { index: big, term: 2 ** 40 }, opts);
    await got.wal.close();
    expect(got.entries).toEqual(ents(big + 1, big + 2, 2 ** 40));
    expect(got.hardState).toEqual(hs(2 ** 40, 3n, big + 1));
  });

  it('appending continues after reopen, and the reopened log reads back whole', async () => {
    const dir = dirs.make();
    await runSteps(dir, [{ save: { hs: hs(1, 1n, 1), entries: ents(1, 2, 1) } }]);
    const a = await Wal.open(dir, { index: 0, term: 0 }, opts);
    await a.wal.save(hs(2, 1n, 3), ents(3, 4, 2), true);
    await a.wal.close();
    const b = await Wal.open(dir, { index: 0, term: 0 }, opts);
    await b.wal.close();
    expect(b.entries).toEqual([...ents(1, 2, 1), ...ents(3, 4, 2)]);
    expect(b.hardState).toEqual(hs(2, 1n, 3));
  });

  const failing = [
    { name: 'a snapshot ref with no marker', from: { index: 3, term: 1 }, err: /wal: snapshot not found/ },
    { name: 'a marker with another term', from: { index: 2, term: 9 }, err: /snapshot mismatch/ },
  ];
  for (const c of failing) {
    it(`open fails on ${c.name}`, async () => {
      const dir = dirs.make();
      await runSteps(dir, [{ save: { entries: ents(1, 4, 1) } }, { snap: { index: 2, term: 1 } }]);
      await expect(Wal.open(dir, c.from, opts)).rejects.toThrow(c.err);
    });
  }

  it('create refuses a directory that already holds a log; exists reports it', async () => {
    const dir = join(dirs.make(), 'member', 'wal');
    expect(Wal.exists(dir)).toBe(false);
    const w = await Wal.create(dir, META, opts);
    await w.close();
    expect(Wal.exists(dir)).toBe(true);
    expect(walFiles(dir)).toEqual(['0000000000000000-0000000000000000.wal']);
    await expect(Wal.create(dir, META, opts)).rejects.toThrow(/already exists/);
  });

  it('open removes temp files a crash left behind', async () => {
    const dir = dirs.make();
    await runSteps(dir, [{ save: { entries: ents(1, 2, 1) } }]);
    fs.writeFileSync(join(dir, '7.spare.wal.tmp'), Buffer.alloc(100));
    fs.writeFileSync(join(dir, '0000000000000001-0000000000000003.wal.tmp'), Buffer.alloc(100, 1));
    const got = await Wal.open(dir, { index: 0, term: 0 }, opts);
    expect(got.entries).toEqual(ents(1, 2, 1));
    await got.wal.close();
    expect(fs.readdirSync(dir)).toEqual(['0000000000000000-0000000000000000.wal']);
  });

  it('overlapping saves are serialized in call order', async () => {
    const dir = dirs.make();
    const w = await Wal.create(dir, META, opts);
    const all = ents(1, 40, 1);
    await Promise.all(all.map((e, i) => w.save({ term: 1, vote: 1n, commit: i }, [e], i % 3 === 0)));
    await w.close();
    const got = await Wal.open(dir, { index: 0, term: 0 }, opts);
    await got.wal.close();
    expect(got.entries).toEqual(all);
    expect(got.hardState.commit).toBe(39);
  });

  it('a closed log rejects further writes', async () => {
    const w = await Wal.create(dirs.make(), META, opts);
    await w.close();
    await expect(w.save(undefined, ents(1, 1, 1), true)).rejects.toThrow(/wal: closed/);
  });
});

describe('Wal segments', () => {
  it('cuts segments past the size limit and reads across them', async () => {
    const dir = dirs.make();
    const w = await Wal.create(dir, META, { segmentBytes: 4096 });
    const all: Entry[] = [];
    for (let i = 1; i <= 60; i++) {
      const e = ents(i, i, 1, 300);
      all.push(...e);
      await w.save({ term: 1, vote: 2n, commit: i - 1 }, e, true);
    }
    await w.close();
    // The spare segment kept ready for the next cut is discarded on close.
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    const files = walFiles(dir);
    expect(files.length).toBeGreaterThan(3);
    // Names are seq-index, consecutive seqs, index = first entry the segment may hold.
    files.forEach((f, i) => expect(f.slice(0, 16)).toBe(i.toString(16).padStart(16, '0')));
    const starts = files.map((f) => parseInt(f.slice(17, 33), 16));
    expect(starts[0]).toBe(0);
    for (let i = 1; i < starts.length; i++) expect(starts[i]).toBeGreaterThan(starts[i - 1]);
    // Sealed segments are truncated to their records; the live one stays preallocated.
    for (const f of files.slice(0, -1)) expect(fs.statSync(join(dir, f)).size).toBeLessThan(4096 + 400);
    expect(fs.statSync(join(dir, files[files.length - 1])).size).toBe(4096);

    const got = await Wal.open(dir, { index: 0, term: 0 }, { segmentBytes: 4096 });
    expect(got.entries).toEqual(all);
    expect(got.hardState).toEqual({ term: 1, vote: 2n, commit: 59 });
    await got.wal.save(undefined, ents(61, 61, 1), true);
    await got.wal.close();
    const again = await Wal.open(dir, { index: 0, term: 0 }, { segmentBytes: 4096 });
    await again.wal.close();
    expect(again.entries).toEqual([...all, ...ents(61, 61, 1)]);
  });

  it('releaseTo deletes only segments wholly below the index; open from the snapshot still works', async () => {
    const dir = dirs.make();
    const o = { segmentBytes: 4096 };
    const w = await Wal.create(dir, META, o);
    for (let i = 1; i <= 60; i++) await w.save({ term: 1, vote: 2n, commit: i }, ents(i, i, 1, 300), true);
    await w.saveSnapshot({ index: 40, term: 1 });
    const before = walFiles(dir);
    const starts = before.map((f) => parseInt(f.slice(17, 33), 16));
    await w.releaseTo(40);
    await w.close();
    // Kept: the last segment starting at or below 40 and everything after it.
    const keepFrom = starts.filter((s) => s <= 40).length - 1;
    expect(keepFrom).toBeGreaterThan(0);
    expect(walFiles(dir)).toEqual(before.slice(keepFrom));
    await expect(Wal.open(dir, { index: 0, term: 0 }, o)).rejects.toThrow(/file not found/);
    const got = await Wal.open(dir, { index: 40, term: 1 }, o);
    expect(got.entries).toEqual(Array.from({ length: 20 }, (_, i) => ents(41 + i, 41 + i, 1, 300)[0]));
    await got.wal.releaseTo(10 ** 6); // past everything: only the live segment survives
    await got.wal.close();
    expect(walFiles(dir)).toEqual(before.slice(-1));
  });
});

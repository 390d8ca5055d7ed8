import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Snapshotter } from '../../../../main/etcd/wal';
import type { Snapshot } from '../../../../main/etcd/raft/types';
import { tempDirs } from './helpers';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const snap = (term: number, index: number, fill = index): Snapshot => ({
  data: new Uint8Array(300).fill(fill & 0xff),
  metadata: { index, term, confState: { voters: [1n, 0xfedcba9876543210n, 3n], learners: [4n] } },
});

const listing = (dir: string) => fs.readdirSync(dir).sort();

describe('Snapshotter', () => {
  it('saves under etcd-style names and loads the newest back', async () => {
    const dir = join(dirs.make(), 'member', 'snap');
    const s = new Snapshotter(dir);
    expect(await s.loadNewest()).toBeUndefined();
    await s.save(snap(1, 10));
    await s.save(snap(2, 0x1f));
    await s.save(snap(1, 12));
    expect(listing(dir)).toEqual([
      '0000000000000001-000000000000000a.snap',
      '0000000000000001-000000000000000c.snap',
      '0000000000000002-000000000000001f.snap',
    ]);
    expect(await s.loadNewest()).toEqual(snap(2, 0x1f));
  });

  it('an empty snapshot (no data, no members) round-trips', async () => {
    const s = new Snapshotter(dirs.make());
    const empty: Snapshot = { data: new Uint8Array(0), metadata: { index: 1, term: 1, confState: { voters: [], learners: [] } } };
    await s.save(empty);
    expect(await s.loadNewest()).toEqual(empty);
  });

  it('ignores a leftover .tmp from a crash mid-save', async () => {
    const dir = dirs.make();
    const s = new Snapshotter(dir);
    await s.save(snap(1, 10));
    fs.writeFileSync(join(dir, '0000000000000001-0000000000000014.snap.tmp'), Buffer.from('half a snapsh'));
    expect(await s.loadNewest()).toEqual(snap(1, 10));
    await s.purge(5);
    expect(listing(dir)).toEqual(['0000000000000001-000000000000000a.snap']);
  });

  const damages: { name: string; damage: (path: string) => void }[] = [
    { name: 'a flipped byte', damage: (p) => { const b = fs.readFileSync(p); b[b.length - 7] ^= 1; fs.writeFileSync(p, b); } },
    { name: 'a truncated file', damage: (p) => fs.truncateSync(p, 30) },
    { name: 'an empty file', damage: (p) => fs.truncateSync(p, 0) },
  ];
  for (const d of damages) {
    it(`falls back to the previous snapshot when the newest has ${d.name}, renaming it .broken`, async () => {
      const dir = dirs.make();
      const s = new Snapshotter(dir);
      await s.save(snap(1, 10));
      await s.save(snap(1, 20));
      d.damage(join(dir, '0000000000000001-0000000000000014.snap'));
      expect(await s.loadNewest()).toEqual(snap(1, 10));
      expect(listing(dir)).toEqual(['0000000000000001-000000000000000a.snap', '0000000000000001-0000000000000014.snap.broken']);
    });
  }

  const purges = [
    { keep: 5, want: [3, 4, 5, 6, 7] },
    { keep: 2, want: [6, 7] },
    { keep: 0, want: [] },
    { keep: 10, want: [1, 2, 3, 4, 5, 6, 7] },
  ];
  for (const p of purges) {
    it(`purge(${p.keep}) keeps the newest ${p.keep}`, async () => {
      const dir = dirs.make();
      const s = new Snapshotter(dir);
      for (let i = 1; i <= 7; i++) await s.save(snap(1, i * 100));
      fs.writeFileSync(join(dir, 'db'), 'backend file, not ours');
      await s.purge(p.keep);
      const names = listing(dir).filter((n) => n.endsWith('.snap'));
      expect(names.map((n) => parseInt(n.slice(17, 33), 16) / 100)).toEqual(p.want);
      expect(fs.existsSync(join(dir, 'db'))).toBe(true);
    });
  }
});

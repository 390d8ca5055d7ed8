import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Snapshotter, Wal } from '../../../../main/etcd/wal';
import type { Snapshot } from '../../../../main/etcd/raft/types';
import { ents, tempDirs, walFiles } from './helpers';

// Choosing the snapshot to restart from: a snapshot file whose marker never
// reached the WAL (crash between the two writes), or whose index is beyond
// the durable commit, must not be picked, or Wal.open would fail forever.

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const snap = (term: number, index: number): Snapshot => ({
  data: Uint8Array.of(index & 0xff),
  metadata: { index, term, confState: { voters: [1n], learners: [] } },
});
const opts = { segmentBytes: 4096 };

describe('restart snapshot selection', () => {
  it('validSnapshotRefs lists markers at or below the commit, across segments and after releaseTo', async () => {
    const dir = dirs.make();
    const w = await Wal.create(dir, Buffer.from('m'), opts);
    for (let i = 1; i <= 40; i++) await w.save({ term: 1, vote: 1n, commit: i - 1 }, ents(i, i, 1, 200), true);
    await w.saveSnapshot({ index: 10, term: 1 });
    await w.saveSnapshot({ index: 30, term: 1 });
    await w.saveSnapshot({ index: 45, term: 1 }); // beyond the durable commit (39)
    await w.releaseTo(30); // drops the first segment and its {0,0} marker
    await w.close();
    expect(walFiles(dir)[0]).not.toBe('0000000000000000-0000000000000000.wal');
    expect(Wal.validSnapshotRefs(dir)).toEqual([
      { index: 10, term: 1 },
      { index: 30, term: 1 },
    ]);
  });

  it('a fresh log offers only the {0,0} marker', async () => {
    const dir = dirs.make();
    await (await Wal.create(dir, Buffer.from('m'), opts)).close();
    expect(Wal.validSnapshotRefs(dir)).toEqual([{ index: 0, term: 0 }]);
  });

  it('loadNewestAvailable skips a newer snapshot file the WAL never recorded; open from the result works', async () => {
    const root = dirs.make();
    const walDir = join(root, 'wal');
    const snaps = new Snapshotter(join(root, 'snap'));
    const w = await Wal.create(walDir, Buffer.from('m'), opts);
    await w.save({ term: 2, vote: 1n, commit: 20 }, ents(1, 20, 2), true);
    await snaps.save(snap(2, 12));
    await w.saveSnapshot({ index: 12, term: 2 });
    await snaps.save(snap(2, 18)); // crash here: the marker for 18 never written
    await w.close();

    expect(await snaps.loadNewest()).toEqual(snap(2, 18));
    const chosen = await snaps.loadNewestAvailable(Wal.validSnapshotRefs(walDir));
    expect(chosen).toEqual(snap(2, 12));
    const got = await Wal.open(walDir, { index: 12, term: 2 }, opts);
    await got.wal.close();
    expect(got.entries).toEqual(ents(13, 20, 2));
    await expect(Wal.open(walDir, { index: 18, term: 2 }, opts)).rejects.toThrow(/snapshot not found/);
  });
});

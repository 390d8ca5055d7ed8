import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MvccStore } from '../../../../main/etcd/mvcc/index';
import { bumpStoreRevision, checkRevisionBump } from '../../../../main/etcd/snapshot/revisionBump';
import { restoreSnapshot } from '../../../../main/etcd/snapshot/restore';
import { runSnapshotRestore } from '../../../../main/cmd/snapshot';
import { Membership } from '../../../../main/etcd/server/membership';
import { decodeSnapshotData, encodeSnapshotData } from '../../../../main/etcd/server/snapshotData';
import { encodeSnapshotFile } from '../../../../main/etcd/snapshotFile';
import { Snapshotter } from '../../../../main/etcd/wal/index';
import { delReq, putReq, rangeReq } from '../mvcc/helpers';

/** a=1 (rev 2), b=1 (3), a=2 (4), c (5) deleted (6): current 6, never compacted. */
function store(): MvccStore {
  const st = new MvccStore();
  st.put(putReq('a', '1'));
  st.put(putReq('b', '1'));
  st.put(putReq('a', '2'));
  st.put(putReq('c', 'x'));
  st.deleteRange(delReq('c'));
  return st;
}

const text = (b: Uint8Array) => Buffer.from(b).toString();

describe('bumping the revision (etcdutl --bump-revision --mark-compacted)', () => {
  it('moves the current revision forward by N and compacts there, keeping every live key at its own revisions', () => {
    const before = store();
    expect(before.currentRevision).toBe(6);
    const out = bumpStoreRevision(before.snapshot(), { bumpRevision: 1000, markCompacted: true });
    expect(out).toMatchObject({ revision: 1006, compactRevision: 1006 });
    const st = MvccStore.restore(out.mvcc);
    expect(st.currentRevision).toBe(1006);
    expect(st.compactRevision).toBe(1006);
    const all = st.range(rangeReq('\0', { end: '\0' }));
    expect(all.kvs.map((kv) => [text(kv.key), text(kv.value), kv.createRevision, kv.modRevision, kv.version])).toEqual([
      ['a', '2', 2, 4, 2],
      ['b', '1', 3, 3, 1],
    ]);
    // the deleted key's history is gone with the compaction
    expect(st.indexedKeys).toBe(2);
  });

  it('refuses reads and watches from any revision before the bumped one, as a compacted store does', () => {
    const st = MvccStore.restore(bumpStoreRevision(store().snapshot(), { bumpRevision: 10, markCompacted: true }).mvcc);
    expect(() => st.range(rangeReq('a', { revision: 4 }))).toThrow('mvcc: required revision has been compacted');
    expect(() => st.range(rangeReq('a', { revision: 15 }))).toThrow('mvcc: required revision has been compacted');
    // a watch from an old revision (an informer's resourceVersion) is compacted; from the new one it is not
    expect(() => st.eventsBetween(5, 0, 100)).toThrow('mvcc: required revision has been compacted');
    expect(st.eventsBetween(16, 0, 100)).toEqual([]);
  });

  it('gives the next write the revision after the bumped one', () => {
    const st = MvccStore.restore(bumpStoreRevision(store().snapshot(), { bumpRevision: 94, markCompacted: true }).mvcc);
    st.put(putReq('d', '1'));
    expect(st.currentRevision).toBe(101);
    expect(st.range(rangeReq('d')).kvs[0]!.modRevision).toBe(101);
    const events = st.eventsBetween(100, 0, 100);
    expect(events.map((e) => e.revision)).toEqual([101]);
  });

  it('takes the two flags only together, as etcdutl does', () => {
    expect(() => checkRevisionBump({ bumpRevision: 5, markCompacted: false })).toThrow('--mark-compacted required if --revision-bump > 0');
    expect(() => checkRevisionBump({ bumpRevision: 0, markCompacted: true })).toThrow('--mark-compacted required if --revision-bump > 0');
    expect(() => checkRevisionBump({ bumpRevision: -1, markCompacted: true })).toThrow(/invalid --bump-revision/);
    expect(() => checkRevisionBump({ bumpRevision: 0, markCompacted: false })).not.toThrow();
  });
});

describe('snapshot restore with a bump', () => {
  let dir: string;
  let snapFile: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ph-bump-'));
    const st = store();
    const data = encodeSnapshotData({ consistentIndex: 9, membership: new Membership().toSnapshot(), mvcc: st.snapshot() });
    snapFile = join(dir, 'snap.db');
    writeFileSync(snapFile, encodeSnapshotFile({ revision: 6, compactRevision: -1, keyCount: 2, storeHash: st.hash(), clusterId: 1n, memberId: 2n, consistentIndex: 9, data }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const opts = (dataDir: string) => ({
    snapshotPath: snapFile,
    dataDir,
    name: 'm1',
    initialCluster: 'm1=http://127.0.0.1:2380',
    initialAdvertisePeerUrls: ['http://127.0.0.1:2380'],
    initialClusterToken: 't',
    skipHashCheck: false,
  });

  it('writes the bumped, compacted store into the data dir the member starts from', async () => {
    const r = await restoreSnapshot({ ...opts(join(dir, 'm1')), bumpRevision: 500, markCompacted: true });
    expect(r).toMatchObject({ revision: 506, compactRevision: 506 });
    const snap = await new Snapshotter(join(dir, 'm1', 'member', 'snap')).loadNewest();
    const st = MvccStore.restore(decodeSnapshotData(snap!.data).mvcc);
    expect([st.currentRevision, st.compactRevision]).toEqual([506, 506]);
    const plain = await restoreSnapshot(opts(join(dir, 'm2')));
    expect(plain).toMatchObject({ revision: 6, compactRevision: -1 });
  });

  it('`pilothouse snapshot restore` takes --bump-revision with --mark-compacted and refuses either alone', async () => {
    let err = '';
    const flags = { name: 'm1', initialCluster: 'm1=http://127.0.0.1:2380', initialClusterToken: 't', initialAdvertisePeerUrls: 'http://127.0.0.1:2380' };
    expect(await runSnapshotRestore(snapFile, { ...flags, dataDir: join(dir, 'a'), bumpRevision: '7' }, (t) => void (err += t))).toBe(1);
    expect(err).toContain('Error: --mark-compacted required if --revision-bump > 0\n');
    err = '';
    expect(await runSnapshotRestore(snapFile, { ...flags, dataDir: join(dir, 'b'), markCompacted: true }, (t) => void (err += t))).toBe(1);
    expect(err).toContain('Error: --mark-compacted required if --revision-bump > 0\n');
    err = '';
    expect(await runSnapshotRestore(snapFile, { ...flags, dataDir: join(dir, 'c'), bumpRevision: '7', markCompacted: true }, (t) => void (err += t))).toBe(0);
    expect(err).toContain('"new-latest-revision":13');
  });
});

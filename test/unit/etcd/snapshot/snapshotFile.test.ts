import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDataDir } from '../../../../main/etcd/server/dataDir';
import { computeClusterId, computeMemberId } from '../../../../main/etcd/server/ids';
import { StateMachine } from '../../../../main/etcd/server/stateMachine';
import { decodeSnapshotBody, encodeSnapshotBody, hasHashTrailer, sha256, verifiedBody } from '../../../../main/etcd/snapshotFile';
import { restoreSnapshot } from '../../../../main/etcd/snapshot/restore';
import {
  formatStatusJson,
  formatStatusSimple,
  formatStatusTable,
  humanizeBytes,
  snapshotStatus,
} from '../../../../main/etcd/snapshot/status';
import { makeConfigs, putReq, rangeReq, start, stopAll, text } from '../server/clusterHarness';
import { freePorts } from '../../../support/freePorts';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'pilothouse-snap-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function sampleFile(keys = 3): { file: Buffer; sm: StateMachine } {
  const sm = new StateMachine();
  for (let i = 0; i < keys; i++) sm.store.put(putReq(`k${i}`, `v${i}`));
  sm.consistentIndex = 42;
  // the older PHSNAP1 format, as members wrote it before the Snapshot stream sent bbolt files
  const body = encodeSnapshotBody({
    revision: sm.store.currentRevision,
    compactRevision: sm.store.compactRevision,
    keyCount: sm.store.indexedKeys,
    storeHash: sm.store.hash(),
    clusterId: 0xabcn,
    memberId: 0x123n,
    consistentIndex: sm.consistentIndex,
    data: sm.snapshotData(),
  });
  return { file: Buffer.concat([body, sha256(body)]), sm };
}

describe('snapshot file format (PHSNAP1)', () => {
  it('is a 512-byte-aligned body plus a sha256 trailer, and reads back', () => {
    const { file, sm } = sampleFile();
    expect(file.length % 512).toBe(32);
    expect(hasHashTrailer(file.length)).toBe(true);
    const body = verifiedBody(file);
    expect(body.length % 512).toBe(0);
    const img = decodeSnapshotBody(body);
    expect(img).toMatchObject({ revision: 4, compactRevision: -1, keyCount: 3, clusterId: 0xabcn, memberId: 0x123n, consistentIndex: 42 });
    expect(img.storeHash).toBe(sm.store.hash());
    const copy = new StateMachine();
    copy.restore(img.data);
    expect(copy.store.hash()).toBe(sm.store.hash());
    expect(text(copy.store.range(rangeReq('k1')).kvs[0]!.value)).toBe('v1');
  });

  it('rejects a corrupt body with etcd’s message, and a file without trailer unless skipped', () => {
    const { file } = sampleFile();
    const bad = Buffer.from(file);
    bad[600] = bad[600]! ^ 0xff;
    expect(() => verifiedBody(bad)).toThrow(/^expected sha256 \[(\d+ ){31}\d+\], got \[(\d+ ){31}\d+\]$/);
    expect(verifiedBody(bad, true).length).toBe(file.length - 32);
    const bare = file.subarray(0, file.length - 32);
    expect(() => verifiedBody(bare)).toThrow('snapshot missing hash but --skip-hash-check=false');
    expect(decodeSnapshotBody(verifiedBody(bare, true)).revision).toBe(4);
    expect(() => decodeSnapshotBody(Buffer.alloc(512))).toThrow(/bad magic/);
  });

  it('prints status as etcdctl does', () => {
    const { file } = sampleFile();
    const st = snapshotStatus(file);
    expect(st.totalSize).toBe(file.length - 32);
    expect(st.revision).toBe(4);
    expect(st.totalKey).toBe(3);
    const hex = st.hash.toString(16);
    expect(formatStatusSimple(st)).toBe(`${hex}, 4, 3, ${humanizeBytes(st.totalSize)}\n`);
    expect(JSON.parse(formatStatusJson(st))).toEqual({ hash: st.hash, revision: 4, totalKey: 3, totalSize: st.totalSize });
    // layout checked against Debian's etcdctl 3.4 output for a 20480-byte file
    const table = formatStatusTable({ hash: 0x5b91b5a7, revision: 3, totalKey: 6, totalSize: 20480 });
    expect(table).toBe(
      [
        '+----------+----------+------------+------------+',
        '|   HASH   | REVISION | TOTAL KEYS | TOTAL SIZE |',
        '+----------+----------+------------+------------+',
        '| 5b91b5a7 |        3 |          6 |      20 kB |',
        '+----------+----------+------------+------------+',
        '',
      ].join('\n'),
    );
    const bad = Buffer.from(file);
    bad[0] = 0;
    expect(() => snapshotStatus(bad)).toThrow(/expected sha256/);
  });

  it('humanizes sizes as go-humanize', () => {
    expect(humanizeBytes(5)).toBe('5 B');
    expect(humanizeBytes(999)).toBe('999 B');
    expect(humanizeBytes(1000)).toBe('1.0 kB');
    expect(humanizeBytes(20480)).toBe('20 kB');
    expect(humanizeBytes(20512)).toBe('20 kB');
    expect(humanizeBytes(21500)).toBe('22 kB');
    expect(humanizeBytes(21600)).toBe('22 kB');
    expect(humanizeBytes(999_999)).toBe('1000 kB');
    expect(humanizeBytes(2097152)).toBe('2.1 MB');
  });
});

describe('snapshot restore', () => {
  it('refuses an existing data dir and a name outside the cluster', async () => {
    const dir = tempDir();
    const snap = join(dir, 's.db');
    writeFileSync(snap, sampleFile().file);
    mkdirSync(join(dir, 'exists'));
    const base = {
      snapshotPath: snap,
      name: 'a',
      initialCluster: 'a=http://127.0.0.1:24950',
      initialAdvertisePeerUrls: ['http://127.0.0.1:24950'],
      initialClusterToken: 't',
      skipHashCheck: false,
    };
    await expect(restoreSnapshot({ ...base, dataDir: join(dir, 'exists') })).rejects.toThrow(`data-dir "${join(dir, 'exists')}" exists`);
    await expect(restoreSnapshot({ ...base, name: 'b', dataDir: join(dir, 'x') })).rejects.toThrow(/couldn't find local name "b"/);
    expect(existsSync(join(dir, 'x'))).toBe(false);
  });

  it('writes data dirs of a new cluster that a member restarts from', async () => {
    const dir = tempDir();
    const snap = join(dir, 's.db');
    const { file, sm } = sampleFile(5);
    writeFileSync(snap, file);
    const urls = ['http://127.0.0.1:24950', 'http://127.0.0.1:24952', 'http://127.0.0.1:24954'];
    const initialCluster = urls.map((u, i) => `n${i + 1}=${u}`).join(',');
    const ids = urls.map((u) => computeMemberId([u], 'restored'));
    for (let i = 0; i < 3; i++) {
      const r = await restoreSnapshot({
        snapshotPath: snap,
        dataDir: join(dir, `n${i + 1}`),
        name: `n${i + 1}`,
        initialCluster,
        initialAdvertisePeerUrls: [urls[i]!],
        initialClusterToken: 'restored',
        skipHashCheck: false,
      });
      expect(r).toEqual({ memberId: ids[i], clusterId: computeClusterId(ids), index: 3, revision: 6, compactRevision: -1 });
      expect(readdirSync(join(dir, `n${i + 1}`, 'member', 'snap'))).toEqual(['0000000000000001-0000000000000003.snap']);
      for (const d of [join(dir, `n${i + 1}`), join(dir, `n${i + 1}`, 'member')]) expect((statSync(d).mode & 0o777).toString(8), d).toBe('700');
    }
    // A data dir that exists with wider modes (an older restore) is narrowed when the member opens it.
    chmodSync(join(dir, 'n1'), 0o755);
    // the restart path reads it: ids from the WAL, the snapshot at index 3 with the new voters
    const { members } = makeConfigs(await freePorts(6));
    const opened = await openDataDir({ ...members[0]!.config, dataDir: join(dir, 'n1') });
    try {
      expect((statSync(join(dir, 'n1')).mode & 0o777).toString(8)).toBe('700');
      expect(opened.id).toBe(ids[0]);
      expect(opened.clusterId).toBe(computeClusterId(ids));
      expect(opened.snapshot!.metadata).toEqual({ index: 3, term: 1, confState: { voters: ids, learners: [] } });
      expect(opened.storage.initialState().hardState).toEqual({ term: 1, vote: ids[0], commit: 3 });
      const restored = new StateMachine();
      restored.restore(opened.snapshot!.data);
      expect(restored.consistentIndex).toBe(3);
      expect(restored.store.hash()).toBe(sm.store.hash());
      expect(restored.membership.list().map((m) => m.name).sort()).toEqual(['n1', 'n2', 'n3']);
    } finally {
      await opened.wal.close();
    }
  });

  it('boots a one-member cluster holding the keys', async () => {
    const dir = tempDir();
    const snap = join(dir, 's.db');
    writeFileSync(snap, sampleFile(4).file);
    const { dir: hdir, members } = makeConfigs(await freePorts(6));
    const m = members[0]!;
    m.config.initialCluster = new Map([['m1', m.config.initialAdvertisePeerUrls]]);
    await restoreSnapshot({
      snapshotPath: snap,
      dataDir: m.config.dataDir,
      name: 'm1',
      initialCluster: `m1=${m.config.initialAdvertisePeerUrls[0]}`,
      initialAdvertisePeerUrls: m.config.initialAdvertisePeerUrls,
      initialClusterToken: 'boot',
      skipHashCheck: false,
    });
    try {
      const member = await start(m);
      await member.ready;
      expect(member.id).toBe(computeMemberId(m.config.initialAdvertisePeerUrls, 'boot'));
      const got = await member.range(rangeReq('k3'));
      expect(text(got.result.kvs[0]!.value)).toBe('v3');
      const put = await member.put(putReq('after', 'restore'));
      expect(put.result.revision).toBe(6);
    } finally {
      await stopAll(hdir, members);
    }
  }, 20_000);
});

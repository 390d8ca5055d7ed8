// Snapshots in etcd's backend format: the member's capture written as bbolt
// buckets and read back (status, contents, restore), and a file that
// `etcdctl snapshot save` fetched from Debian's etcd 3.4 (the fixture was made
// by: put a 1; put b 2; put a 3; del b; lease grant 300; put --lease leased x;
// put c 4; compact 4 — its `etcdctl snapshot status -w json` is below).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BoltDb } from '../../../../main/etcd/bbolt/index';
import { encodeInternalRequest, type InternalRequest } from '../../../../main/etcd/server/internalRequest';
import { openDataDir } from '../../../../main/etcd/server/dataDir';
import { encodeSnapshotData } from '../../../../main/etcd/server/snapshotData';
import { captureSnapshotBody } from '../../../../main/etcd/server/snapshotCapture';
import { StateMachine } from '../../../../main/etcd/server/stateMachine';
import { readSnapshotContents } from '../../../../main/etcd/snapshot/contents';
import { restoreSnapshot } from '../../../../main/etcd/snapshot/restore';
import { readSnapshotState } from '../../../../main/etcd/snapshot/snapshotState';
import { snapshotStatus } from '../../../../main/etcd/snapshot/status';
import { sha256 } from '../../../../main/etcd/snapshotFile';
import { makeConfigs } from '../server/clusterHarness';
import { freePorts } from '../../../support/freePorts';

const FIXTURE = join(__dirname, '../../../fixtures/etcd/etcd34-snapshot.db');
const enc = (s: string) => new TextEncoder().encode(s);
const dir = mkdtempSync(join(tmpdir(), 'pilothouse-boltsnap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function apply(sm: StateMachine, reqs: Omit<InternalRequest, 'id'>[]): void {
  for (const [i, r] of reqs.entries()) sm.applyNormal(sm.consistentIndex + 1, encodeInternalRequest({ id: BigInt(i + 1), ...r } as InternalRequest));
}
const put = (key: string, value: string, lease = 0n) => ({ put: { key: enc(key), value: enc(value), lease, prevKv: false, ignoreValue: false, ignoreLease: false } });

/** The fixture's history, applied to our state machine. */
function sameHistory(): StateMachine {
  const sm = new StateMachine();
  apply(sm, [
    put('a', '1'),
    put('b', '2'),
    put('a', '3'),
    { deleteRange: { key: enc('b'), rangeEnd: new Uint8Array(0), prevKv: false } },
    { leaseGrant: { id: 0x7090a23b792ae20an, ttl: 300 } },
    put('leased', 'x', 0x7090a23b792ae20an),
    put('c', '4'),
    { compaction: { revision: 4, physical: false } },
  ]);
  return sm;
}

/** The member's capture as the Snapshot stream sends it, in 32 KiB chunks. */
function captured(sm: StateMachine): Buffer {
  return Buffer.concat([...captureSnapshotBody(sm).chunks(32 * 1024)]);
}

function withTrailer(body: Buffer): Buffer {
  return Buffer.concat([body, sha256(body)]);
}

describe('bbolt snapshots', () => {
  it('reads etcd 3.4’s file as etcdctl snapshot status does', () => {
    expect(snapshotStatus(readFileSync(FIXTURE))).toEqual({ hash: 8080497, revision: 7, totalKey: 12, totalSize: 20480 });
    const c = readSnapshotContents(readFileSync(FIXTURE), { skipHashCheck: true });
    expect(c.revision).toBe(7);
    expect(c.compactRevision).toBe(4);
    expect(c.kvs.map((kv) => [Buffer.from(kv.key).toString(), Buffer.from(kv.value).toString(), kv.createRevision, kv.modRevision, kv.version])).toEqual([
      ['a', '3', 2, 4, 2],
      ['c', '4', 7, 7, 1],
      ['leased', 'x', 6, 6, 1],
    ]);
    expect(c.kvs[2]!.lease).toBe(Number(0x7090a23b792ae20an));
  });

  it('writes the same key, lease and meta rows as etcd 3.4 for the same history', () => {
    const ours = BoltDb.open(captured(sameHistory()));
    const theirs = BoltDb.open(readFileSync(FIXTURE));
    expect(ours.check()).toEqual([]);
    const rows = (db: BoltDb, bucket: string) => {
      const out: string[] = [];
      db.root.bucket(bucket)!.forEach((e) => out.push(`${e.key.toString('hex')}=${e.value.toString('hex')}`));
      return out;
    };
    for (const bucket of ['key', 'lease', 'auth', 'cluster', 'alarm', 'authRoles', 'authUsers', 'members_removed']) {
      expect(rows(ours, bucket), bucket).toEqual(rows(theirs, bucket));
    }
    // meta: the same compaction rows; the consistent index is each member's own Raft index
    expect(rows(ours, 'meta').slice(1)).toEqual(rows(theirs, 'meta').slice(1));
    const names: string[] = [];
    ours.root.forEach((e) => names.push(e.key.toString()));
    expect(names).toEqual(['alarm', 'auth', 'authRoles', 'authUsers', 'cluster', 'key', 'lease', 'members', 'members_removed', 'meta']);
  });

  it('captures a state machine that reads back with equal hash, revisions and leases', () => {
    const sm = sameHistory();
    for (let i = 0; i < 3000; i++) apply(sm, [put(`bulk/${String(i).padStart(5, '0')}`, 'x'.repeat(i % 7 === 0 ? 9000 : 300))]);
    const file = withTrailer(captured(sm));
    const st = readSnapshotState(file);
    expect(st.format).toBe('bbolt');
    expect(st.revision).toBe(sm.store.currentRevision);
    expect(st.compactRevision).toBe(4);
    expect(st.data.consistentIndex).toBe(sm.consistentIndex);
    const back = new StateMachine();
    back.restore(encodeSnapshotData(st.data));
    expect(back.store.hash()).toBe(sm.store.hash());
    expect(back.lessor.toRecords()).toEqual(sm.lessor.toRecords());
    const status = snapshotStatus(file);
    expect(status.revision).toBe(sm.store.currentRevision);
    expect(status.totalSize).toBe(file.length - 32);
    const bad = Buffer.from(file);
    bad[5 * 4096 + 100]! ^= 1;
    expect(() => readSnapshotState(bad)).toThrow(/expected sha256/);
  });

  it('restores etcd 3.4’s file into a data dir a member restarts from', async () => {
    const snap = join(dir, 'etcd.db');
    const bare = join(dir, 'member-db'); // a member's db file as is: no sha256 trailer
    const file = readFileSync(FIXTURE);
    writeFileSync(snap, file);
    writeFileSync(bare, file.subarray(0, file.length - 32));
    const url = 'http://127.0.0.1:24960';
    const opts = { name: 'n1', initialCluster: `n1=${url}`, initialAdvertisePeerUrls: [url], initialClusterToken: 't' };
    await expect(restoreSnapshot({ ...opts, snapshotPath: bare, dataDir: join(dir, 'refused'), skipHashCheck: false })).rejects.toThrow(
      'snapshot missing hash but --skip-hash-check=false',
    );
    expect((await restoreSnapshot({ ...opts, snapshotPath: bare, dataDir: join(dir, 'bare'), skipHashCheck: true })).revision).toBe(7);
    const r = await restoreSnapshot({ ...opts, snapshotPath: snap, dataDir: join(dir, 'n1'), skipHashCheck: false });
    expect(r.revision).toBe(7);
    const { members } = makeConfigs(await freePorts(6));
    const opened = await openDataDir({ ...members[0]!.config, dataDir: join(dir, 'n1') });
    try {
      const sm = new StateMachine();
      sm.restore(opened.snapshot!.data);
      expect(sm.store.currentRevision).toBe(7);
      expect(sm.store.compactRevision).toBe(4);
      expect(sm.store.hash()).toBe(sameHistory().store.hash());
      expect(sm.lessor.toRecords()).toEqual([{ id: 0x7090a23b792ae20an, ttl: 300 }]);
    } finally {
      await opened.wal.close();
    }
  });
});

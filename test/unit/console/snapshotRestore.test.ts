import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RestoreProgress } from '../../../preload/contract';
import { encodeSnapshotFile } from '../../../main/etcd/snapshotFile';
import { Membership } from '../../../main/etcd/server/membership';
import { encodeSnapshotData } from '../../../main/etcd/server/snapshotData';
import { clusterLayout } from '../../../main/controlplane/localCluster';
import type { MemberClient } from '../../../main/client/etcd/memberClient';
import { MvccStore } from '../../../main/etcd/mvcc/index';
import { restoreCluster, type RestoreDeps } from '../../../main/console/snapshotRestore';

let dir: string;
let snapFile: string;
let events: RestoreProgress[];
let calls: string[];

function deps(healthy: boolean): RestoreDeps {
  const layout = clusterLayout({ dataDir: dir, portBase: 28600, program: { command: 'x', args: [] }, tls: true });
  const client = {
    healthRead: async () => {
      if (!healthy) throw new Error('UNAVAILABLE: connection refused');
    },
    countKeys: async () => 17,
  } as unknown as MemberClient;
  return {
    layout,
    client: () => client,
    stopMembers: async () => void calls.push('stop'),
    startMembers: () => void calls.push('start'),
    events: { emit: (_n, p) => events.push(p as RestoreProgress) },
    healthyTimeoutMs: 300,
    bumpRevision: 100,
  };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ph-restore-'));
  events = [];
  calls = [];
  for (const m of ['m1', 'm2', 'm3']) {
    mkdirSync(join(dir, m, 'member'), { recursive: true });
    writeFileSync(join(dir, m, 'old-marker'), m);
  }
  const store = new MvccStore();
  for (const k of ['a', 'b', 'c', 'd']) store.put({ key: Buffer.from(`/registry/configmaps/default/${k}`), value: Buffer.from('v'), lease: 0n, prevKv: false, ignoreValue: false, ignoreLease: false });
  const data = encodeSnapshotData({ consistentIndex: 9, membership: new Membership().toSnapshot(), mvcc: store.snapshot() });
  snapFile = join(dir, 'snap.db');
  writeFileSync(snapFile, encodeSnapshotFile({ revision: 5, compactRevision: -1, keyCount: 4, storeHash: store.hash(), clusterId: 1n, memberId: 2n, consistentIndex: 9, data }));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('restoring the embedded cluster', () => {
  it('stops, sets the old dirs aside, restores each member into a new cluster, starts, and drops the old dirs once healthy', async () => {
    const out = await restoreCluster(deps(true), snapFile, new Date('2026-11-30T20:00:00Z'));
    expect(out.keys).toBe(17);
    // bumped past the live cluster and compacted there (main/backup/recovery.ts)
    expect(out.revision).toBe(105);
    expect(out.clusterId).toMatch(/^[0-9a-f]{16}$/);
    expect(calls).toEqual(['stop', 'start']);
    for (const m of ['m1', 'm2', 'm3']) {
      expect(existsSync(join(dir, m, 'old-marker'))).toBe(false);
      expect(readdirSync(join(dir, m, 'member')).sort()).toEqual(['pilothouse-format', 'snap', 'wal']);
    }
    expect(readdirSync(dir).filter((n) => n.includes('.bak-'))).toEqual([]);
    expect(events.at(-1)).toEqual({ step: 'serving', state: 'done', detail: '17 keys at revision 105', clusterId: out.clusterId, keys: 17 });
    // a second restore is yet another cluster
    const again = await restoreCluster(deps(true), snapFile, new Date('2026-11-30T20:05:00Z'));
    expect(again.clusterId).not.toBe(out.clusterId);
  });

  it('puts the old data dirs back and starts the old cluster when the restored one never becomes healthy', async () => {
    await expect(restoreCluster(deps(false), snapFile)).rejects.toThrow(/^restore failed at start: restored members not healthy within 300 ms/);
    expect(calls).toEqual(['stop', 'start', 'stop', 'start']);
    for (const m of ['m1', 'm2', 'm3']) expect(readFileSync(join(dir, m, 'old-marker'), 'utf8')).toBe(m);
    expect(readdirSync(dir).filter((n) => n.includes('.bak-'))).toEqual([]);
    const last = events.at(-1)!;
    expect(last.state).toBe('failed');
    expect(last.detail).toMatch(/the previous data dirs were put back and the old plane started again$/);
  });

  it('a snapshot of a keyspace without Kubernetes objects is refused before anything is stopped', async () => {
    const plain = new MvccStore();
    plain.put({ key: Buffer.from('greeting'), value: Buffer.from('hello'), lease: 0n, prevKv: false, ignoreValue: false, ignoreLease: false });
    const data = encodeSnapshotData({ consistentIndex: 3, membership: new Membership().toSnapshot(), mvcc: plain.snapshot() });
    writeFileSync(snapFile, encodeSnapshotFile({ revision: 2, compactRevision: -1, keyCount: 1, storeHash: plain.hash(), clusterId: 1n, memberId: 2n, consistentIndex: 3, data }));
    await expect(restoreCluster(deps(true), snapFile)).rejects.toThrow(/^restore failed at verify: refusing to restore the control plane from .*: no Kubernetes objects: none of its 1 keys is under \/registry\//);
    expect(calls).toEqual([]);
  });

  it('a corrupt file fails before anything is stopped', async () => {
    const bytes = readFileSync(snapFile);
    bytes[700] ^= 1;
    writeFileSync(snapFile, bytes);
    await expect(restoreCluster(deps(true), snapFile)).rejects.toThrow(/^restore failed at verify: snapshot .* is damaged: sha256 checksum mismatch/);
    expect(calls).toEqual([]);
    expect(events.map((e) => `${e.step}:${e.state}`)).toEqual(['verify:running', 'verify:failed']);
  });
});

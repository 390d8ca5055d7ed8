// The restore walkthrough on the engine, with a plane whose processes are
// recorded calls: the gate holds the run before anything stops, a confirmed
// run restores every member, and a restored plane that never serves is
// rolled back by the failing step, which says so.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MemberClient } from '../../../main/client/etcd/memberClient';
import { clusterLayout } from '../../../main/controlplane/localCluster';
import { restoreWalkthrough } from '../../../main/backup/restoreWalkthrough';
import type { RecoveryPlane } from '../../../main/backup/recovery';
import { MvccStore } from '../../../main/etcd/mvcc/index';
import { Membership } from '../../../main/etcd/server/membership';
import { encodeSnapshotData } from '../../../main/etcd/server/snapshotData';
import { encodeSnapshotFile } from '../../../main/etcd/snapshotFile';
import { WalkthroughEngine } from '../../../main/walkthrough/engine';
import { eventually } from '../../support/waitFor';

let dir: string;
let snapFile: string;
let calls: string[];
let engine: WalkthroughEngine;

function plane(healthy: boolean): RecoveryPlane {
  const layout = clusterLayout({ dataDir: dir, portBase: 23940, program: { command: '', args: [] }, tls: true });
  const client = {
    status: async () => ({ header: { revision: '40' } }),
    healthRead: async () => {
      if (!healthy) throw new Error('UNAVAILABLE: connection refused');
    },
    countKeys: async () => 3,
  } as unknown as MemberClient;
  return { layout, client: () => client, stopAll: async () => void calls.push('stop'), startAll: () => void calls.push('start') };
}

function start(healthy: boolean): WalkthroughEngine {
  engine = new WalkthroughEngine({ dir: join(dir, 'walkthroughs'), definitions: [restoreWalkthrough({ plane: () => plane(healthy), healthyTimeoutMs: 300 })] });
  return engine;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ph-restore-walkthrough-'));
  calls = [];
  for (const m of ['m1', 'm2', 'm3']) {
    mkdirSync(join(dir, m, 'member'), { recursive: true });
    writeFileSync(join(dir, m, 'old-marker'), m);
  }
  const store = new MvccStore();
  for (const k of ['a', 'b', 'c']) store.put({ key: Buffer.from(`/registry/configmaps/default/${k}`), value: Buffer.from('v'), lease: 0n, prevKv: false, ignoreValue: false, ignoreLease: false });
  const data = encodeSnapshotData({ consistentIndex: 9, membership: new Membership().toSnapshot(), mvcc: store.snapshot() });
  snapFile = join(dir, 'snap.db');
  writeFileSync(snapFile, encodeSnapshotFile({ revision: 4, compactRevision: -1, keyCount: 3, storeHash: store.hash(), clusterId: 1n, memberId: 2n, consistentIndex: 9, data }));
});
afterEach(() => {
  engine?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('the restore walkthrough', () => {
  it('waits at the gate before the stop, then restores every member past the live revision and ends with its figures', async () => {
    const e = start(true);
    const run = await e.start('restore', { file: snapFile, dataDir: dir });
    await eventually('the gate before the stop', () => e.get(run.id)?.state === 'waiting');
    const waiting = e.get(run.id)!;
    expect(waiting.steps.map((s) => `${s.id}:${s.state}`)).toEqual(['verify:succeeded', 'plan:succeeded', 'stop:pending', 'set-aside:pending', 'restore:pending', 'start:pending', 'serving:pending']);
    expect(waiting.steps[2]!.gate).toBe('confirm');
    expect(waiting.steps[1]!.verdict).toBe('bump 10036: restored at revision 10040');
    expect(calls).toEqual([]);
    e.confirm(run.id);
    const done = await e.wait(run.id);
    expect(done.state).toBe('succeeded');
    expect(calls).toEqual(['stop', 'start']);
    expect(done.figures).toMatchObject({ snapshotRevision: 4, liveRevision: 40, bump: 10036, restoredRevision: 10040, keys: 3 });
    for (const m of ['m1', 'm2', 'm3']) expect(existsSync(join(dir, m, 'old-marker'))).toBe(false);
    expect(readdirSync(dir).filter((n) => n.includes('.bak-'))).toEqual([]);
    expect(readFileSync(done.report!.markdown, 'utf8')).toContain('--bump-revision $BUMP --mark-compacted');
  });

  it('rolls back in the failing step when the restored members never serve: old dirs back, old plane started, and the error says so', async () => {
    const e = start(false);
    const run = await e.start('restore', { file: snapFile, dataDir: dir });
    await eventually('the gate', () => e.get(run.id)?.state === 'waiting');
    e.confirm(run.id);
    const done = await e.wait(run.id);
    expect(done.state).toBe('failed');
    const failed = done.steps.find((s) => s.state === 'failed')!;
    expect(failed.id).toBe('start');
    expect(failed.error).toMatch(/^restored members not healthy within 300 ms .*; the previous data dirs were put back and the old plane started again$/);
    expect(calls).toEqual(['stop', 'start', 'stop', 'start']);
    for (const m of ['m1', 'm2', 'm3']) expect(readFileSync(join(dir, m, 'old-marker'), 'utf8')).toBe(m);
    expect(readdirSync(dir).filter((n) => n.includes('.bak-'))).toEqual([]);
  });
});

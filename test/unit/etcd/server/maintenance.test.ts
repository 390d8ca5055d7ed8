// Maintenance on in-process members: MoveLeader's refusals and transfer,
// HashKV agreement, the snapshot body, and the allocated/in-use size model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DbSpace } from '../../../../main/etcd/server/dbSpace';
import { readSnapshotState } from '../../../../main/etcd/snapshot/snapshotState';
import { encodeSnapshotData } from '../../../../main/etcd/server/snapshotData';
import { StateMachine } from '../../../../main/etcd/server/stateMachine';
import { agreedLeader, makeConfigs, putReq, start, stopAll, type HarnessMember } from './clusterHarness';
import { freePorts } from '../../../support/freePorts';
import { eventually } from '../../../support/waitFor';

describe('DbSpace', () => {
  it('keeps a high-water allocated size that only defragment lowers', () => {
    let inUse = 100;
    const space = new DbSpace(() => inUse);
    expect(space.sizes()).toEqual({ dbSize: 100, dbSizeInUse: 100 });
    inUse = 500;
    expect(space.sizes()).toEqual({ dbSize: 500, dbSizeInUse: 500 });
    inUse = 200; // compaction
    expect(space.sizes()).toEqual({ dbSize: 500, dbSizeInUse: 200 });
    expect(space.defragment()).toEqual({ dbSize: 200, dbSizeInUse: 200 });
    inUse = 300;
    expect(space.sizes().dbSize).toBe(300);
  });
});

describe('maintenance on a running cluster', () => {
  let dir: string;
  let members: HarnessMember[];
  beforeAll(async () => {
    ({ dir, members } = makeConfigs(await freePorts(6)));
    await Promise.all(members.map((m) => start(m)));
    await Promise.all(members.map((m) => m.member!.ready));
  }, 20_000);
  afterAll(() => stopAll(dir, members));

  it('hashKV agrees on every member; the snapshot body holds the applied state', async () => {
    for (let i = 0; i < 5; i++) await members[0]!.member!.put(putReq(`k${i}`, `v${i}`));
    const hashes = await eventually('equal hashes', async () => {
      const all = await Promise.all(members.map(async (m) => (await m.member!.hashKV(0)).result.hash));
      return all.every((h) => h === all[0]) ? all : undefined;
    }, { timeoutMs: 10_000, intervalMs: 20 });
    expect(hashes[0]).not.toBe(0);
    const m = members[1]!.member!;
    const body = await m.snapshotBody();
    const img = readSnapshotState(Buffer.concat([...body.chunks(32 * 1024)]), true);
    expect(img.format).toBe('bbolt');
    expect(img.revision).toBe((await m.hashKV(0)).header.revision);
    expect(img.data.membership.members.map((x) => BigInt(x.id)).sort()).toEqual(members.map((x) => x.member!.id).sort());
    const restored = new StateMachine();
    restored.restore(encodeSnapshotData(img.data));
    expect(restored.store.hash()).toBe((await m.hash()).result);
  });

  it('moveLeader: refused off the leader and for a non-member, then transfers', async () => {
    const lead = await agreedLeader(members);
    const leader = members.find((m) => m.member!.id === lead)!.member!;
    const follower = members.find((m) => m.member!.id !== lead)!.member!;
    await expect(follower.moveLeader(leader.id)).rejects.toThrow('etcdserver: not leader');
    await expect(leader.moveLeader(12345n)).rejects.toThrow('etcdserver: bad leader transferee');
    await leader.moveLeader(follower.id);
    expect(await agreedLeader(members)).toBe(follower.id);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeClusterId, computeMemberId } from '../../../../main/etcd/server/ids';
import { agreedLeader, makeConfigs, putReq, rangeReq, start, stop, stopAll, text, type HarnessMember } from './clusterHarness';
import { freePorts } from '../../../support/freePorts';
import { eventually } from '../../../support/waitFor';

const ports = await freePorts(6);
const snapshotPorts = await freePorts(6);

describe('three in-process members', () => {
  const { dir, members } = makeConfigs(ports);
  const byId = (id: bigint) => members.find((m) => m.member?.id === id)!;

  beforeAll(async () => {
    await Promise.all(members.map((m) => start(m)));
  });
  afterAll(async () => {
    await stopAll(dir, members);
  });

  it('derives etcd ids and elects one leader', async () => {
    const ids = members.map((m) => computeMemberId(m.config.initialAdvertisePeerUrls, 'member-test'));
    expect(members.map((m) => m.member!.id)).toEqual(ids);
    expect(members[0]!.member!.clusterId).toBe(computeClusterId(ids));
    const lead = await agreedLeader(members);
    expect(ids).toContain(lead);
    expect(byId(lead).logs.some((l) => l.includes('elected leader'))).toBe(true);
  });

  it('publishes every member, then lists names and client URLs', async () => {
    await Promise.all(members.map((m) => m.member!.ready));
    for (const m of members) expect(m.logs).toContain('ready to serve client requests');
    const list = await eventually('all members published', async () => {
      const l = (await members[2]!.member!.memberList()).result;
      return l.every((x) => x.clientUrls.length === 1) ? l : undefined;
    }, { timeoutMs: 10_000, intervalMs: 20 });
    expect(list.map((x) => x.name).sort()).toEqual(['m1', 'm2', 'm3']);
    expect(list.find((x) => x.name === 'm2')!.clientUrls).toEqual(members[1]!.config.advertiseClientUrls);
  });

  it('a put through one member is a linearizable read on the others', async () => {
    const put = await members[0]!.member!.put(putReq('greeting', 'hello'));
    expect(put.result.revision).toBeGreaterThan(1);
    for (const m of members.slice(1)) {
      const got = await m.member!.range(rangeReq('greeting'));
      expect(got.result.kvs.map((kv) => text(kv.value))).toEqual(['hello']);
      expect(got.header.revision).toBeGreaterThanOrEqual(put.result.revision);
    }
    const status = (await members[1]!.member!.status()).result;
    expect(status.errors).toEqual([]);
    expect(status.raftAppliedIndex).toBeGreaterThanOrEqual(status.raftIndex - 1);
  });

  it('survives the leader stopping and recovers it from its data dir', async () => {
    const oldLead = await agreedLeader(members);
    const leader = byId(oldLead);
    await stop(leader);
    // A graceful stop hands leadership over first, as etcd's Stop does.
    expect(leader.logs).toContain('leadership transferred before stopping');
    const newLead = await agreedLeader(members, oldLead);
    expect(newLead).not.toBe(oldLead);
    const survivor = members.find((m) => m.member)!;
    await survivor.member!.put(putReq('after-failover', 'yes'));

    const restarted = await start(leader);
    expect(restarted.id).toBe(oldLead);
    await eventually('restarted member caught up', async () => {
      const r = await restarted.range(rangeReq('after-failover', true));
      return r.result.kvs.length === 1 ? true : undefined;
    }, { timeoutMs: 10_000, intervalMs: 20 });
    const old = await restarted.range(rangeReq('greeting', true));
    expect(old.result.kvs.map((kv) => text(kv.value))).toEqual(['hello']);
    expect(leader.logs.some((l) => l.includes('(restart)'))).toBe(true);
  });
});

describe('snapshots', () => {
  const { dir, members } = makeConfigs(snapshotPorts, { snapshotCount: 20, snapshotCatchUpEntries: 5 });
  let lagging: HarnessMember;

  beforeAll(async () => {
    await Promise.all(members.map((m) => start(m)));
  });
  afterAll(async () => {
    await stopAll(dir, members);
  });

  it('a lagging member catches up from a snapshot', async () => {
    const lead = await agreedLeader(members);
    lagging = members.find((m) => m.member!.id !== lead)!;
    const leader = members.find((m) => m.member!.id === lead)!;
    await stop(lagging);
    for (let i = 0; i < 60; i++) await leader.member!.put(putReq(`k${i}`, `v${i}`));
    await eventually('leader snapshot', () => (leader.logs.some((l) => l.startsWith('saved snapshot')) ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });

    lagging.logs.length = 0;
    const back = await start(lagging);
    await eventually('lagging member has k59', async () => {
      const r = await back.range(rangeReq('k59', true));
      return r.result.kvs.length === 1 ? true : undefined;
    }, { timeoutMs: 10_000, intervalMs: 20 });
    expect(lagging.logs.some((l) => l.startsWith('applied incoming snapshot'))).toBe(true);
    const all = await back.range({ ...rangeReq('k', true), rangeEnd: new TextEncoder().encode('l') });
    expect(all.result.count).toBe(60);
  });

  it('restarts from its newest snapshot plus the WAL after it', async () => {
    const lead = await agreedLeader(members);
    const leader = members.find((m) => m.member!.id === lead)!;
    await leader.member!.put(putReq('after-snapshot', 'tail'));
    await stop(leader);
    leader.logs.length = 0;
    const back = await start(leader);
    expect(leader.logs.some((l) => l.startsWith('recovered store from snapshot at index'))).toBe(true);
    const all = await back.range({ ...rangeReq('k', true), rangeEnd: new TextEncoder().encode('l') });
    expect(all.result.count).toBe(60);
    const tail = await back.range(rangeReq('after-snapshot', true));
    expect(tail.result.kvs.map((kv) => text(kv.value))).toEqual(['tail']);
    // It rejoins: a linearizable read through it sees a write made elsewhere afterwards.
    const other = members.find((m) => m.member && m !== leader)!;
    await eventually('a leader again', () => (back.hasLeader() ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
    await other.member!.put(putReq('post-restart', 'ok'));
    const seen = await back.range(rangeReq('post-restart'));
    expect(seen.result.kvs.length).toBe(1);
  });
});

// A member added at runtime joins in-process: the leader has compacted its
// log, so the joiner catches up from a snapshot (membership included), then
// is promoted, and stops itself once removed.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HarnessMember } from './clusterHarness';
import { agreedLeader, makeConfigs, putReq, rangeReq, start, stopAll, text } from './clusterHarness';
import { freePorts } from '../../../support/freePorts';
import { eventually } from '../../../support/waitFor';

const ports = await freePorts(9);
const { dir, members } = makeConfigs(ports, { snapshotCount: 20, snapshotCatchUpEntries: 5, strictReconfigCheck: false });
const M4_PEER = `http://127.0.0.1:${ports[6]}`;
const M4_CLIENT = `http://127.0.0.1:${ports[7]}`;
const m4: HarnessMember = {
  name: 'm4',
  logs: [],
  config: {
    ...members[0]!.config,
    name: 'm4',
    dataDir: join(dir, 'm4'),
    listenClientUrls: [M4_CLIENT],
    advertiseClientUrls: [M4_CLIENT],
    listenPeerUrls: [M4_PEER],
    initialAdvertisePeerUrls: [M4_PEER],
    initialCluster: new Map([...members[0]!.config.initialCluster, ['m4', [M4_PEER]]]),
    initialClusterState: 'existing',
  },
};
m4.config.logger = (line) => m4.logs.push(line);

afterAll(async () => {
  await stopAll(dir, [...members, m4]);
});

describe('joining a running cluster', () => {
  it('catches up from a snapshot as a learner, is promoted, and stops when removed', async () => {
    await Promise.all(members.map((m) => start(m)));
    const leaderId = await agreedLeader(members);
    const leader = members.find((m) => m.member!.id === leaderId)!.member!;
    for (let i = 0; i < 60; i++) await leader.put(putReq(`k${i}`, `v${i}`));

    // Proposed on a follower: the ConfChange goes to the leader through Raft.
    const follower = members.find((m) => m.member!.id !== leaderId)!.member!;
    const { result: added } = await follower.memberAdd([M4_PEER], true);
    expect(added.member.isLearner).toBe(true);
    expect(added.members.map((m) => m.id)).toContain(added.member.id);
    // Rejected at apply on every member (one learner at most); the proposer gets the error.
    await expect(leader.memberAdd([`http://127.0.0.1:${ports[8]}`], true)).rejects.toThrow('etcdserver: too many learner members in cluster');
    expect((await follower.memberList()).result).toHaveLength(4);

    const joined = await start(m4);
    expect(joined.id).toBe(added.member.id);
    expect(joined.clusterId).toBe(leader.clusterId);
    await eventually('m4 caught up', async () => {
      const r = await joined.range(rangeReq('k59', true));
      return r.result.kvs.length === 1 ? r : undefined;
    }, { timeoutMs: 10_000, intervalMs: 20 });
    expect(m4.logs.some((l) => l.includes('applied incoming snapshot'))).toBe(true);
    expect(text((await joined.range(rangeReq('k0', true))).result.kvs[0]!.value)).toBe('v0');
    await eventually('m4 published', async () => (await leader.memberList()).result.find((m) => m.id === joined.id && m.name === 'm4'), { timeoutMs: 10_000, intervalMs: 20 });
    expect(joined.isLearner()).toBe(true);
    expect((await joined.status()).result.isLearner).toBe(true);

    const promoted = await eventually('promote', async () => {
      const r = await leader.memberPromote(joined.id);
      return 'value' in r.result ? r.result.value : undefined;
    }, { timeoutMs: 10_000, intervalMs: 20 });
    expect(promoted.find((m) => m.id === joined.id)?.isLearner).toBe(false);
    await eventually('m4 sees itself a voter', () => (joined.isLearner() ? undefined : true), { timeoutMs: 10_000, intervalMs: 20 });

    await leader.memberRemove(joined.id);
    await joined.closed;
    expect(m4.logs).toContain('the member has been permanently removed from the cluster');
    expect((await leader.memberList()).result.map((m) => m.id)).not.toContain(joined.id);
  }, 40_000);
});

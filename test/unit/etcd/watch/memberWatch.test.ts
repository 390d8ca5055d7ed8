// Watches on real in-process members: a follower's watchers see what every
// member applies, and keep working when a snapshot from the leader replaces
// the follower's store (stateMachine.restore → WatchableStore.reattach).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WatchStream, type WatchReply } from '../../../../main/etcd/watch/watchStream';
import { agreedLeader, makeConfigs, putReq, start, stop, stopAll, type HarnessMember } from '../server/clusterHarness';
import { freePorts } from '../../../support/freePorts';
import { eventually } from '../../../support/waitFor';

const enc = (s: string) => new TextEncoder().encode(s);

function watchPrefix(m: HarnessMember, prefix: string, startRevision: number) {
  const replies: WatchReply[] = [];
  const stream = new WatchStream(m.member!.watchable(), { send: (r) => replies.push(r), writable: () => true, progressIntervalMs: 0 });
  const end = enc(prefix);
  end[end.length - 1]!++;
  stream.create({
    key: enc(prefix),
    rangeEnd: end,
    startRevision,
    progressNotify: false,
    filters: { noPut: false, noDelete: false },
    prevKv: false,
    watchId: 0,
    fragment: false,
  });
  const revisions = () => replies.flatMap((r) => r.events.map((ev) => ev.kv.modRevision));
  return { stream, replies, revisions };
}

const ports = await freePorts(6);

describe('watches on members', () => {
  const { dir, members } = makeConfigs(ports, { snapshotCount: 20, snapshotCatchUpEntries: 5 });

  beforeAll(async () => {
    await Promise.all(members.map((m) => start(m)));
  });
  afterAll(async () => {
    await stopAll(dir, members);
  });

  it('a watcher on a follower sees every write made through the leader', async () => {
    const lead = await agreedLeader(members);
    const leader = members.find((m) => m.member!.id === lead)!;
    const follower = members.find((m) => m.member!.id !== lead)!;
    const w = watchPrefix(follower, 'f/', 0);
    const revs: number[] = [];
    for (let i = 0; i < 5; i++) revs.push((await leader.member!.put(putReq(`f/${i}`, 'x'))).result.revision);
    await eventually('follower watcher saw every put', () => (w.revisions().length === 5 ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
    expect(w.revisions()).toEqual(revs);
    expect(w.replies[0]).toMatchObject({ watchId: 0, created: true });
    const metrics = await follower.member!.metrics.metrics();
    expect(metrics).toContain('etcd_debugging_mvcc_watch_stream_total 1\n');
    expect(metrics).toContain('etcd_debugging_mvcc_watcher_total 1\n');
    expect(metrics).toContain('etcd_debugging_mvcc_slow_watcher_total 0\n');
    expect(metrics).toContain('etcd_debugging_mvcc_events_total 5\n');
    w.stream.close();
    expect(await follower.member!.metrics.metrics()).toContain('etcd_debugging_mvcc_watch_stream_total 0\n');
  });

  it('a follower restored from the leader\'s snapshot keeps delivering, without gaps or repeats', async () => {
    const lead = await agreedLeader(members);
    const leader = members.find((m) => m.member!.id === lead)!;
    const lagging = members.find((m) => m.member!.id !== lead)!;
    await stop(lagging);
    const revs: number[] = [];
    for (let i = 0; i < 60; i++) revs.push((await leader.member!.put(putReq(`s/${i}`, `v${i}`))).result.revision);
    await eventually('leader snapshot', () => (leader.logs.some((l) => l.startsWith('saved snapshot')) ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });

    lagging.logs.length = 0;
    const back = await start(lagging);
    // Watch from the first of those writes before the snapshot arrives: the
    // watcher starts on the member's old store and must move to the new one.
    const before = back.watchable().currentRevision;
    const w = watchPrefix(lagging, 's/', revs[0]!);
    await eventually('snapshot applied', () => (lagging.logs.some((l) => l.startsWith('applied incoming snapshot')) ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
    for (let i = 60; i < 65; i++) revs.push((await leader.member!.put(putReq(`s/${i}`, `v${i}`))).result.revision);
    await eventually('restored watcher saw every put', () => (w.revisions().length >= revs.length ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
    expect(before).toBeLessThan(revs[0]!);
    expect(w.revisions()).toEqual(revs);
    w.stream.close();
  });
});

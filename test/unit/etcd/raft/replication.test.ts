import { describe, expect, it } from 'vitest';
import { EntryType, MessageType, ProgressState, type Entry } from '../../../../main/etcd/raft/index';
import { Cluster, enc } from './harness';

describe('log replication', () => {
  it('commits proposals made on any member (followers forward to the leader)', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    c.get(2n).node.propose(enc('from-2'));
    c.get(1n).node.propose(enc('from-1'));
    c.stabilize();
    for (const id of [1n, 2n, 3n]) expect(c.appliedData(id)).toEqual(['from-1', 'from-2']);
  });

  it('a proposal without a leader is dropped', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.stabilize();
    expect(() => c.get(2n).node.propose(enc('x'))).toThrow('raft proposal dropped');
  });

  it('a minority cannot commit', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    const before = c.get(1n).node.raft.raftLog.committed;
    c.filter = (m) => m.from !== 1n && m.to !== 1n;
    c.get(1n).node.propose(enc('lost'));
    c.stabilize();
    expect(c.get(1n).node.raft.raftLog.committed).toBe(before);
  });

  it('flow control bounds the appends in flight to a silent follower', () => {
    const c = new Cluster([1n, 2n, 3n], { maxInflightMsgs: 3 });
    c.elect(1n);
    c.filter = (m) => m.to !== 3n; // 3 hears nothing
    const r = c.get(1n).node.raft;
    // Make 3 Replicate (it was acked before the cut) and then flood.
    expect(r.prs.progress.get(3n)!.state).toBe(ProgressState.Replicate);
    for (let i = 0; i < 10; i++) {
      c.get(1n).node.propose(enc(`p${i}`));
      c.stabilize();
    }
    expect(r.prs.progress.get(3n)!.inflights.count).toBe(3);
    expect(r.prs.progress.get(3n)!.isPaused()).toBe(true);
  });

  it('maxSizePerMsg splits a long catch-up into several appends', () => {
    const c = new Cluster([1n, 2n, 3n], { maxSizePerMsg: 20 });
    c.elect(1n);
    c.isolate(3n);
    for (let i = 0; i < 6; i++) c.get(1n).node.propose(new Uint8Array(10));
    c.stabilize();
    c.heal();
    c.delivered.length = 0;
    c.tickAll(2);
    const apps = c.delivered.filter((m) => m.type === MessageType.App && m.to === 3n && m.entries.length > 0);
    expect(apps.length).toBeGreaterThanOrEqual(3);
    for (const m of apps) expect(m.entries.reduce((s, e) => s + e.data.length, 0)).toBeLessThanOrEqual(20);
    expect(c.get(3n).node.raft.raftLog.lastIndex()).toBe(c.get(1n).node.raft.raftLog.lastIndex());
  });
});

describe('conflict backtracking', () => {
  // A follower with a long divergent tail from an old term: the leader must
  // find the match point in a few round trips, not one per entry.
  it.each([
    { name: 'follower has extra uncommitted entries of an old term', extra: 50 },
    { name: 'follower has a short divergent tail', extra: 3 },
  ])('$name', ({ extra }) => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    // 1 appends entries only it gets, then loses leadership.
    c.isolate(1n);
    for (let i = 0; i < extra; i++) c.get(1n).node.propose(enc(`old${i}`));
    c.stabilize();
    c.elect(2n);
    for (let i = 0; i < 5; i++) c.get(2n).node.propose(enc(`new${i}`));
    c.stabilize();
    c.heal();
    c.delivered.length = 0;
    c.tickAll(3);
    const rejects = c.delivered.filter((m) => m.type === MessageType.AppResp && m.reject && m.from === 1n);
    expect(rejects.length).toBeLessThanOrEqual(2);
    const l1 = c.get(1n).node.raft.raftLog;
    const l2 = c.get(2n).node.raft.raftLog;
    expect(l1.lastIndex()).toBe(l2.lastIndex());
    expect(c.appliedData(1n)).toEqual(c.appliedData(2n));
    expect(c.appliedData(1n).some((d) => d.startsWith('old'))).toBe(false);
  });
});

describe('commit rules', () => {
  it('a leader does not commit an older-term entry by counting replicas (Raft §5.4.2)', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    // 1 appends an entry that reaches only 2's log... but is cut before committing.
    c.filter = (m) => !(m.from === 2n && m.type === MessageType.AppResp) && m.to !== 3n && m.from !== 3n;
    c.get(1n).node.propose(enc('old'));
    c.stabilize();
    const oldIdx = c.get(1n).node.raft.raftLog.lastIndex();
    expect(c.get(1n).node.raft.raftLog.committed).toBeLessThan(oldIdx);
    // 2 becomes leader of a new term: its own empty entry commits, and with it 'old'.
    c.heal();
    c.elect(2n);
    const r2 = c.get(2n).node.raft;
    const t = r2.term;
    const ents: Entry[] = r2.raftLog.slice(oldIdx, r2.raftLog.lastIndex() + 1, Infinity);
    expect(ents[0]!.term).toBeLessThan(t);
    expect(ents[ents.length - 1]).toMatchObject({ term: t, type: EntryType.Normal, data: new Uint8Array(0) });
    expect(r2.raftLog.committed).toBe(r2.raftLog.lastIndex());
    for (const id of [1n, 2n, 3n]) expect(c.appliedData(id)).toEqual(['old']);
  });

  it('maybeCommit refuses an index whose entry is from an older term', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    const r = c.get(1n).node.raft;
    r.term += 1; // pretend a new term started with the log unchanged
    for (const pr of r.prs.progress.values()) pr.match = r.raftLog.lastIndex();
    const before = r.raftLog.committed;
    r.raftLog.committed = before - 1;
    expect(r.maybeCommit()).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { MemoryStorage, MessageType, RawNode, StateType, type Message } from '../../../../main/etcd/raft/index';
import { Cluster, newConfig } from './harness';

const state = (c: Cluster, id: bigint) => c.get(id).node.raft.state;
const term = (c: Cluster, id: bigint) => c.get(id).node.raft.term;

describe('leader election', () => {
  it.each([
    { name: 'three members', ids: [1n, 2n, 3n] },
    { name: 'five members', ids: [1n, 2n, 3n, 4n, 5n] },
    { name: 'single member elects itself', ids: [1n] },
  ])('$name: the campaigner wins and everyone follows it', ({ ids }) => {
    const c = new Cluster(ids);
    c.elect(1n);
    expect(c.leaders()).toEqual([1n]);
    for (const id of ids) expect(c.get(id).node.raft.lead).toBe(1n);
    // The new leader's empty entry commits everywhere.
    for (const id of ids) expect(c.get(id).node.raft.raftLog.committed).toBe(ids.length + 1);
  });

  it('a follower campaigns after a randomized timeout in [election, 2×election)', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const s = new MemoryStorage();
      const n = new RawNode(newConfig(1n, s, { random: (k) => (seed * 7) % k }));
      n.bootstrap([{ id: 1n }, { id: 2n }]);
      const rd = n.ready();
      s.append(rd.entries);
      n.advance(rd);
      let ticks = 0;
      while (n.raft.state === StateType.Follower && ticks < 100) {
        n.tick();
        ticks++;
      }
      expect(ticks).toBeGreaterThanOrEqual(10);
      expect(ticks).toBeLessThan(20);
      expect(ticks).toBe(10 + ((seed * 7) % 10));
    }
  });

  it('a candidate with a stale log loses', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    c.isolate(3n);
    c.get(1n).node.propose(new Uint8Array([1]));
    c.stabilize();
    c.heal();
    c.get(3n).node.campaign();
    c.stabilize();
    expect(state(c, 3n)).not.toBe(StateType.Leader);
    expect(c.get(1n).node.raft.raftLog.lastIndex()).toBeGreaterThan(c.get(3n).node.raft.raftLog.lastIndex());
  });

  it('a member votes once per term', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.stabilize();
    const r = c.get(1n).node.raft;
    const vote = (from: bigint): Message => ({
      type: MessageType.Vote, from, to: 1n, term: 5, logTerm: 1, index: 3, entries: [], commit: 0, reject: false, rejectHint: 0,
    });
    r.step(vote(2n));
    r.step(vote(3n));
    const resps = r.msgs.filter((m) => m.type === MessageType.VoteResp);
    expect(resps.map((m) => [m.to, m.reject])).toEqual([
      [2n, false],
      [3n, true],
    ]);
    expect(r.vote).toBe(2n);
  });
});

describe('PreVote', () => {
  it('a partitioned member does not inflate its term or disrupt the leader', () => {
    const c = new Cluster([1n, 2n, 3n], { preVote: true });
    c.elect(1n);
    const t = term(c, 1n);
    c.isolate(3n);
    c.tickAll(50);
    expect(term(c, 3n)).toBe(t); // pre-votes fail; the term stays
    expect(state(c, 3n)).toBe(StateType.PreCandidate);
    c.heal();
    c.tickAll(5);
    expect(c.leaders()).toEqual([1n]);
    expect(term(c, 1n)).toBe(t);
  });

  it('without PreVote the partitioned member forces a new election on rejoining', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    const t = term(c, 1n);
    c.isolate(3n);
    c.tickAll(50);
    expect(term(c, 3n)).toBeGreaterThan(t);
    c.heal();
    c.tickAll(40);
    expect(term(c, 1n)).toBeGreaterThan(t);
    expect(c.leaders()).toHaveLength(1);
  });
});

describe('CheckQuorum', () => {
  it('a leader that cannot hear a quorum steps down', () => {
    const c = new Cluster([1n, 2n, 3n], { checkQuorum: true });
    c.elect(1n);
    c.filter = (m) => m.from !== 1n && m.to !== 1n && false; // cut everything
    for (let i = 0; i < 25; i++) c.get(1n).node.tick();
    expect(state(c, 1n)).toBe(StateType.Follower);
  });

  it('followers ignore votes while the leader lease is fresh', () => {
    const c = new Cluster([1n, 2n, 3n], { checkQuorum: true });
    c.elect(1n);
    const f = c.get(2n).node.raft;
    const t = f.term;
    f.step({ type: MessageType.Vote, from: 3n, to: 2n, term: t + 1, logTerm: 9, index: 99, entries: [], commit: 0, reject: false, rejectHint: 0 });
    expect(f.term).toBe(t);
    expect(f.msgs.filter((m) => m.type === MessageType.VoteResp)).toHaveLength(0);
  });

  it('a transfer campaign bypasses the lease', () => {
    const c = new Cluster([1n, 2n, 3n], { checkQuorum: true });
    c.elect(1n);
    c.get(1n).node.transferLeader(2n);
    c.stabilize();
    expect(c.leaders()).toEqual([2n]);
  });
});

import { describe, expect, it } from 'vitest';
import {
  ConfChangeType,
  EntryType,
  MemoryStorage,
  RawNode,
  decodeConfChange,
  encodeConfChange,
  type ConfChange,
} from '../../../../main/etcd/raft/index';
import { Cluster, enc, newConfig } from './harness';

const cc = (type: ConfChangeType, nodeId: bigint, context = new Uint8Array()): ConfChange => ({ type, nodeId, context });

/** Adds an empty (non-bootstrapped) member to the harness, as a newly joining etcd member starts. */
function addEmptyNode(c: Cluster, id: bigint): void {
  const storage = new MemoryStorage();
  c.nodes.set(id, { id, node: new RawNode(newConfig(id, storage)), storage, applied: [], readStates: [] });
}

describe('conf change codec', () => {
  it.each([
    cc(ConfChangeType.AddNode, 1n),
    cc(ConfChangeType.RemoveNode, 0xfedcba9876543210n, enc('x')),
    cc(ConfChangeType.AddLearnerNode, 42n, enc('{"name":"m4","peerURLs":["https://127.0.0.1:2380"]}')),
    cc(ConfChangeType.UpdateNode, 7n, enc('attrs')),
  ])('round-trips $type/$nodeId', (c) => {
    expect(decodeConfChange(encodeConfChange(c))).toEqual(c);
  });

  it('rejects garbage', () => {
    expect(() => decodeConfChange(new Uint8Array([1, 2]))).toThrow(/too short/);
    expect(() => decodeConfChange(new Uint8Array([9, 0, 0, 0, 0, 0, 0, 0, 0, 1]))).toThrow(/version/);
  });
});

describe('membership changes', () => {
  it('bootstrap commits one AddNode per peer and knows its voters before applying them', () => {
    const s = new MemoryStorage();
    const n = new RawNode(newConfig(1n, s));
    n.bootstrap([{ id: 1n, context: enc('a') }, { id: 2n }, { id: 3n }]);
    expect(n.raft.prs.confState()).toEqual({ voters: [1n, 2n, 3n], learners: [] });
    const rd = n.ready();
    expect(rd.hardState).toEqual({ term: 1, vote: 0n, commit: 3 });
    expect(rd.entries.map((e) => e.type)).toEqual([EntryType.ConfChange, EntryType.ConfChange, EntryType.ConfChange]);
    expect(rd.committedEntries).toHaveLength(3);
    expect(decodeConfChange(rd.committedEntries[0]!.data)).toEqual(cc(ConfChangeType.AddNode, 1n, enc('a')));
    // The driver applies them again: idempotent.
    for (const e of rd.committedEntries) n.applyConfChange(decodeConfChange(e.data));
    expect(n.raft.prs.confState()).toEqual({ voters: [1n, 2n, 3n], learners: [] });
    expect(() => new RawNode(newConfig(1n, (s.append(rd.entries), s))).bootstrap([{ id: 1n }])).toThrow(/empty storage/);
  });

  it('a learner replicates but never counts toward commit', () => {
    const c = new Cluster([1n, 2n]);
    c.elect(1n);
    addEmptyNode(c, 3n);
    c.get(1n).node.proposeConfChange(cc(ConfChangeType.AddLearnerNode, 3n));
    c.stabilize();
    expect(c.get(1n).node.raft.prs.confState()).toEqual({ voters: [1n, 2n], learners: [3n] });
    expect(c.get(3n).node.raft.isLearner).toBe(true);
    // With 2 cut off, 1 + learner 3 are not a quorum.
    c.filter = (m) => m.to !== 2n && m.from !== 2n;
    const before = c.get(1n).node.raft.raftLog.committed;
    c.get(1n).node.propose(enc('x'));
    c.stabilize();
    expect(c.get(3n).node.raft.raftLog.lastIndex()).toBe(c.get(1n).node.raft.raftLog.lastIndex());
    expect(c.get(1n).node.raft.raftLog.committed).toBe(before);
    // A learner never campaigns.
    for (let i = 0; i < 30; i++) c.get(3n).node.tick();
    expect(c.get(3n).node.raft.state).toBe(0);
  });

  it('promotes a learner by adding it as a voter, then it counts toward commit', () => {
    const c = new Cluster([1n, 2n]);
    c.elect(1n);
    addEmptyNode(c, 3n);
    c.get(1n).node.proposeConfChange(cc(ConfChangeType.AddLearnerNode, 3n));
    c.stabilize();
    c.get(1n).node.proposeConfChange(cc(ConfChangeType.AddNode, 3n));
    c.stabilize();
    expect(c.get(1n).node.raft.prs.confState()).toEqual({ voters: [1n, 2n, 3n], learners: [] });
    c.filter = (m) => m.to !== 2n && m.from !== 2n;
    c.get(1n).node.propose(enc('y'));
    c.stabilize();
    expect(c.appliedData(3n)).toEqual(['y']);
  });

  it('removes a voter; the smaller quorum commits', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    c.get(1n).node.proposeConfChange(cc(ConfChangeType.RemoveNode, 3n));
    c.stabilize();
    expect(c.get(1n).node.raft.prs.confState()).toEqual({ voters: [1n, 2n], learners: [] });
    c.filter = (m) => m.to !== 3n && m.from !== 3n;
    c.get(1n).node.propose(enc('z'));
    c.stabilize();
    expect(c.appliedData(2n)).toEqual(['z']);
  });

  it('allows one pending change at a time: a second becomes a no-op entry', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    c.filter = () => false; // nothing commits
    c.get(1n).node.proposeConfChange(cc(ConfChangeType.AddLearnerNode, 4n));
    c.get(1n).node.proposeConfChange(cc(ConfChangeType.AddLearnerNode, 5n));
    const r = c.get(1n).node.raft;
    const tail = r.raftLog.slice(r.raftLog.lastIndex() - 1, r.raftLog.lastIndex() + 1, Infinity);
    expect(tail.map((e) => [e.type, e.data.length > 0])).toEqual([
      [EntryType.ConfChange, true],
      [EntryType.Normal, false],
    ]);
    expect(r.pendingConfIndex).toBe(r.raftLog.lastIndex() - 1);
  });

  it('a member cannot campaign while a committed conf change is unapplied', () => {
    const s = new MemoryStorage();
    const n = new RawNode(newConfig(1n, s));
    n.bootstrap([{ id: 1n }, { id: 2n }]);
    n.campaign();
    expect(n.raft.state).toBe(0);
  });
});

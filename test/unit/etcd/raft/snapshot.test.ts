import { describe, expect, it } from 'vitest';
import {
  MemoryStorage,
  MessageType,
  ProgressState,
  RawNode,
  SnapshotStatus,
  StateType,
} from '../../../../main/etcd/raft/index';
import { Cluster, enc, newConfig } from './harness';

/** Leader 1 with entries up to its last index compacted into a snapshot; 3 was cut off meanwhile. */
function compactedCluster(): Cluster {
  const c = new Cluster([1n, 2n, 3n]);
  c.elect(1n);
  c.isolate(3n);
  for (let i = 0; i < 5; i++) c.get(1n).node.propose(enc(`w${i}`));
  c.stabilize();
  const n1 = c.get(1n);
  const applied = n1.node.raft.raftLog.applied;
  n1.storage.createSnapshot(applied, n1.node.raft.prs.confState(), enc('state'));
  n1.storage.compact(applied);
  return c;
}

describe('snapshots', () => {
  it('a follower whose next entries were compacted gets the snapshot and then the rest', () => {
    const c = compactedCluster();
    c.heal();
    c.get(1n).node.propose(enc('after'));
    c.stabilize();
    const snaps = c.delivered.filter((m) => m.type === MessageType.Snap && m.to === 3n);
    expect(snaps).toHaveLength(1);
    const n3 = c.get(3n);
    expect(n3.storage.snapshot().metadata.index).toBe(snaps[0]!.snapshot!.metadata.index);
    expect(new TextDecoder().decode(n3.storage.snapshot().data)).toBe('state');
    // The leader waits for reportSnapshot (or an ack covering it) before probing again.
    expect(c.get(1n).node.raft.prs.progress.get(3n)!.state).not.toBe(ProgressState.Probe);
    c.get(1n).node.reportSnapshot(3n, SnapshotStatus.Finish);
    c.tickAll(2);
    expect(c.appliedData(3n)).toEqual(['after']); // earlier writes arrived inside the snapshot
    expect(n3.node.raft.raftLog.lastIndex()).toBe(c.get(1n).node.raft.raftLog.lastIndex());
  });

  it('a failed snapshot is retried after reportSnapshot(Failure)', () => {
    const c = compactedCluster();
    c.filter = (m) => !(m.type === MessageType.Snap) && m.from !== 3n && m.to !== 3n;
    c.heal();
    c.filter = (m) => m.type !== MessageType.Snap; // the snapshot is lost in transit
    c.tickAll(2);
    const pr = c.get(1n).node.raft.prs.progress.get(3n)!;
    expect(pr.state).toBe(ProgressState.Snapshot);
    c.get(1n).node.reportSnapshot(3n, SnapshotStatus.Failure);
    expect(pr.state).toBe(ProgressState.Probe);
    c.heal();
    c.tickAll(3);
    expect(c.get(3n).storage.snapshot().metadata.index).toBeGreaterThan(0);
  });

  it('a stale snapshot (at or below the commit index) is ignored', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    const r2 = c.get(2n).node.raft;
    const committed = r2.raftLog.committed;
    r2.step({
      type: MessageType.Snap, from: 1n, to: 2n, term: r2.term, logTerm: 0, index: 0, entries: [], commit: 0, reject: false, rejectHint: 0,
      snapshot: { data: new Uint8Array(), metadata: { index: committed, term: 1, confState: { voters: [1n, 2n, 3n], learners: [] } } },
    });
    expect(r2.raftLog.hasPendingSnapshot()).toBe(false);
    expect(r2.msgs.at(-1)).toMatchObject({ type: MessageType.AppResp, index: committed });
  });
});

describe('a member added after the leader took its snapshot', () => {
  it('installs the older snapshot, then learns of its own addition from the entries after it', () => {
    const c = new Cluster([1n, 2n]);
    c.elect(1n);
    for (let i = 0; i < 3; i++) c.get(1n).node.propose(enc(`w${i}`));
    c.stabilize();
    const n1 = c.get(1n);
    const applied = n1.node.raft.raftLog.applied;
    n1.storage.createSnapshot(applied, n1.node.raft.prs.confState(), enc('state'));
    n1.storage.compact(applied);
    const storage = new MemoryStorage();
    c.nodes.set(3n, { id: 3n, node: new RawNode(newConfig(3n, storage)), storage, applied: [], readStates: [] });
    c.get(1n).node.proposeConfChange({ type: 3 /* AddLearnerNode */, nodeId: 3n, context: new Uint8Array() });
    c.stabilize();
    c.get(1n).node.reportSnapshot(3n, SnapshotStatus.Finish);
    c.tickAll(2);
    const n3 = c.get(3n).node.raft;
    expect(c.get(3n).storage.snapshot().metadata.confState.learners).toEqual([]); // it predates the learner
    expect(n3.prs.confState()).toEqual({ voters: [1n, 2n], learners: [3n] });
    expect(n3.isLearner).toBe(true);
    expect(n3.raftLog.applied).toBe(n1.node.raft.raftLog.committed);
  });
});

describe('restart from storage', () => {
  it('resumes term, vote, log and configuration; re-delivers committed entries after `applied`', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    for (let i = 0; i < 3; i++) c.get(1n).node.propose(enc(`w${i}`));
    c.stabilize();
    const old = c.get(2n);
    const hs = old.storage.initialState().hardState;
    const applied = hs.commit - 2; // pretend the last two were not applied before the crash
    const n = new RawNode(newConfig(2n, old.storage, { applied }));
    expect(n.raft.term).toBe(hs.term);
    expect(n.raft.vote).toBe(hs.vote);
    expect(n.raft.raftLog.committed).toBe(hs.commit);
    expect(n.raft.prs.confState().voters).toEqual([1n, 2n, 3n]);
    const rd = n.ready();
    expect(rd.hardState).toBeUndefined(); // nothing new to persist
    expect(rd.committedEntries.map((e) => e.index)).toEqual([applied + 1, applied + 2]);
    n.advance(rd);
    expect(n.hasReady()).toBe(false);
  });

  it('restarts from a snapshot with its configuration', () => {
    const s = new MemoryStorage();
    s.applySnapshot({ data: new Uint8Array(), metadata: { index: 10, term: 3, confState: { voters: [1n, 2n], learners: [3n] } } });
    s.setHardState({ term: 4, vote: 1n, commit: 10 });
    const n = new RawNode(newConfig(3n, s, { applied: 10 }));
    expect(n.raft.isLearner).toBe(true);
    expect(n.raft.prs.confState()).toEqual({ voters: [1n, 2n], learners: [3n] });
    expect([n.raft.raftLog.lastIndex(), n.raft.raftLog.lastTerm()]).toEqual([10, 3]);
    expect(n.raft.state).toBe(StateType.Follower);
  });
});

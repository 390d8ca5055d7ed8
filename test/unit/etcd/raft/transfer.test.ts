import { describe, expect, it } from 'vitest';
import { ErrProposalDropped, MessageType } from '../../../../main/etcd/raft/index';
import { Cluster, enc } from './harness';

describe('leader transfer', () => {
  it.each([
    { name: 'asked on the leader', via: 1n },
    { name: 'asked on a follower (forwarded)', via: 3n },
  ])('$name: an up-to-date target takes over', ({ via }) => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    c.get(via).node.transferLeader(2n);
    c.stabilize();
    expect(c.leaders()).toEqual([2n]);
  });

  it('a lagging target is caught up first, then sent TimeoutNow', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    c.isolate(3n);
    for (let i = 0; i < 5; i++) c.get(1n).node.propose(enc(`w${i}`));
    c.stabilize();
    c.heal();
    c.delivered.length = 0;
    c.get(1n).node.transferLeader(3n);
    c.stabilize();
    const types = c.delivered.filter((m) => m.to === 3n).map((m) => m.type);
    expect(types.indexOf(MessageType.App)).toBeLessThan(types.indexOf(MessageType.TimeoutNow));
    expect(c.leaders()).toEqual([3n]);
    expect(c.appliedData(3n)).toEqual(['w0', 'w1', 'w2', 'w3', 'w4']);
  });

  it('drops proposals while the transfer is in progress and aborts after an election timeout', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    c.isolate(3n);
    c.get(1n).node.transferLeader(3n);
    c.stabilize();
    expect(c.get(1n).node.raft.leadTransferee).toBe(3n);
    expect(() => c.get(1n).node.propose(enc('x'))).toThrow(ErrProposalDropped);
    for (let i = 0; i < 10; i++) c.get(1n).node.tick();
    expect(c.get(1n).node.raft.leadTransferee).toBe(0n);
    expect(() => c.get(1n).node.propose(enc('x'))).not.toThrow();
  });

  it('a transfer to a learner is ignored', () => {
    const c = new Cluster([1n, 2n]);
    c.elect(1n);
    c.get(1n).node.proposeConfChange({ type: 3 /* AddLearnerNode */, nodeId: 9n, context: new Uint8Array() });
    c.stabilize();
    c.get(1n).node.transferLeader(9n);
    expect(c.get(1n).node.raft.leadTransferee).toBe(0n);
  });
});

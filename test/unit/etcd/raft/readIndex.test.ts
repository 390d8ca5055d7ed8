import { describe, expect, it } from 'vitest';
import { MessageType, ReadOnlyOption } from '../../../../main/etcd/raft/index';
import { Cluster, enc } from './harness';

const ctxs = (c: Cluster, id: bigint) => c.get(id).readStates.map((rs) => new TextDecoder().decode(rs.requestCtx));

describe('ReadIndex', () => {
  it.each([
    { name: 'on the leader', at: 1n },
    { name: 'forwarded by a follower', at: 2n },
  ])('$name: answers with the commit index after a heartbeat round', ({ at }) => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    c.get(1n).node.propose(enc('w'));
    c.stabilize();
    const committed = c.get(1n).node.raft.raftLog.committed;
    c.delivered.length = 0;
    c.get(at).node.readIndex(enc('r1'));
    c.stabilize();
    expect(ctxs(c, at)).toEqual(['r1']);
    expect(c.get(at).readStates[0]!.index).toBe(committed);
    // Confirmed by a heartbeat carrying the request context.
    expect(c.delivered.some((m) => m.type === MessageType.Heartbeat && new TextDecoder().decode(m.context) === 'r1')).toBe(true);
  });

  it('a leader cut off from the quorum cannot answer', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    c.isolate(1n);
    c.get(1n).node.readIndex(enc('r'));
    c.stabilize();
    expect(ctxs(c, 1n)).toEqual([]);
    c.heal();
    c.tickAll(1); // the next heartbeat carries the pending context
    expect(ctxs(c, 1n)).toEqual(['r']);
  });

  it('a new leader defers reads until it committed an entry of its term', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.elect(1n);
    // 2 wins an election but its empty entry cannot commit yet.
    c.filter = (m) => !(m.type === MessageType.AppResp);
    c.elect(2n);
    const r2 = c.get(2n).node.raft;
    expect(r2.state).toBe(2);
    c.get(2n).node.readIndex(enc('early'));
    c.stabilize();
    expect(ctxs(c, 2n)).toEqual([]);
    expect(r2.pendingReadIndexMessages).toHaveLength(1);
    c.heal();
    c.tickAll(2);
    expect(ctxs(c, 2n)).toEqual(['early']);
    expect(c.get(2n).readStates[0]!.index).toBe(r2.raftLog.committed);
  });

  it('a follower without a leader drops the request', () => {
    const c = new Cluster([1n, 2n, 3n]);
    c.stabilize();
    c.get(2n).node.readIndex(enc('r'));
    c.stabilize();
    expect(ctxs(c, 2n)).toEqual([]);
  });

  it('lease-based reads answer without a heartbeat round', () => {
    const c = new Cluster([1n, 2n, 3n], { readOnlyOption: ReadOnlyOption.LeaseBased, checkQuorum: true });
    c.elect(1n);
    c.isolate(1n);
    c.get(1n).node.readIndex(enc('lease'));
    c.stabilize();
    expect(ctxs(c, 1n)).toEqual(['lease']);
  });

  it('a single-member cluster answers at once', () => {
    const c = new Cluster([1n]);
    c.elect(1n);
    c.get(1n).node.readIndex(enc('solo'));
    c.stabilize();
    expect(ctxs(c, 1n)).toEqual(['solo']);
  });
});

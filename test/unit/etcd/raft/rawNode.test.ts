import { describe, expect, it } from 'vitest';
import {
  ErrStepLocalMsg,
  ErrStepPeerNotFound,
  MemoryStorage,
  MessageType,
  RawNode,
  StateType,
  describeReady,
  describeStatus,
  type Message,
} from '../../../../main/etcd/raft/index';
import { newConfig } from './harness';

const msg = (type: MessageType, from: bigint): Message => ({
  type, from, to: 1n, term: 1, logTerm: 0, index: 0, entries: [], commit: 0, reject: false, rejectHint: 0,
});

/** A bootstrapped single-member node whose first Ready was handled. */
function single(): { n: RawNode; s: MemoryStorage } {
  const s = new MemoryStorage();
  const n = new RawNode(newConfig(1n, s));
  n.bootstrap([{ id: 1n }]);
  handle(n, s);
  return { n, s };
}

function handle(n: RawNode, s: MemoryStorage) {
  const rd = n.ready();
  s.append(rd.entries);
  if (rd.hardState) s.setHardState(rd.hardState);
  n.advance(rd);
  return rd;
}

describe('RawNode Ready contract', () => {
  it('holds one Ready at a time', () => {
    const s = new MemoryStorage();
    const n = new RawNode(newConfig(1n, s));
    n.bootstrap([{ id: 1n }]);
    expect(n.hasReady()).toBe(true);
    const rd = n.ready();
    expect(n.hasReady()).toBe(false);
    expect(() => n.ready()).toThrow(/before advance/);
    s.append(rd.entries);
    n.advance(rd);
    expect(n.hasReady()).toBe(false);
  });

  it('a single member campaigns, commits its empty entry after persisting it, and reports it', () => {
    const { n, s } = single();
    n.campaign();
    const rd1 = handle(n, s);
    expect(rd1.softState).toEqual({ lead: 1n, raftState: StateType.Leader });
    expect(rd1.entries.map((e) => [e.term, e.index])).toEqual([[2, 2]]);
    expect(rd1.mustSync).toBe(true);
    // Its own entry counts only once advance() reported it persisted.
    expect(rd1.committedEntries).toEqual([]);
    const rd2 = handle(n, s);
    expect(rd2.committedEntries.map((e) => e.index)).toEqual([2]);
    expect(rd2.hardState).toEqual({ term: 2, vote: 1n, commit: 2 });
    expect(rd2.mustSync).toBe(false); // only the commit index moved
    expect(describeReady(rd2)).toContain('committed: 2/2 noop');
    expect(describeStatus(n.status())).toMatch(/^1 Leader lead=1 term=2 vote=1 commit=2 applied=2/);
  });

  it('rejects local message types and responses from unknown members', () => {
    const { n } = single();
    expect(() => n.step(msg(MessageType.Hup, 1n))).toThrow(ErrStepLocalMsg);
    expect(() => n.step(msg(MessageType.Beat, 1n))).toThrow(ErrStepLocalMsg);
    expect(() => n.step(msg(MessageType.AppResp, 9n))).toThrow(ErrStepPeerNotFound);
    expect(() => n.step(msg(MessageType.Heartbeat, 9n))).not.toThrow(); // a request from a new leader is fine
  });

  it('status shows progress only on the leader', () => {
    const { n, s } = single();
    expect(n.status().progress.size).toBe(0);
    n.campaign();
    handle(n, s);
    handle(n, s);
    expect(n.status().progress.get(1n)).toMatchObject({ match: 2, next: 3 });
  });

  it('advance() refuses a Ready that is not the outstanding one', () => {
    const { n } = single();
    n.campaign();
    const rd = n.ready();
    expect(() => n.advance({ ...rd })).toThrow(/not the outstanding/);
  });
});

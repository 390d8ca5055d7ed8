// The Raft loop against a real RawNode (one member) and a WAL whose fsync the
// test completes by hand: cycles never overlap, proposals that arrive during
// an fsync share the next one, and snapshots are taken every snapshotCount.
import { describe, expect, it } from 'vitest';
import { MemoryStorage, RawNode, type Entry, type HardState } from '../../../../main/etcd/raft/index';
import { encodeInternalRequest } from '../../../../main/etcd/server/internalRequest';
import { encodeMemberContext } from '../../../../main/etcd/server/membership';
import { MemberMetrics } from '../../../../main/etcd/server/metrics';
import { RaftLoop } from '../../../../main/etcd/server/raftLoop';
import type { ApplyOutcome } from '../../../../main/etcd/server/stateMachine';
import { StateMachine } from '../../../../main/etcd/server/stateMachine';
import type { Snapshotter, Wal } from '../../../../main/etcd/wal/index';
import { putReq } from './clusterHarness';

interface PendingSave {
  hardState?: HardState;
  entries: Entry[];
  release(): void;
}

function setup(snapshotCount = 1000) {
  const saves: PendingSave[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const snapshots: number[] = [];
  const released: number[] = [];
  const wal = {
    save(hardState: HardState | undefined, entries: Entry[]) {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      return new Promise<void>((resolve) => {
        saves.push({ hardState, entries, release: () => { inFlight--; resolve(); } });
      });
    },
    saveSnapshot: async () => {},
    releaseTo: async (i: number) => void released.push(i),
  } as unknown as Wal;
  const snapshotter = { save: async (s: { metadata: { index: number } }) => void snapshots.push(s.metadata.index), purge: async () => {} } as unknown as Snapshotter;
  const storage = new MemoryStorage();
  const id = 1n;
  const node = new RawNode({ id, electionTick: 10, heartbeatTick: 1, storage, maxSizePerMsg: 1 << 20, maxInflightMsgs: 256, checkQuorum: false, preVote: false, random: () => 0 });
  node.bootstrap([{ id, context: encodeMemberContext({ id, name: 'solo', peerUrls: ['http://127.0.0.1:1'], isLearner: false }) }]);
  const outcomes: ApplyOutcome[] = [];
  const sm = new StateMachine();
  const loop = new RaftLoop({
    localId: id,
    node,
    storage,
    wal,
    snapshotter,
    peers: { send: () => {}, addPeer: () => {}, updatePeer: () => {}, removePeer: () => {} },
    sm,
    snapshotCount,
    snapshotCatchUpEntries: 2,
    metrics: new MemberMetrics(),
    log: () => {},
    hooks: { onLeaderChange: () => {}, onReadStates: () => {}, onHardState: () => {}, onApplied: () => {}, onOutcome: (o) => void outcomes.push(o), onFatal: (e) => { throw e; } },
  });
  const turn = () => new Promise((r) => setImmediate(r));
  /** Completes fsyncs until the loop is idle (bounded). */
  const settle = async () => {
    for (let i = 0; i < 200; i++) {
      await turn();
      const s = saves.find((x) => !(x as { done?: boolean }).done);
      if (!s) { await turn(); if (!saves.some((x) => !(x as { done?: boolean }).done)) return; continue; }
      (s as { done?: boolean }).done = true;
      s.release();
    }
    throw new Error('loop did not settle');
  };
  return { loop, node, sm, storage, saves, snapshots, released, outcomes, settle, turn, maxInFlight: () => maxInFlight };
}

const put = (n: number) => encodeInternalRequest({ id: BigInt(n), put: putReq(`k${n}`, `v${n}`) });

describe('RaftLoop', () => {
  it('batches proposals made during an fsync into the next one, never overlapping cycles', async () => {
    const h = setup();
    h.loop.kick();
    await h.settle();
    for (let i = 0; i < 10 && !h.loop.isLeader; i++) { h.loop.tick(); await h.settle(); }
    expect(h.loop.isLeader).toBe(true);

    const before = h.saves.length;
    h.loop.propose(put(1));
    await h.turn();
    expect(h.saves.length).toBe(before + 1); // the cycle for put 1 waits on its fsync
    h.loop.propose(put(2));
    h.loop.propose(put(3));
    await h.turn();
    await h.turn();
    expect(h.saves.length).toBe(before + 1); // no second cycle while the first is in flight
    await h.settle();
    // One write for put 1, one for puts 2 and 3 together, then only hard-state (commit) updates.
    const perSave = h.saves.slice(before).map((s) => s.entries.length);
    expect(perSave.slice(0, 2)).toEqual([1, 2]);
    expect(perSave.slice(2).every((n) => n === 0)).toBe(true);
    expect(h.maxInFlight()).toBe(1);
    expect(h.outcomes.map((o) => o.id)).toEqual([1n, 2n, 3n]);
    expect(h.sm.store.currentRevision).toBe(4);
  });

  it('snapshots every snapshotCount applied entries and releases the WAL', async () => {
    const h = setup(3);
    h.loop.kick();
    await h.settle();
    for (let i = 0; i < 10 && !h.loop.isLeader; i++) { h.loop.tick(); await h.settle(); }
    for (let n = 1; n <= 8; n++) { h.loop.propose(put(n)); await h.settle(); }
    expect(h.snapshots.length).toBeGreaterThanOrEqual(2);
    expect(h.released).toEqual(h.snapshots);
    const last = h.snapshots[h.snapshots.length - 1]!;
    expect(h.loop.snapshotIndex).toBe(last);
    // The snapshot holds the state at its index: a fresh state machine restored from it has the keys.
    const copy = new StateMachine();
    copy.restore(h.storage.snapshot().data);
    expect(copy.consistentIndex).toBe(last);
    expect(copy.membership.list().map((m) => m.name)).toEqual(['solo']);
  });
});

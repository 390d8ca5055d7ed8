import { describe, expect, it } from 'vitest';
import { LinearizableReads, requestIdToCtx } from '../../../../main/etcd/server/linearizableReads';

function harness() {
  let now = 0;
  let applied = 0;
  let nextId = 100n;
  const sent: bigint[] = [];
  const reads = new LinearizableReads({
    nextId: () => nextId++,
    sendReadIndex: (ctx) => sent.push(new DataView(ctx.buffer, ctx.byteOffset).getBigUint64(0)),
    appliedIndex: () => applied,
    now: () => now,
    timeoutMs: 1000,
    retryMs: 500,
  });
  const settled = (p: Promise<void>) => {
    const s = { state: 'pending' as string };
    p.then(() => (s.state = 'ok'), (e: Error) => (s.state = e.message));
    return s;
  };
  return {
    reads,
    sent,
    settled,
    setNow: (t: number) => (now = t),
    setApplied: (i: number) => (applied = i),
  };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('LinearizableReads', () => {
  it('batches reads that arrive during a round into the next round', async () => {
    const h = harness();
    const a = h.settled(h.reads.wait());
    const b = h.settled(h.reads.wait());
    const c = h.settled(h.reads.wait());
    // a started round 100; b and c queue for the next one.
    expect(h.sent).toEqual([100n]);
    h.setApplied(5);
    h.reads.onReadState({ index: 5, requestCtx: requestIdToCtx(100n) });
    await flush();
    expect([a.state, b.state, c.state]).toEqual(['ok', 'pending', 'pending']);
    expect(h.sent).toEqual([100n, 101n]);
    h.reads.onReadState({ index: 6, requestCtx: requestIdToCtx(101n) });
    await flush();
    expect([b.state, c.state]).toEqual(['pending', 'pending']); // applied 5 < 6
    h.reads.onApplied(6);
    await flush();
    expect([b.state, c.state]).toEqual(['ok', 'ok']);
    expect(h.reads.pending).toBe(0);
  });

  it('ignores read states of other rounds', async () => {
    const h = harness();
    const a = h.settled(h.reads.wait());
    h.setApplied(10);
    h.reads.onReadState({ index: 1, requestCtx: requestIdToCtx(42n) });
    await flush();
    expect(a.state).toBe('pending');
  });

  const timing = [
    { name: 'resends after the retry period', at: 500, wantSent: [100n, 100n], want: 'pending' },
    { name: 'does not resend early', at: 499, wantSent: [100n], want: 'pending' },
    { name: 'times out after the request timeout', at: 1000, wantSent: [100n], want: 'etcdserver: request timed out' },
  ];
  it.each(timing)('$name', async ({ at, wantSent, want }) => {
    const h = harness();
    const a = h.settled(h.reads.wait());
    h.setNow(at);
    h.reads.tick();
    await flush();
    expect(h.sent).toEqual(wantSent);
    expect(a.state).toBe(want);
  });

  it('resends when a leader appears and fails when a known leader changes', async () => {
    const h = harness();
    const a = h.settled(h.reads.wait());
    h.reads.onLeaderChanged(0n, 7n);
    expect(h.sent).toEqual([100n, 100n]);
    h.reads.onLeaderChanged(7n, 8n);
    await flush();
    expect(a.state).toBe('etcdserver: leader changed');
  });
});

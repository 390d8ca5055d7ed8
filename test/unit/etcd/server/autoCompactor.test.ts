import { describe, expect, it } from 'vitest';
import {
  AutoCompactor,
  type AutoCompactionConfig,
  type CompactorClock,
} from '../../../../main/etcd/server/autoCompactor';
import { Errors } from '../../../../main/etcd/errors';
import { formatGoDuration } from '../../../../main/common/goDuration';

/** A manual clock: advance() fires due timers in time order and lets their async work settle. */
class FakeClock implements CompactorClock {
  t = 0;
  private seq = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  get pending(): number {
    return this.timers.size;
  }
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    for (let guard = 0; guard < 100_000; guard++) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.timers) if (e[1].at <= target && (!next || e[1].at < next[1].at)) next = e;
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
      for (let i = 0; i < 10; i++) await Promise.resolve();
    }
    this.t = target;
  }
}

function setup(config: AutoCompactionConfig, compactImpl?: (rev: number) => Promise<void>) {
  const clock = new FakeClock();
  const state: { rev: number; leader: boolean; revAt?: (t: number) => number } = { rev: 1, leader: true };
  const compacted: number[] = [];
  const logs: string[] = [];
  const compactor = new AutoCompactor(config, {
    rev: () => (state.revAt ? state.revAt(clock.now()) : state.rev),
    compact: async (rev) => {
      compacted.push(rev);
      if (compactImpl) await compactImpl(rev);
    },
    isLeader: () => state.leader,
    log: (l) => logs.push(l),
    clock,
  });
  return { clock, state, compacted, logs, compactor };
}

describe('AutoCompactor, revision mode', () => {
  it('compacts to current - retention every interval, skipping <= 0 and the previous target', async () => {
    const { clock, state, compacted, logs, compactor } = setup({ mode: 'revision', retention: 10, revisionIntervalMs: 1000 });
    compactor.start();
    state.rev = 8;
    await clock.advance(1000);
    expect(compacted).toEqual([]); // 8 - 10 <= 0
    state.rev = 25;
    await clock.advance(999);
    expect(compacted).toEqual([]);
    await clock.advance(1);
    expect(compacted).toEqual([15]);
    await clock.advance(1000);
    expect(compacted).toEqual([15]); // same target as last time
    state.rev = 31;
    await clock.advance(1000);
    expect(compacted).toEqual([15, 21]);
    expect(logs).toContain('compactor: Starting auto-compaction at revision 15 (retention: 10 revisions)');
    expect(logs).toContain('compactor: Finished auto-compaction at revision 21');
    compactor.stop();
    expect(clock.pending).toBe(0);
    state.rev = 100;
    await clock.advance(10_000);
    expect(compacted).toEqual([15, 21]);
  });

  it('uses etcd\'s 5-minute interval by default', async () => {
    const { clock, state, compacted, compactor } = setup({ mode: 'revision', retention: 2 });
    state.rev = 10;
    compactor.start();
    await clock.advance(5 * 60_000 - 1);
    expect(compacted).toEqual([]);
    await clock.advance(1);
    expect(compacted).toEqual([8]);
  });

  it('runs only while this member leads', async () => {
    const { clock, state, compacted, compactor } = setup({ mode: 'revision', retention: 5, revisionIntervalMs: 100 });
    state.leader = false;
    state.rev = 50;
    compactor.start();
    await clock.advance(1000);
    expect(compacted).toEqual([]);
    state.leader = true;
    await clock.advance(100);
    expect(compacted).toEqual([45]);
    state.leader = false;
    state.rev = 60;
    await clock.advance(1000);
    expect(compacted).toEqual([45]);
  });

  it('treats "required revision has been compacted" as done and retries other errors', async () => {
    let fail: Error | undefined = Errors.compacted();
    const { clock, state, compacted, logs, compactor } = setup({ mode: 'revision', retention: 1, revisionIntervalMs: 100 }, async () => {
      if (fail) throw fail;
    });
    state.rev = 11;
    compactor.start();
    await clock.advance(100);
    expect(compacted).toEqual([10]);
    expect(logs).toContain('compactor: Finished auto-compaction at revision 10');
    await clock.advance(100);
    expect(compacted).toEqual([10]); // counted as success: not retried
    fail = new Error('etcdserver: request timed out');
    state.rev = 21;
    await clock.advance(100);
    expect(logs).toContain('compactor: Failed auto-compaction at revision 20 (etcdserver: request timed out)');
    expect(logs).toContain('compactor: Retry after 100ms');
    await clock.advance(100);
    expect(compacted).toEqual([10, 20, 20]); // retried
    fail = undefined;
    await clock.advance(100);
    expect(compacted).toEqual([10, 20, 20, 20]);
    await clock.advance(100);
    expect(compacted).toEqual([10, 20, 20, 20]);
  });
});

describe('AutoCompactor, periodic mode', () => {
  it('short retention: samples every retention/10 and compacts every retention to the revision of retention ago', async () => {
    const { clock, state, compacted, logs, compactor } = setup({ mode: 'periodic', retention: 10_000 });
    expect(compactor.retryIntervalMs).toBe(1000);
    state.revAt = (t) => 100 + Math.floor(t / 1000);
    compactor.start();
    await clock.advance(9000);
    expect(compacted).toEqual([]);
    await clock.advance(1000); // t = 10 s
    expect(compacted).toEqual([100]); // sampled at t = 0
    expect(logs).toContain('compactor: Starting auto-compaction at revision 100 (retention: 10s)');
    await clock.advance(9999);
    expect(compacted).toEqual([100]);
    await clock.advance(1);
    expect(compacted).toEqual([100, 110]); // t = 20 s: the sample of t = 10 s
    compactor.stop();
  });

  it('retention over an hour: samples every 6 minutes, compacts hourly after the first retention', async () => {
    const { clock, state, compacted, compactor } = setup({ mode: 'periodic', retention: 2 * 3_600_000 });
    expect(compactor.retryIntervalMs).toBe(360_000);
    state.revAt = (t) => 1 + Math.floor(t / 60_000);
    compactor.start();
    await clock.advance(2 * 3_600_000 - 1);
    expect(compacted).toEqual([]);
    await clock.advance(1); // t = 2 h
    expect(compacted).toEqual([1]);
    await clock.advance(3_600_000 - 1);
    expect(compacted).toEqual([1]);
    await clock.advance(1); // t = 3 h
    expect(compacted).toEqual([1, 61]); // the revision of t = 1 h
  });

  it('keeps sampling on a follower and compacts once it leads', async () => {
    const { clock, state, compacted, compactor } = setup({ mode: 'periodic', retention: 1000 });
    state.leader = false;
    state.revAt = (t) => 1 + Math.floor(t / 100);
    compactor.start();
    await clock.advance(3000);
    expect(compacted).toEqual([]);
    state.leader = true;
    await clock.advance(100); // t = 3.1 s: 3.1 s since start, the sample of 1 s ago
    expect(compacted).toEqual([22]);
    await clock.advance(900);
    expect(compacted).toEqual([22]);
    await clock.advance(100);
    expect(compacted).toEqual([22, 32]);
  });

  it('ignores the compacted error and retries others every retry interval', async () => {
    let fail: Error | undefined = new Error('etcdserver: leader changed');
    const { clock, state, compacted, compactor } = setup({ mode: 'periodic', retention: 1000 }, async () => {
      if (fail) throw fail;
    });
    compactor.start();
    for (let i = 1; i <= 10; i++) {
      state.rev = 1 + i;
      await clock.advance(100);
    }
    expect(compacted).toEqual([1]);
    await clock.advance(100); // failed: retried at the next sample
    expect(compacted).toEqual([1, 2]);
    fail = Errors.compacted();
    await clock.advance(100);
    expect(compacted).toEqual([1, 2, 3]);
    await clock.advance(900); // success: waits a full interval
    expect(compacted).toEqual([1, 2, 3]);
    await clock.advance(100);
    expect(compacted).toHaveLength(4);
  });
});

describe('formatGoDuration', () => {
  it('prints like Go', () => {
    expect(formatGoDuration(3_600_000)).toBe('1h0m0s');
    expect(formatGoDuration(1_800_000)).toBe('30m0s');
    expect(formatGoDuration(2000)).toBe('2s');
    expect(formatGoDuration(1500)).toBe('1.5s');
    expect(formatGoDuration(100)).toBe('100ms');
  });
});

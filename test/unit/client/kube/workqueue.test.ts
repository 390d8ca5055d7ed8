import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../../main/client/kube/clock';
import { ItemExponentialRateLimiter, RateLimitingQueue, runWorkers } from '../../../../main/client/kube/workqueue';

describe('ItemExponentialRateLimiter', () => {
  const cases = [
    { name: 'doubles from the base', base: 5, max: 1_000_000, calls: 4, want: [5, 10, 20, 40] },
    { name: 'caps at max', base: 100, max: 300, calls: 4, want: [100, 200, 300, 300] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const rl = new ItemExponentialRateLimiter<string>(c.base, c.max);
      expect(Array.from({ length: c.calls }, () => rl.when('a'))).toEqual(c.want);
      expect(rl.numRequeues('a')).toBe(c.calls);
      expect(rl.when('b')).toBe(c.base);
      rl.forget('a');
      expect(rl.numRequeues('a')).toBe(0);
      expect(rl.when('a')).toBe(c.base);
    });
  }
});

describe('RateLimitingQueue', () => {
  it('dedupes queued items and keeps order', async () => {
    const q = new RateLimitingQueue<string>();
    for (const k of ['a', 'b', 'a', 'c', 'b']) q.add(k);
    expect(q.len()).toBe(3);
    const got = [(await q.get()).item, (await q.get()).item, (await q.get()).item];
    expect(got).toEqual(['a', 'b', 'c']);
  });

  it('an item added while processing is re-queued only after done', async () => {
    const q = new RateLimitingQueue<string>();
    q.add('a');
    const first = await q.get();
    expect(first.item).toBe('a');
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(0);
    q.done('a');
    expect(q.len()).toBe(1);
    expect((await q.get()).item).toBe('a');
    q.done('a');
    expect(q.len()).toBe(0);
  });

  it('addRateLimited waits base·2^n on the clock; forget resets', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({ clock, rateLimiter: new ItemExponentialRateLimiter(10, 1000) });
    const delays: number[] = [];
    for (let round = 0; round < 4; round++) {
      q.addRateLimited('k');
      let waited = 0;
      while (q.len() === 0 && waited < 10_000) {
        clock.step(1);
        waited++;
      }
      delays.push(waited);
      await q.get();
      q.done('k');
    }
    expect(delays).toEqual([10, 20, 40, 80]);
    expect(q.numRequeues('k')).toBe(4);
    q.forget('k');
    q.addRateLimited('k');
    clock.step(9);
    expect(q.len()).toBe(0);
    clock.step(1);
    expect(q.len()).toBe(1);
  });

  it('addAfter keeps the earliest of several delays', () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({ clock });
    q.addAfter('x', 500);
    q.addAfter('x', 100);
    q.addAfter('x', 900);
    clock.step(100);
    expect(q.len()).toBe(1);
    clock.step(1000);
    expect(q.len()).toBe(1);
    expect(clock.pending()).toBe(0);
  });

  it('a waiting get is woken by add, and by shutDown', async () => {
    const q = new RateLimitingQueue<string>();
    const p = q.get();
    q.add('z');
    expect(await p).toEqual({ item: 'z', shutdown: false });
    const p2 = q.get();
    q.shutDown();
    expect(await p2).toEqual({ shutdown: true });
    q.add('after');
    expect(q.len()).toBe(0);
    expect(await q.get()).toEqual({ shutdown: true });
  });

  it('runWorkers retries a failing key rate-limited, then forgets it on success', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({ clock, rateLimiter: new ItemExponentialRateLimiter(5, 1000) });
    let calls = 0;
    const seen: number[] = [];
    const done = runWorkers(q, 2, async () => {
      calls++;
      seen.push(q.numRequeues('k'));
      if (calls < 3) throw new Error('transient');
    });
    q.add('k');
    for (let i = 0; i < 200 && calls < 3; i++) {
      await new Promise((r) => setImmediate(r));
      clock.step(5);
    }
    await new Promise((r) => setImmediate(r));
    expect(calls).toBe(3);
    expect(seen).toEqual([0, 1, 2]);
    expect(q.numRequeues('k')).toBe(0);
    q.shutDown();
    await done;
  });
});

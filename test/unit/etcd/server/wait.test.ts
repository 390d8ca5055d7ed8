import { describe, expect, it } from 'vitest';
import { WaitRegistry } from '../../../../main/etcd/server/wait';
import { IdGenerator } from '../../../../main/etcd/server/idGenerator';

describe('WaitRegistry', () => {
  it('resolves the registered waiter once and ignores unknown ids', async () => {
    const w = new WaitRegistry<string>();
    const p = w.register(1n, 0, 100);
    expect(w.isRegistered(1n)).toBe(true);
    expect(w.trigger(2n, 'other')).toBe(false);
    expect(w.trigger(1n, 'done')).toBe(true);
    expect(w.trigger(1n, 'again')).toBe(false);
    await expect(p).resolves.toBe('done');
    expect(w.size).toBe(0);
  });

  it('expires only waiters past their deadline, oldest first', async () => {
    const w = new WaitRegistry<number>();
    const early = w.register(1n, 0, 10);
    const late = w.register(2n, 5, 20);
    expect(w.expire(15, (startedAt) => new Error(`timeout since ${startedAt}`))).toBe(1);
    await expect(early).rejects.toThrow('timeout since 0');
    expect(w.isRegistered(2n)).toBe(true);
    w.trigger(2n, 7);
    await expect(late).resolves.toBe(7);
  });

  it('refuses a duplicate id and fails everything on stop', async () => {
    const w = new WaitRegistry<number>();
    const p = w.register(9n, 0, 10);
    expect(() => w.register(9n, 0, 10)).toThrow(/duplicate/);
    w.failAll(new Error('stopped'));
    await expect(p).rejects.toThrow('stopped');
  });
});

describe('IdGenerator', () => {
  it('puts the member id low 16 bits on top and counts up', () => {
    const g = new IdGenerator(0x1234_5678_9abc_def0n, 0x12_3456_789a);
    const a = g.next();
    const b = g.next();
    expect(a >> 48n).toBe(0xdef0n);
    expect(b - a).toBe(1n);
    expect((a >> 8n) & 0xff_ffff_ffffn).toBe(0x12_3456_789an);
  });
});

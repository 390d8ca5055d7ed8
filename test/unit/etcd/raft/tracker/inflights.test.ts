import { describe, expect, it } from 'vitest';
import { Inflights } from '../../../../../main/etcd/raft/tracker/inflights';

/** The live window, oldest first, read from the ring. */
function contents(f: Inflights): number[] {
  const out: number[] = [];
  const probe = f as unknown as { start: number; buffer: number[] | undefined; size: number };
  for (let i = 0; i < f.count; i++) out.push(probe.buffer![(probe.start + i) % probe.size]!);
  return out;
}

describe('Inflights', () => {
  const cases = [
    { name: 'fill to capacity', size: 4, ops: [['add', 1], ['add', 2], ['add', 3], ['add', 4]], want: [1, 2, 3, 4], full: true },
    { name: 'free up to an index', size: 4, ops: [['add', 1], ['add', 2], ['add', 3], ['freeLE', 2]], want: [3], full: false },
    { name: 'free below first is a no-op', size: 4, ops: [['add', 5], ['add', 6], ['freeLE', 4]], want: [5, 6], full: false },
    { name: 'free everything resets', size: 4, ops: [['add', 5], ['add', 6], ['freeLE', 9]], want: [], full: false },
    {
      name: 'wraps around the ring',
      size: 3,
      ops: [['add', 1], ['add', 2], ['add', 3], ['freeLE', 2], ['add', 4], ['add', 5]],
      want: [3, 4, 5],
      full: true,
    },
    { name: 'freeFirstOne', size: 3, ops: [['add', 1], ['add', 2], ['add', 3], ['freeFirstOne', 0]], want: [2, 3], full: false },
  ] as const;
  it.each(cases)('$name', ({ size, ops, want, full }) => {
    const f = new Inflights(size);
    for (const [op, n] of ops) {
      if (op === 'add') f.add(n);
      else if (op === 'freeLE') f.freeLE(n);
      else f.freeFirstOne();
    }
    expect(contents(f)).toEqual(want);
    expect(f.full()).toBe(full);
  });

  it('refuses to add when full', () => {
    const f = new Inflights(1);
    f.add(1);
    expect(() => f.add(2)).toThrow(/full/);
  });
});

// The watch feeds' bounded ring: capacity, seqs with gaps (two feeds share
// one counter), and values dropped oldest first past the byte budget.

import { describe, expect, it } from 'vitest';
import { RecordRing, type Held } from '../../../main/console/recordRing';

const held = (seq: number, value = 'x'.repeat(10)): Held<string> => ({ record: { seq }, value });

describe('RecordRing', () => {
  it('keeps the newest `capacity` records and finds them by seq, gaps and all', () => {
    const r = new RecordRing<string>(3, 1_000, (v) => v.length);
    for (const s of [1, 2, 5, 7, 8]) r.push(held(s));
    expect(r.size).toBe(3);
    expect(r.newest(10).map((h) => h.record.seq)).toEqual([5, 7, 8]);
    expect(r.newest(2).map((h) => h.record.seq)).toEqual([7, 8]);
    expect(r.find(7)?.record.seq).toBe(7);
    expect(r.find(6)).toBeUndefined();
    expect(r.find(2)).toBeUndefined();
  });

  it('past the budget the oldest lose their values first; the newest keeps its own', () => {
    const r = new RecordRing<string>(10, 25, (v) => v.length);
    for (let s = 1; s <= 4; s++) r.push(held(s));
    expect(r.newest(10).map((h) => h.value !== undefined)).toEqual([false, false, true, true]);
    // eviction of value-less records keeps the accounting right
    for (let s = 5; s <= 20; s++) r.push(held(s));
    expect(r.newest(10).filter((h) => h.value !== undefined).map((h) => h.record.seq)).toEqual([19, 20]);
  });
});

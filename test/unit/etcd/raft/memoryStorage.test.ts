import { describe, expect, it } from 'vitest';
import {
  EntryType,
  ErrCompacted,
  ErrSnapOutOfDate,
  ErrUnavailable,
  MemoryStorage,
  type Entry,
} from '../../../../main/etcd/raft/index';

const ent = (index: number, term: number, size = 0): Entry => ({ index, term, type: EntryType.Normal, data: new Uint8Array(size) });
const cs = { voters: [1n, 2n, 3n], learners: [] };

/** Storage holding a snapshot at 3 (term 3) and entries 4..5 (terms 4, 5), as etcd-io/raft's storage tests. */
function storage(): MemoryStorage {
  const s = new MemoryStorage();
  s.append([ent(1, 1), ent(2, 2), ent(3, 3), ent(4, 4, 10), ent(5, 5, 10)]);
  s.createSnapshot(3, cs, new Uint8Array([9]));
  s.compact(3);
  return s;
}

describe('MemoryStorage', () => {
  it.each([
    { i: 2, want: ErrCompacted },
    { i: 3, want: 3 },
    { i: 4, want: 4 },
    { i: 5, want: 5 },
    { i: 6, want: ErrUnavailable },
  ])('term($i)', ({ i, want }) => {
    const s = storage();
    if (typeof want === 'number') expect(s.term(i)).toBe(want);
    else expect(() => s.term(i)).toThrow(want);
  });

  it.each([
    { lo: 2, hi: 6, max: Infinity, want: ErrCompacted },
    { lo: 3, hi: 4, max: Infinity, want: ErrCompacted },
    { lo: 4, hi: 5, max: Infinity, want: [4] },
    { lo: 4, hi: 6, max: Infinity, want: [4, 5] },
    { lo: 4, hi: 6, max: 0, want: [4] }, // always at least one
    { lo: 4, hi: 6, max: 19, want: [4] },
    { lo: 4, hi: 6, max: 20, want: [4, 5] },
  ])('entries($lo, $hi, $max)', ({ lo, hi, max, want }) => {
    const s = storage();
    if (Array.isArray(want)) expect(s.entries(lo, hi, max).map((e) => e.index)).toEqual(want);
    else expect(() => s.entries(lo, hi, max)).toThrow(want);
  });

  it('reports first and last index around the snapshot', () => {
    const s = storage();
    expect([s.firstIndex(), s.lastIndex()]).toEqual([4, 5]);
    expect(s.snapshot().metadata).toEqual({ index: 3, term: 3, confState: cs });
  });

  it.each([
    { name: 'already compacted', at: 3, want: ErrCompacted },
    { name: 'compact one more', at: 4, first: 5, last: 5 },
    { name: 'compact all', at: 5, first: 6, last: 5 },
  ])('compact: $name', ({ at, want, first, last }) => {
    const s = storage();
    if (want) return void expect(() => s.compact(at)).toThrow(want);
    s.compact(at);
    expect([s.firstIndex(), s.lastIndex()]).toEqual([first, last]);
  });

  it.each([
    { name: 'overlapping identical', ents: [ent(4, 4), ent(5, 5)], want: [4, 5], terms: [4, 5] },
    { name: 'truncates a conflicting suffix', ents: [ent(4, 6), ent(5, 6)], want: [4, 5], terms: [6, 6] },
    { name: 'replaces from the middle and extends', ents: [ent(5, 6), ent(6, 6)], want: [4, 5, 6], terms: [4, 6, 6] },
    { name: 'skips the compacted part', ents: [ent(2, 3), ent(3, 3), ent(4, 7)], want: [4], terms: [7] },
    { name: 'appends at the end', ents: [ent(6, 5)], want: [4, 5, 6], terms: [4, 5, 5] },
  ])('append: $name', ({ ents, want, terms }) => {
    const s = storage();
    s.append(ents);
    const got = s.entries(4, s.lastIndex() + 1, Infinity);
    expect(got.map((e) => e.index)).toEqual(want);
    expect(got.map((e) => e.term)).toEqual(terms);
  });

  it('refuses to append with a gap', () => {
    expect(() => storage().append([ent(7, 5)])).toThrow(/missing log entry/);
  });

  it('snapshots must move forward', () => {
    const s = storage();
    expect(() => s.createSnapshot(3, cs, new Uint8Array())).toThrow(ErrSnapOutOfDate);
    const snap = s.createSnapshot(5, undefined, new Uint8Array([1]));
    expect(snap.metadata).toEqual({ index: 5, term: 5, confState: cs });
    expect(() => s.applySnapshot({ data: new Uint8Array(), metadata: { index: 4, term: 4, confState: cs } })).toThrow(ErrSnapOutOfDate);
  });

  it('applySnapshot replaces the log', () => {
    const s = storage();
    s.applySnapshot({ data: new Uint8Array(), metadata: { index: 10, term: 7, confState: cs } });
    expect([s.firstIndex(), s.lastIndex(), s.term(10)]).toEqual([11, 10, 7]);
  });
});

import { describe, expect, it } from 'vitest';
import { EntryType, ErrCompacted, MemoryStorage, type Entry } from '../../../../main/etcd/raft/index';
import { RaftLog } from '../../../../main/etcd/raft/raftLog';

const ent = (index: number, term: number, size = 0): Entry => ({ index, term, type: EntryType.Normal, data: new Uint8Array(size) });
const ents = (terms: number[], from = 1) => terms.map((t, i) => ent(from + i, t));

/** A log whose first `stable` entries are in storage and the rest unstable. */
function logWith(terms: number[], stable = terms.length): RaftLog {
  const s = new MemoryStorage();
  s.append(ents(terms.slice(0, stable)));
  const l = new RaftLog(s);
  if (stable < terms.length) l.append(ents(terms.slice(stable), stable + 1));
  return l;
}

const termsOf = (l: RaftLog) => l.slice(l.firstIndex(), l.lastIndex() + 1, Infinity).map((e) => e.term);

describe('RaftLog.findConflict', () => {
  const cases = [
    { name: 'no entries', append: [] as Entry[], want: 0 },
    { name: 'all match', append: ents([1, 2, 3]), want: 0 },
    { name: 'match then new', append: ents([2, 3, 4], 2), want: 4 },
    { name: 'conflict at start', append: ents([4, 4], 1), want: 1 },
    { name: 'conflict in middle', append: ents([2, 4], 2), want: 3 },
  ];
  it.each(cases)('$name', ({ append, want }) => {
    expect(logWith([1, 2, 3]).findConflict(append)).toBe(want);
  });
});

describe('RaftLog.maybeAppend', () => {
  // Log [1,2,3] (terms), committed 1.
  const cases = [
    { name: 'term mismatch rejects', index: 3, logTerm: 2, commit: 3, append: [] as Entry[], want: undefined, terms: [1, 2, 3], committed: 1 },
    { name: 'beyond last rejects', index: 4, logTerm: 3, commit: 3, append: [], want: undefined, terms: [1, 2, 3], committed: 1 },
    { name: 'heartbeat-like append commits', index: 3, logTerm: 3, commit: 3, append: [], want: 3, terms: [1, 2, 3], committed: 3 },
    { name: 'commit capped at last new', index: 2, logTerm: 2, commit: 9, append: [], want: 2, terms: [1, 2, 3], committed: 2 },
    { name: 'extends the log', index: 3, logTerm: 3, commit: 4, append: ents([4, 4], 4), want: 5, terms: [1, 2, 3, 4, 4], committed: 4 },
    { name: 'truncates a conflict', index: 2, logTerm: 2, commit: 2, append: ents([4], 3), want: 3, terms: [1, 2, 4], committed: 2 },
    { name: 'old duplicate does not truncate', index: 1, logTerm: 1, commit: 1, append: ents([2], 2), want: 2, terms: [1, 2, 3], committed: 1 },
  ];
  it.each(cases)('$name', ({ index, logTerm, commit, append, want, terms, committed }) => {
    const l = logWith([1, 2, 3]);
    l.commitTo(1);
    expect(l.maybeAppend(index, logTerm, commit, append)).toBe(want);
    expect(termsOf(l)).toEqual(terms);
    expect(l.committed).toBe(committed);
  });

  it('refuses to truncate committed entries', () => {
    const l = logWith([1, 2, 3]);
    l.commitTo(3);
    expect(() => l.maybeAppend(1, 1, 3, ents([4], 2))).toThrow(/conflicts with committed/);
  });
});

describe('RaftLog.findConflictByTerm', () => {
  // terms by index: 1:1 2:1 3:2 4:2 5:5 6:5
  const cases = [
    { index: 6, term: 5, want: [6, 5] },
    { index: 6, term: 4, want: [4, 2] },
    { index: 6, term: 2, want: [4, 2] },
    { index: 6, term: 1, want: [2, 1] },
    { index: 6, term: 0, want: [0, 0] },
    { index: 3, term: 1, want: [2, 1] },
  ];
  it.each(cases)('($index, $term)', ({ index, term, want }) => {
    expect(logWith([1, 1, 2, 2, 5, 5], 3).findConflictByTerm(index, term)).toEqual(want);
  });
});

describe('RaftLog.isUpToDate', () => {
  const cases = [
    { name: 'higher term, shorter', lastIndex: 1, lastTerm: 4, want: true },
    { name: 'lower term, longer', lastIndex: 9, lastTerm: 2, want: false },
    { name: 'same term, longer', lastIndex: 4, lastTerm: 3, want: true },
    { name: 'same term, same length', lastIndex: 3, lastTerm: 3, want: true },
    { name: 'same term, shorter', lastIndex: 2, lastTerm: 3, want: false },
  ];
  it.each(cases)('$name', ({ lastIndex, lastTerm, want }) => {
    expect(logWith([1, 2, 3]).isUpToDate(lastIndex, lastTerm)).toBe(want);
  });
});

describe('RaftLog commit rules', () => {
  const cases = [
    { name: 'entry of the current term commits', maxIndex: 3, term: 3, want: true, committed: 3 },
    { name: 'entry of an older term does not', maxIndex: 2, term: 3, want: false, committed: 0 },
    { name: 'nothing new', maxIndex: 0, term: 3, want: false, committed: 0 },
  ];
  it.each(cases)('$name', ({ maxIndex, term, want, committed }) => {
    const l = logWith([1, 2, 3]);
    expect(l.maybeCommit(maxIndex, term)).toBe(want);
    expect(l.committed).toBe(committed);
  });

  it('cannot commit beyond the last index', () => {
    expect(() => logWith([1]).commitTo(2)).toThrow(/out of range/);
  });
});

describe('RaftLog.slice across storage and the unstable tail', () => {
  it.each([
    { name: 'storage only', lo: 2, hi: 4, max: Infinity, want: [2, 3] },
    { name: 'spans both', lo: 3, hi: 6, max: Infinity, want: [3, 4, 5] },
    { name: 'unstable only', lo: 5, hi: 7, max: Infinity, want: [5, 6] },
    { name: 'size limit inside storage', lo: 2, hi: 7, max: 15, want: [2] },
    { name: 'size limit in the unstable part', lo: 3, hi: 7, max: 25, want: [3, 4] },
  ])('$name', ({ lo, hi, max, want }) => {
    const s = new MemoryStorage();
    s.append([1, 2, 3, 4].map((i) => ent(i, 1, 10)));
    const l = new RaftLog(s);
    l.append([ent(5, 1, 10), ent(6, 1, 10)]);
    expect(l.slice(lo, hi, max).map((e) => e.index)).toEqual(want);
  });

  it('throws ErrCompacted below the first index', () => {
    const s = new MemoryStorage();
    s.append(ents([1, 1, 1, 1]));
    s.createSnapshot(2, { voters: [1n], learners: [] }, new Uint8Array());
    s.compact(2);
    const l = new RaftLog(s);
    expect(() => l.entries(2, Infinity)).toThrow(ErrCompacted);
    expect(l.term(1)).toBeUndefined();
    expect(l.term(2)).toBe(1);
    expect(l.entries(3, Infinity).map((e) => e.index)).toEqual([3, 4]);
  });
});

describe('unstable tail', () => {
  it('stableTo only drops entries whose term still matches', () => {
    const l = logWith([1, 1, 2, 2], 1);
    l.stableTo(3, 1); // stale: entry 3 has term 2
    expect(l.unstable.offset).toBe(2);
    l.stableTo(3, 2);
    expect(l.unstable.offset).toBe(4);
    expect(l.unstableEntries().map((e) => e.index)).toEqual([4]);
  });

  it('truncateAndAppend before the offset replaces the tail', () => {
    const l = logWith([1, 1, 1], 2);
    l.append(ents([2, 2], 2));
    expect(l.unstable.offset).toBe(2);
    expect(termsOf(l)).toEqual([1, 2, 2]);
  });

  it('nextEnts hands out committed but unapplied entries', () => {
    const l = logWith([1, 1, 1, 1], 2);
    l.commitTo(3);
    expect(l.nextEnts().map((e) => e.index)).toEqual([1, 2, 3]);
    l.appliedTo(2);
    expect(l.nextEnts().map((e) => e.index)).toEqual([3]);
    l.appliedTo(3);
    expect(l.hasNextEnts()).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { SafetyChecker, SafetyViolation, type EntryFacts } from './checker';

const e = (index: number, term: number, key = `d${index}`): EntryFacts => ({ index, term, key });
const logOf = (terms: number[]) => (i: number) => (i === 0 ? 0 : terms[i - 1] ?? 0);

// Each case feeds the checker a history; `want` is the property it must report (or undefined: clean).
const cases: { name: string; history: (c: SafetyChecker) => void; want?: RegExp }[] = [
  {
    name: 'two leaders in one term',
    history: (c) => {
      c.observeLeader(1n, 2, logOf([1]));
      c.observeLeader(2n, 2, logOf([1]));
    },
    want: /election safety/,
  },
  {
    name: 'same leader seen twice in a term is fine',
    history: (c) => {
      c.observeLeader(1n, 2, logOf([1]));
      c.observeLeader(1n, 2, logOf([1]));
      c.observeLeader(2n, 3, logOf([1]));
    },
  },
  {
    name: 'different data at the same index and term',
    history: (c) => {
      c.observePersisted(1n, e(3, 2, 'a'), 1);
      c.observePersisted(2n, e(3, 2, 'b'), 1);
    },
    want: /log matching/,
  },
  {
    name: 'same entry after different previous terms',
    history: (c) => {
      c.observePersisted(1n, e(3, 2), 1);
      c.observePersisted(2n, e(3, 2), 2);
    },
    want: /log matching/,
  },
  {
    name: 'two nodes apply different entries at one index',
    history: (c) => {
      c.observeApplied(1n, e(4, 2, 'x'), 3);
      c.observeApplied(2n, e(4, 3, 'x'), 3);
    },
    want: /state-machine safety/,
  },
  {
    name: 'a new leader lacks a committed entry',
    history: (c) => {
      c.observeApplied(1n, e(1, 1), 1);
      c.observeApplied(1n, e(2, 1), 1);
      c.observeLeader(3n, 2, logOf([1])); // has only index 1
    },
    want: /leader completeness/,
  },
  {
    name: 'a leader of a later term has a different entry where one was committed',
    history: (c) => {
      c.observeApplied(1n, e(1, 1), 2);
      c.observeApplied(1n, e(2, 2), 2);
      c.observeLeader(3n, 4, logOf([1, 3])); // term 3 at index 2
    },
    want: /leader completeness/,
  },
  {
    name: 'a leader of a term before the commit may lack the entry',
    history: (c) => {
      c.observeApplied(1n, e(242, 12), 14); // committed by the leader of term 14
      c.observeLeader(2n, 13, (i) => (i === 242 ? 13 : 12));
    },
  },
  {
    name: 'a compacted entry does not count as missing',
    history: (c) => {
      c.observeApplied(1n, e(1, 1), 1);
      c.observeLeader(3n, 2, (i) => (i <= 1 ? undefined : 2));
    },
  },
  {
    name: 'a stale read',
    history: (c) => c.observeRead(2n, 10, 9),
    want: /linearizable read/,
  },
];

describe('SafetyChecker', () => {
  it.each(cases)('$name', ({ history, want }) => {
    const c = new SafetyChecker();
    if (want) {
      expect(() => history(c)).toThrow(SafetyViolation);
      expect(() => history(new SafetyChecker())).toThrow(want);
    } else {
      expect(() => history(c)).not.toThrow();
    }
  });
});

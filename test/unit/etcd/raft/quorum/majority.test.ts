import { describe, expect, it } from 'vitest';
import { majorityCommittedIndex, majorityVoteResult, VoteResult } from '../../../../../main/etcd/raft/quorum/majority';

describe('majorityCommittedIndex', () => {
  const cases = [
    { name: 'no voters', voters: [], acked: {}, want: 0 },
    { name: 'single voter', voters: [1], acked: { 1: 7 }, want: 7 },
    { name: 'three, two agree', voters: [1, 2, 3], acked: { 1: 10, 2: 8, 3: 2 }, want: 8 },
    { name: 'three, one missing', voters: [1, 2, 3], acked: { 1: 10, 2: 8 }, want: 8 },
    { name: 'three, two missing', voters: [1, 2, 3], acked: { 1: 10 }, want: 0 },
    { name: 'four needs three', voters: [1, 2, 3, 4], acked: { 1: 9, 2: 8, 3: 7, 4: 1 }, want: 7 },
    { name: 'five needs three', voters: [1, 2, 3, 4, 5], acked: { 1: 9, 2: 1, 3: 7, 4: 8, 5: 2 }, want: 7 },
  ];
  it.each(cases)('$name', ({ voters, acked, want }) => {
    const a = acked as Record<number, number>;
    expect(majorityCommittedIndex(new Set(voters.map(BigInt)), (id) => a[Number(id)])).toBe(want);
  });
});

describe('majorityVoteResult', () => {
  const cases = [
    { name: 'no voters wins', voters: [], votes: {}, want: VoteResult.Won },
    { name: 'single yes', voters: [1], votes: { 1: true }, want: VoteResult.Won },
    { name: 'single no', voters: [1], votes: { 1: false }, want: VoteResult.Lost },
    { name: 'three, one yes', voters: [1, 2, 3], votes: { 1: true }, want: VoteResult.Pending },
    { name: 'three, two yes', voters: [1, 2, 3], votes: { 1: true, 3: true }, want: VoteResult.Won },
    { name: 'three, two no', voters: [1, 2, 3], votes: { 2: false, 3: false }, want: VoteResult.Lost },
    { name: 'four, two yes two missing', voters: [1, 2, 3, 4], votes: { 1: true, 2: true }, want: VoteResult.Pending },
    { name: 'four, two yes two no', voters: [1, 2, 3, 4], votes: { 1: true, 2: true, 3: false, 4: false }, want: VoteResult.Lost },
    { name: 'votes of non-voters ignored', voters: [1, 2, 3], votes: { 1: true, 9: true }, want: VoteResult.Pending },
  ];
  it.each(cases)('$name', ({ voters, votes, want }) => {
    const m = new Map(Object.entries(votes).map(([k, v]) => [BigInt(k), v] as [bigint, boolean]));
    expect(majorityVoteResult(new Set(voters.map(BigInt)), m)).toBe(want);
  });
});

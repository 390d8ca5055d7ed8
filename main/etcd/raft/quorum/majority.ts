// Majority arithmetic over one voter set (etcd-io/raft quorum/majority.go,
// without joint configurations: membership changes are single-step).

import type { Index, MemberId } from '../types';

export enum VoteResult {
  /** Not decided yet: enough voters have not answered. */
  Pending = 1,
  Lost = 2,
  Won = 3,
}

/**
 * The largest index acknowledged by a majority of voters: sort the acked
 * indexes descending and take the quorum-th one. Voters that have not acked
 * count as 0. An empty voter set commits nothing.
 */
export function majorityCommittedIndex(
  voters: ReadonlySet<MemberId>,
  acked: (id: MemberId) => Index | undefined,
): Index {
  const n = voters.size;
  if (n === 0) return 0;
  const idx: number[] = [];
  for (const id of voters) idx.push(acked(id) ?? 0);
  idx.sort((a, b) => b - a);
  return idx[Math.floor(n / 2)]!;
}

/**
 * Won when a majority voted yes, Lost when a majority can no longer be
 * reached, Pending otherwise. An empty voter set wins (nothing to ask).
 */
export function majorityVoteResult(voters: ReadonlySet<MemberId>, votes: ReadonlyMap<MemberId, boolean>): VoteResult {
  if (voters.size === 0) return VoteResult.Won;
  let yes = 0;
  let missing = 0;
  for (const id of voters) {
    const v = votes.get(id);
    if (v === undefined) missing++;
    else if (v) yes++;
  }
  const q = Math.floor(voters.size / 2) + 1;
  if (yes >= q) return VoteResult.Won;
  if (yes + missing >= q) return VoteResult.Pending;
  return VoteResult.Lost;
}

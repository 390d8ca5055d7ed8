// Raft's safety properties, checked incrementally as a simulation (or a
// hand-written history) reports what the nodes did. Each check throws a
// SafetyViolation naming the property.
//
// 1. Election safety: at most one leader per term, over the whole run.
// 2. Log matching: an entry with the same index and term has the same data
//    and the same previous term on every node (so, by induction, the same
//    prefix) — checked for every entry a node persists.
// 3. Leader completeness: a leader of term T holds every entry committed in
//    an earlier term. An entry counts as committed when a node first applies
//    it, and as committed no later than the highest term any node had then
//    (the committing leader's term is at most that): leaders first seen at a
//    higher term must hold it. (An entry of term 12 may be committed by the
//    leader of term 14; the leader of term 13 need not have it.)
// 4. State-machine safety: no two nodes apply different entries at one index.
// 5. Linearizable reads: a ReadIndex answer is ≥ everything known committed
//    when the read was issued.

import type { Entry, Index, MemberId, Term } from '../../main/etcd/raft/index';

export class SafetyViolation extends Error {}

/** What the checker needs from an entry: its position and a fingerprint of its content. */
export interface EntryFacts {
  index: Index;
  term: Term;
  /** Identifies type + data. */
  key: string;
}

export function entryFacts(e: Entry): EntryFacts {
  let key = String(e.type) + ':';
  for (let i = 0; i < e.data.length; i++) key += String.fromCharCode(e.data[i]!);
  return { index: e.index, term: e.term, key };
}

/** A node's view of its own log for completeness checks: term at i, undefined if compacted. */
export type TermLookup = (i: Index) => Term | undefined;

export class SafetyChecker {
  private readonly leaderOfTerm = new Map<Term, MemberId>();
  private readonly seenEntries = new Map<string, { key: string; prevTerm: Term | undefined }>();
  private readonly committed = new Map<Index, EntryFacts & { termBound: Term }>();
  private maxCommitted: Index = 0;

  get committedIndex(): Index {
    return this.maxCommitted;
  }

  observeLeader(id: MemberId, term: Term, termAt: TermLookup): void {
    const prev = this.leaderOfTerm.get(term);
    if (prev !== undefined && prev !== id) {
      throw new SafetyViolation(`election safety: term ${term} has two leaders, ${prev} and ${id}`);
    }
    if (prev === undefined) {
      this.leaderOfTerm.set(term, id);
      for (const c of this.committed.values()) {
        if (c.termBound < term) this.checkHolds(id, term, termAt, c);
      }
    }
  }

  /** A node persisted `e`; prevTerm is the term of its entry at e.index-1 (undefined if compacted). */
  observePersisted(node: MemberId, e: EntryFacts, prevTerm: Term | undefined): void {
    const id = `${e.index}/${e.term}`;
    const seen = this.seenEntries.get(id);
    if (!seen) {
      this.seenEntries.set(id, { key: e.key, prevTerm });
      return;
    }
    if (seen.key !== e.key) {
      throw new SafetyViolation(`log matching: node ${node} persisted a different entry at ${id}`);
    }
    if (seen.prevTerm !== undefined && prevTerm !== undefined && seen.prevTerm !== prevTerm) {
      throw new SafetyViolation(`log matching: node ${node} has term ${prevTerm} before ${id}, another node ${seen.prevTerm}`);
    }
    if (seen.prevTerm === undefined) seen.prevTerm = prevTerm;
  }

  /** A node applied `e` (so it is committed); termBound is the highest term any node has now. */
  observeApplied(node: MemberId, e: EntryFacts, termBound: Term): void {
    const c = this.committed.get(e.index);
    if (c) {
      if (c.term !== e.term || c.key !== e.key) {
        throw new SafetyViolation(
          `state-machine safety: node ${node} applied ${e.term}/${e.index} but another node applied ${c.term}/${c.index} there`,
        );
      }
      return;
    }
    this.committed.set(e.index, { ...e, termBound });
    if (e.index > this.maxCommitted) this.maxCommitted = e.index;
  }

  /** A read issued when `requiredIndex` was known committed was answered at `index`. */
  observeRead(node: MemberId, requiredIndex: Index, index: Index): void {
    if (index < requiredIndex) {
      throw new SafetyViolation(`linearizable read: node ${node} got read index ${index} < ${requiredIndex} committed before the read`);
    }
  }

  private checkHolds(leader: MemberId, term: Term, termAt: TermLookup, c: EntryFacts): void {
    const t = termAt(c.index);
    if (t === undefined) return; // compacted into the leader's snapshot: covered by it
    if (t !== c.term) {
      throw new SafetyViolation(
        `leader completeness: leader ${leader} of term ${term} has term ${t} at index ${c.index}, committed entry has term ${c.term}`,
      );
    }
  }
}

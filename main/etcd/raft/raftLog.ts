// The whole log as the core sees it: the stable part in Storage plus the
// unstable tail, with the committed and applied cursors (etcd-io/raft log.go).
//
// Invariants:
// 1. applied ≤ committed ≤ lastIndex.
// 2. Storage holds indexes [firstIndex, unstable.offset); the unstable tail the rest.
// 3. A committed entry is never truncated (append panics if asked to).

import { ErrCompacted, ErrUnavailable, RaftPanic } from './errors';
import type { Storage } from './config';
import { UnstableLog } from './unstableLog';
import type { Entry, Index, Snapshot, Term } from './types';
import { payloadSize } from './util';

export class RaftLog {
  readonly unstable: UnstableLog;
  committed: Index;
  applied: Index;

  constructor(
    readonly storage: Storage,
    /** Bytes of committed entries handed out per Ready. */
    readonly maxNextEntsSize: number = Infinity,
  ) {
    const first = storage.firstIndex();
    const last = storage.lastIndex();
    this.unstable = new UnstableLog(last + 1);
    this.committed = first - 1;
    this.applied = first - 1;
  }

  firstIndex(): Index {
    return this.unstable.maybeFirstIndex() ?? this.storage.firstIndex();
  }

  lastIndex(): Index {
    return this.unstable.maybeLastIndex() ?? this.storage.lastIndex();
  }

  lastTerm(): Term {
    return this.term(this.lastIndex()) ?? 0;
  }

  /**
   * The term of entry i: undefined when i was compacted away, 0 beyond the
   * last index (no such entry yet).
   */
  term(i: Index): Term | undefined {
    const dummy = this.firstIndex() - 1;
    if (i < dummy) return undefined;
    if (i > this.lastIndex()) return 0;
    const t = this.unstable.maybeTerm(i);
    if (t !== undefined) return t;
    try {
      return this.storage.term(i);
    } catch (err) {
      if (err instanceof ErrCompacted || err instanceof ErrUnavailable) return undefined;
      throw err;
    }
  }

  matchTerm(i: Index, t: Term): boolean {
    return this.term(i) === t;
  }

  /**
   * Follower side of an append: if our entry at `index` has `logTerm`, append
   * ents after it (truncating any conflicting suffix), advance the commit to
   * min(committed, last new index) and return the last new index.
   */
  maybeAppend(index: Index, logTerm: Term, committed: Index, ents: readonly Entry[]): Index | undefined {
    if (!this.matchTerm(index, logTerm)) return undefined;
    const lastNew = index + ents.length;
    const ci = this.findConflict(ents);
    if (ci !== 0) {
      if (ci <= this.committed) throw new RaftPanic(`entry ${ci} conflicts with committed entry [committed(${this.committed})]`);
      this.append(ents.slice(ci - (index + 1)));
    }
    this.commitTo(Math.min(committed, lastNew));
    return lastNew;
  }

  append(ents: readonly Entry[]): Index {
    if (ents.length === 0) return this.lastIndex();
    const after = ents[0]!.index - 1;
    if (after < this.committed) throw new RaftPanic(`after(${after}) is out of range [committed(${this.committed})]`);
    this.unstable.truncateAndAppend(ents);
    return this.lastIndex();
  }

  /**
   * The index of the first entry in ents whose term differs from ours (or
   * which we do not have), or 0 when we already hold all of them.
   */
  findConflict(ents: readonly Entry[]): Index {
    for (const e of ents) if (!this.matchTerm(e.index, e.term)) return e.index;
    return 0;
  }

  /**
   * Fast backtracking: the largest index ≤ `index` whose term is ≤ `term`,
   * with that term. Entries above it cannot match a log whose entry at
   * `index` has `term`, so a probe can skip them all at once.
   * The walk is bounded by the first index (a compacted term gives term 0).
   */
  findConflictByTerm(index: Index, term: Term): [Index, Term] {
    const first = this.firstIndex();
    for (let i = index; i >= first - 1; i--) {
      const t = this.term(i);
      if (t === undefined) return [i, 0];
      if (t <= term) return [i, t];
    }
    return [first - 1, 0];
  }

  unstableEntries(): Entry[] {
    return this.unstable.entries.length ? this.unstable.entries.slice() : [];
  }

  /** Committed entries not yet applied (at most maxNextEntsSize bytes, at least one). */
  nextEnts(): Entry[] {
    const off = Math.max(this.applied + 1, this.firstIndex());
    if (this.committed + 1 > off) return this.slice(off, this.committed + 1, this.maxNextEntsSize);
    return [];
  }

  hasNextEnts(): boolean {
    return this.committed + 1 > Math.max(this.applied + 1, this.firstIndex());
  }

  hasPendingSnapshot(): boolean {
    return this.unstable.snapshot !== undefined && this.unstable.snapshot.metadata.index !== 0;
  }

  snapshot(): Snapshot {
    return this.unstable.snapshot ?? this.storage.snapshot();
  }

  /** Leader side: commit maxIndex if it is new and from the leader's term (never count older-term entries). */
  maybeCommit(maxIndex: Index, term: Term): boolean {
    if (maxIndex > this.committed && this.term(maxIndex) === term) {
      this.commitTo(maxIndex);
      return true;
    }
    return false;
  }

  commitTo(toCommit: Index): void {
    if (this.committed < toCommit) {
      if (this.lastIndex() < toCommit) {
        throw new RaftPanic(`tocommit(${toCommit}) is out of range [lastIndex(${this.lastIndex()})]`);
      }
      this.committed = toCommit;
    }
  }

  appliedTo(i: Index): void {
    if (i === 0) return;
    if (this.committed < i || i < this.applied) {
      throw new RaftPanic(`applied(${i}) is out of range [prevApplied(${this.applied}), committed(${this.committed})]`);
    }
    this.applied = i;
  }

  stableTo(i: Index, t: Term): void {
    this.unstable.stableTo(i, t);
  }

  stableSnapTo(i: Index): void {
    this.unstable.stableSnapTo(i);
  }

  /** Election restriction: is a log ending at (lastIndex, lastTerm) at least as up to date as ours? */
  isUpToDate(lastIndex: Index, lastTerm: Term): boolean {
    const ourTerm = this.lastTerm();
    return lastTerm > ourTerm || (lastTerm === ourTerm && lastIndex >= this.lastIndex());
  }

  restore(s: Snapshot): void {
    this.committed = s.metadata.index;
    this.unstable.restore(s);
  }

  /** Entries from i to the end, at most maxSize bytes (at least one). Throws ErrCompacted below firstIndex. */
  entries(i: Index, maxSize: number): Entry[] {
    const last = this.lastIndex();
    if (i > last) return [];
    return this.slice(i, last + 1, maxSize);
  }

  /** Entries [lo, hi), at most maxSize bytes (at least one). Throws ErrCompacted below firstIndex. */
  slice(lo: Index, hi: Index, maxSize: number): Entry[] {
    if (lo > hi) throw new RaftPanic(`invalid slice ${lo} > ${hi}`);
    const first = this.firstIndex();
    if (lo < first) throw new ErrCompacted();
    const last = this.lastIndex();
    if (hi > last + 1) throw new RaftPanic(`slice[${lo},${hi}) out of bound [${first},${last}]`);
    if (lo === hi) return [];
    const offset = this.unstable.offset;
    let ents: Entry[] = [];
    if (lo < offset) {
      const storageHi = Math.min(hi, offset);
      try {
        ents = this.storage.entries(lo, storageHi, maxSize);
      } catch (err) {
        if (err instanceof ErrUnavailable) throw new RaftPanic(`entries[${lo}:${storageHi}) is unavailable from storage`);
        throw err;
      }
      // Storage stopped early because of the size limit: that is all we return.
      if (ents.length < storageHi - lo) return ents;
    }
    if (hi > offset) {
      // Take from the unstable tail only what fits in the remaining budget:
      // one slice, never a copy of the whole tail.
      const arr = this.unstable.entries;
      const from = Math.max(lo, offset) - offset;
      const to = hi - offset;
      let size = payloadSize(ents);
      let end = from;
      while (end < to) {
        const s = arr[end]!.data.length;
        if ((ents.length > 0 || end > from) && size + s > maxSize) break;
        size += s;
        end++;
      }
      if (ents.length === 0) return arr.slice(from, end);
      for (let k = from; k < end; k++) ents.push(arr[k]!);
    }
    return ents;
  }
}

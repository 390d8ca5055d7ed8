// The tail of the log not yet handed to Storage: entries (and possibly an
// incoming snapshot) that the driver has not yet persisted
// (etcd-io/raft log_unstable.go).
//
// Invariants:
// 1. entries[i] has index offset + i.
// 2. If snapshot is set, offset = snapshot.metadata.index + 1.

import { RaftPanic } from './errors';
import type { Entry, Index, Snapshot, Term } from './types';

export class UnstableLog {
  snapshot: Snapshot | undefined;
  entries: Entry[] = [];

  constructor(public offset: Index) {}

  /** The first index if the unstable part starts with a snapshot. */
  maybeFirstIndex(): Index | undefined {
    return this.snapshot ? this.snapshot.metadata.index + 1 : undefined;
  }

  maybeLastIndex(): Index | undefined {
    if (this.entries.length) return this.offset + this.entries.length - 1;
    return this.snapshot ? this.snapshot.metadata.index : undefined;
  }

  maybeTerm(i: Index): Term | undefined {
    if (i < this.offset) {
      if (this.snapshot && this.snapshot.metadata.index === i) return this.snapshot.metadata.term;
      return undefined;
    }
    const last = this.maybeLastIndex();
    if (last === undefined || i > last) return undefined;
    return this.entries[i - this.offset]!.term;
  }

  /** Entries up to i (of term t) were persisted. A term mismatch means they were replaced since: keep them. */
  stableTo(i: Index, t: Term): void {
    const gt = this.maybeTerm(i);
    if (gt === undefined) return;
    if (gt === t && i >= this.offset) {
      this.entries = this.entries.slice(i + 1 - this.offset);
      this.offset = i + 1;
    }
  }

  stableSnapTo(i: Index): void {
    if (this.snapshot && this.snapshot.metadata.index === i) this.snapshot = undefined;
  }

  restore(s: Snapshot): void {
    this.offset = s.metadata.index + 1;
    this.entries = [];
    this.snapshot = s;
  }

  /** Appends ents, first dropping any unstable entries at or after ents[0].index. */
  truncateAndAppend(ents: readonly Entry[]): void {
    const after = ents[0]!.index;
    if (after === this.offset + this.entries.length) {
      for (const e of ents) this.entries.push(e);
    } else if (after <= this.offset) {
      // Replaces the whole unstable tail; the storage part after `after` is
      // replaced too once these entries are persisted.
      this.offset = after;
      this.entries = ents.slice();
    } else {
      this.entries = this.entries.slice(0, after - this.offset);
      for (const e of ents) this.entries.push(e);
    }
  }

  slice(lo: Index, hi: Index): Entry[] {
    const upper = this.offset + this.entries.length;
    if (lo > hi || lo < this.offset || hi > upper) {
      throw new RaftPanic(`unstable.slice[${lo},${hi}) out of bound [${this.offset},${upper}]`);
    }
    return this.entries.slice(lo - this.offset, hi - this.offset);
  }
}

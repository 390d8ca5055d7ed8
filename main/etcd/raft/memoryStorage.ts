// Storage kept in memory: the stable log the driver has persisted (the member
// server mirrors its WAL here), read synchronously by the core
// (etcd-io/raft storage.go MemoryStorage).
//
// Invariants:
// 1. ents[0] is a dummy entry at the snapshot's index and term; real entries follow.
// 2. firstIndex = ents[0].index + 1, lastIndex = ents[0].index + ents.length - 1.

import type { Storage } from './config';
import { ErrCompacted, ErrSnapOutOfDate, ErrUnavailable, RaftPanic } from './errors';
import { EntryType, NONE, type ConfState, type Entry, type HardState, type Index, type Snapshot, type Term } from './types';
import { EMPTY_BYTES, emptySnapshot, limitEnd } from './util';

function dummyEntry(index: Index, term: Term): Entry {
  return { index, term, type: EntryType.Normal, data: EMPTY_BYTES };
}

export class MemoryStorage implements Storage {
  private hardState: HardState = { term: 0, vote: NONE, commit: 0 };
  private snap: Snapshot = emptySnapshot();
  private ents: Entry[] = [dummyEntry(0, 0)];

  initialState(): { hardState: HardState; confState: ConfState } {
    return { hardState: { ...this.hardState }, confState: this.snap.metadata.confState };
  }

  setHardState(hs: HardState): void {
    this.hardState = { ...hs };
  }

  entries(lo: Index, hi: Index, maxSize: number): Entry[] {
    const offset = this.ents[0]!.index;
    if (lo <= offset) throw new ErrCompacted();
    if (hi > this.lastIndex() + 1) throw new RaftPanic(`entries' hi(${hi}) is out of bound lastindex(${this.lastIndex()})`);
    if (this.ents.length === 1) throw new ErrUnavailable();
    const from = lo - offset;
    return this.ents.slice(from, limitEnd(this.ents, from, hi - offset, maxSize));
  }

  term(i: Index): Term {
    const offset = this.ents[0]!.index;
    if (i < offset) throw new ErrCompacted();
    if (i - offset >= this.ents.length) throw new ErrUnavailable();
    return this.ents[i - offset]!.term;
  }

  lastIndex(): Index {
    return this.ents[0]!.index + this.ents.length - 1;
  }

  firstIndex(): Index {
    return this.ents[0]!.index + 1;
  }

  snapshot(): Snapshot {
    return this.snap;
  }

  /** Replaces the whole log by a snapshot (a follower received one). */
  applySnapshot(snap: Snapshot): void {
    if (this.snap.metadata.index >= snap.metadata.index) throw new ErrSnapOutOfDate();
    this.snap = snap;
    this.ents = [dummyEntry(snap.metadata.index, snap.metadata.term)];
  }

  /**
   * Records a state-machine image at index i (≤ lastIndex, usually the applied
   * index) so that lagging followers can be sent it. Does not drop entries:
   * call compact for that. confState defaults to the previous snapshot's.
   */
  createSnapshot(i: Index, confState: ConfState | undefined, data: Uint8Array): Snapshot {
    if (i <= this.snap.metadata.index) throw new ErrSnapOutOfDate();
    const offset = this.ents[0]!.index;
    if (i > this.lastIndex()) throw new RaftPanic(`snapshot ${i} is out of bound lastindex(${this.lastIndex()})`);
    this.snap = {
      data,
      metadata: { index: i, term: this.ents[i - offset]!.term, confState: confState ?? this.snap.metadata.confState },
    };
    return this.snap;
  }

  /** Drops entries up to and including compactIndex (keep it ≤ the snapshot index). */
  compact(compactIndex: Index): void {
    const offset = this.ents[0]!.index;
    if (compactIndex <= offset) throw new ErrCompacted();
    if (compactIndex > this.lastIndex()) {
      throw new RaftPanic(`compact ${compactIndex} is out of bound lastindex(${this.lastIndex()})`);
    }
    const i = compactIndex - offset;
    const kept = this.ents.slice(i + 1);
    kept.unshift(dummyEntry(this.ents[i]!.index, this.ents[i]!.term));
    this.ents = kept;
  }

  /** Appends persisted entries; an entry at index i replaces every entry ≥ i. */
  append(entries: readonly Entry[]): void {
    if (entries.length === 0) return;
    const first = this.firstIndex();
    const last = entries[0]!.index + entries.length - 1;
    if (last < first) return; // all already compacted
    let from = 0;
    if (first > entries[0]!.index) from = first - entries[0]!.index;
    const offset = entries[from]!.index - this.ents[0]!.index;
    if (this.ents.length < offset) {
      throw new RaftPanic(`missing log entry [last: ${this.lastIndex()}, append at: ${entries[from]!.index}]`);
    }
    this.ents.length = offset; // truncate any conflicting suffix
    for (let k = from; k < entries.length; k++) this.ents.push(entries[k]!);
  }
}

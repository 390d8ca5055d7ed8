// One key's history: the revisions that wrote it, grouped into generations
// (etcd mvcc/key_index.go). A generation runs from a creation to a deletion;
// the deletion (tombstone) is the generation's last revision, and a new empty
// generation follows it. Example, for key "foo":
//
//   put foo@2, put foo@3, delete foo@4, put foo@5
//   generations: [{2.0, 3.0, 4.0(t)}, {5.0}]
//
//   compact(4): keeps per generation the newest revision ≤ 4 unless it is a
//   tombstone, so the first generation disappears entirely: [{5.0}]
//   compact(3) instead: [{3.0, 4.0(t)}, {5.0}]
//
// Unlike etcd, which keeps only revision numbers here and the values in
// bbolt, each revision is a RevisionRecord carrying its value: the records are
// shared with the store's revision-ordered log, so nothing is stored twice.

import type { LeaseId, Revision } from './types';

/** One write of one key: the in-memory equivalent of a row of etcd's "key" bucket. */
export interface RevisionRecord {
  readonly index: KeyIndex;
  readonly main: Revision;
  readonly sub: number;
  /** Create revision of the key's generation; 0 for a tombstone. */
  readonly create: Revision;
  /** Modifications since creation (1 on create); 0 marks a tombstone. */
  readonly version: number;
  readonly value: Uint8Array;
  readonly lease: LeaseId;
  /** Set by compaction on the records it keeps at or below the compacted revision. */
  keptAt: Revision;
}

export function isTombstone(r: RevisionRecord): boolean {
  return r.version === 0;
}

export class KeyIndex {
  /** Never empty; the last generation is the open one (empty after a delete). */
  generations: RevisionRecord[][] = [[]];

  constructor(
    readonly key: string,
    readonly bytes: Uint8Array,
  ) {}

  /** True when nothing is left (every generation compacted away). */
  isEmpty(): boolean {
    return this.generations.length === 1 && this.generations[0]!.length === 0;
  }

  /** The live (non-deleted) record at the newest revision, if any. */
  latest(): RevisionRecord | undefined {
    const g = this.generations[this.generations.length - 1]!;
    return g.length > 0 ? g[g.length - 1] : undefined;
  }

  /** Appends a put (the record must be newer than every record here). */
  appendPut(r: RevisionRecord): void {
    this.generations[this.generations.length - 1]!.push(r);
  }

  /** Appends a tombstone and opens a new generation. The key must be live. */
  appendTombstone(r: RevisionRecord): void {
    this.generations[this.generations.length - 1]!.push(r);
    this.generations.push([]);
  }

  /**
   * The record visible at `atRev`: the newest one with main ≤ atRev in the
   * generation alive at atRev (etcd keyIndex.get/findGeneration). Undefined
   * when the key did not exist, or was deleted, at atRev.
   */
  get(atRev: Revision): RevisionRecord | undefined {
    const gens = this.generations;
    const last = gens.length - 1;
    for (let gi = last; gi >= 0; gi--) {
      const g = gens[gi]!;
      if (g.length === 0) continue;
      // A closed generation whose tombstone is ≤ atRev: the key was deleted at atRev.
      if (gi !== last && g[g.length - 1]!.main <= atRev) return undefined;
      if (g[0]!.main <= atRev) return g[newestAtOrBelow(g, atRev)];
    }
    return undefined;
  }

  /**
   * Drops what compaction at `atRev` makes unreachable (etcd keyIndex.compact)
   * and marks the one record ≤ atRev it keeps with keptAt = atRev. The caller
   * removes the key from the tree when isEmpty() afterwards.
   */
  compact(atRev: Revision): void {
    const { genIdx, revIdx } = this.findCompactionPoint(atRev);
    let gi = genIdx;
    const g = this.generations[gi]!;
    if (g.length > 0) {
      if (revIdx !== -1) {
        this.generations[gi] = g.slice(revIdx);
        g[revIdx]!.keptAt = atRev;
      }
      const kept = this.generations[gi]!;
      // A generation reduced to its tombstone is gone.
      if (kept.length === 1 && gi !== this.generations.length - 1) {
        kept[0]!.keptAt = 0;
        gi++;
      }
    }
    if (gi > 0) this.generations = this.generations.slice(gi);
  }

  /**
   * The record compaction at atRev would keep (etcd keyIndex.keep): the newest
   * record ≤ atRev of the generation alive at atRev, unless it is a tombstone.
   */
  keep(atRev: Revision): RevisionRecord | undefined {
    if (this.isEmpty()) return undefined;
    const { genIdx, revIdx } = this.findCompactionPoint(atRev);
    if (revIdx === -1) return undefined;
    const g = this.generations[genIdx]!;
    if (revIdx === g.length - 1 && genIdx !== this.generations.length - 1) return undefined;
    return g[revIdx];
  }

  /** etcd doCompact: first generation whose tombstone is > atRev (or the last), and the newest record ≤ atRev in it (-1 if none). */
  private findCompactionPoint(atRev: Revision): { genIdx: number; revIdx: number } {
    let genIdx = 0;
    while (genIdx < this.generations.length - 1) {
      const g = this.generations[genIdx]!;
      if (g[g.length - 1]!.main > atRev) break;
      genIdx++;
    }
    const g = this.generations[genIdx]!;
    const revIdx = g.length > 0 && g[0]!.main <= atRev ? newestAtOrBelow(g, atRev) : -1;
    return { genIdx, revIdx };
  }
}

/** Index of the last record with main ≤ atRev; g[0].main ≤ atRev must hold. */
function newestAtOrBelow(g: RevisionRecord[], atRev: Revision): number {
  let lo = 0;
  let hi = g.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (g[mid]!.main <= atRev) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

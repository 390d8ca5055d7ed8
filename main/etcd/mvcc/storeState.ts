// The store's whole state, shared by the transaction, compaction, hashing and
// snapshot modules: the key tree, the revision-ordered log of every retained
// record (etcd's "key" bucket, in bucket order), the revision counters and the
// running byte counts behind dbSize.

import { Errors } from '../errors';
import { isTombstone, type KeyIndex, type RevisionRecord } from './keyIndex';
import { KeyTree } from './keyTree';
import type { RangeEnd } from './keyBytes';
import { recordSize } from './kvCodec';
import type { KeyValue, LeaseId, Revision } from './types';

/**
 * How the store tells the lessor which keys a lease holds (etcd's
 * lease.Lessor Attach/Detach/Lookup, called from inside the write txn).
 */
export interface LeaseHooks {
  /** Put with a lease that does not exist fails with Errors.leaseNotFound(). */
  exists(id: LeaseId): boolean;
  attach(id: LeaseId, key: Uint8Array): void;
  detach(id: LeaseId, key: Uint8Array): void;
}

export const EMPTY = new Uint8Array(0);

export interface RangeKeysOptions {
  limit: number;
  /** 0: the reading txn's revision. */
  rev: Revision;
  countOnly: boolean;
}

export interface RangeKeysResult {
  records: RevisionRecord[];
  /** Keys in the range at the read revision, regardless of limit. */
  count: number;
  /** The reading txn's revision (etcd returns curRev, not the requested one). */
  rev: Revision;
}

export class StoreState {
  readonly tree = new KeyTree();
  /** Every retained record in (main, sub) order. */
  log: RevisionRecord[] = [];
  /** The newest revision (etcd currentRev); a fresh store is at 1. */
  currentRev: Revision = 1;
  /** The last compacted revision (etcd compactMainRev); -1 when never compacted. */
  compactMainRev: Revision = -1;
  /** Stored bytes of all records in the log. */
  totalBytes = 0;
  /** Stored bytes of each live key's newest record. */
  liveBytes = 0;
  leases?: LeaseHooks;

  /**
   * Reads keys at a revision as a txn whose own revision is `curRev` sees them
   * (etcd storeTxnRead.rangeKeys): future, then compacted checks; `count`
   * covers the whole range, `records` at most `limit` (0 = all) of it.
   */
  rangeKeys(key: string, end: RangeEnd, curRev: Revision, opts: RangeKeysOptions): RangeKeysResult {
    let rev = opts.rev;
    if (rev > curRev) throw Errors.futureRev();
    if (rev <= 0) rev = curRev;
    if (rev < this.compactMainRev) throw Errors.compacted();
    const records: RevisionRecord[] = [];
    const limit = opts.countOnly ? 0 : opts.limit > 0 ? opts.limit : Infinity;
    let count = 0;
    this.tree.visit(key, end, (ki) => {
      const r = ki.get(rev);
      if (r === undefined) return;
      count++;
      if (records.length < limit) records.push(r);
    });
    return { records, count, rev: curRev };
  }

  /** Adds a record to the log and the byte counts (its key index already holds it). */
  appendRecord(r: RevisionRecord, previousLive: RevisionRecord | undefined): void {
    this.log.push(r);
    const size = recordSize(r);
    this.totalBytes += size;
    if (previousLive !== undefined) this.liveBytes -= recordSize(previousLive);
    if (!isTombstone(r)) this.liveBytes += size;
  }

  /**
   * Compaction (etcd store.compact + treeIndex.Compact + the backend sweep,
   * done at once): per key, keep the newest record ≤ rev unless it is a
   * tombstone, and everything newer.
   */
  compact(rev: Revision): void {
    if (rev <= this.compactMainRev) throw Errors.compacted();
    if (rev > this.currentRev) throw Errors.futureRev();
    this.compactMainRev = rev;
    const emptied: KeyIndex[] = [];
    this.tree.forEach((ki) => {
      ki.compact(rev);
      if (ki.isEmpty()) emptied.push(ki);
    });
    for (const ki of emptied) this.tree.delete(ki.key);
    const log = this.log;
    let w = 0;
    for (let i = 0; i < log.length; i++) {
      const r = log[i]!;
      if (r.main > rev || r.keptAt === rev) log[w++] = r;
      else this.totalBytes -= recordSize(r);
    }
    log.length = w;
  }
}

/** The mvccpb.KeyValue a record stands for (a tombstone: key and mod revision only). */
export function toKeyValue(r: RevisionRecord): KeyValue {
  return {
    key: r.index.bytes,
    createRevision: r.create,
    modRevision: r.main,
    version: r.version,
    value: r.value,
    lease: r.lease,
  };
}

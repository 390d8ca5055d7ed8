// The MVCC key-value store a member applies committed Raft entries to (etcd
// mvcc.store + etcdserver applierV3backend). Deterministic: the same requests
// in the same order give the same state, revisions and hash on every member.
//
// Revisions: a new store is at revision 1 (etcd currentRev 1) and has never
// been compacted (compactRevision -1, etcd's compactMainRev), so the first
// write is revision 2. Each write request that changes something advances the
// revision by one; its changes carry sub-revisions 0, 1, 2… A delete of
// nothing, a read-only txn or a txn whose deletes found nothing does not.
//
// Reads: every result's `revision` is the store's revision at the time of the
// read (etcd returns curRev, also for a read at an older revision).

import { applyDeleteRange, applyPut, applyRange } from './applier';
import { hashAll, hashKV, type HashKVResult } from './hashKV';
import { decodeSnapshot, encodeSnapshot } from './snapshotCodec';
import { Errors } from '../errors';
import { StoreState, toKeyValue, type LeaseHooks } from './storeState';
import type { RevisionRecord } from './keyIndex';
import { applyTxn } from './txnApply';
import { WriteTxn } from './writeTxn';
import {
  EventType,
  type DeleteRangeRequest,
  type DeleteRangeResult,
  type LeaseId,
  type MvccEvent,
  type PutRequest,
  type PutResult,
  type RangeRequest,
  type RangeResult,
  type Revision,
  type TxnRequest,
  type TxnResult,
} from './types';

/** The events of one revision, as history replay hands them to watchers. */
export interface RevisionEvents {
  revision: Revision;
  events: MvccEvent[];
}

export class MvccStore {
  /** Called after each write txn that changed something, with the new revision and its events. */
  onEvents?: (revision: Revision, events: MvccEvent[]) => void;

  private s = new StoreState();

  /** Rebuilds a store from snapshot(); throws on a corrupt image. */
  static restore(data: Uint8Array): MvccStore {
    const store = new MvccStore();
    store.s = decodeSnapshot(data);
    return store;
  }

  get currentRevision(): Revision {
    return this.s.currentRev;
  }

  /** The last compacted revision; -1 when never compacted (etcd compactMainRev). */
  get compactRevision(): Revision {
    return this.s.compactMainRev;
  }

  /**
   * The lessor's hooks: lease existence for puts, attach/detach as keys are
   * written and deleted. Without them leases are stored but not checked.
   */
  set leases(hooks: LeaseHooks | undefined) {
    this.s.leases = hooks;
  }

  range(req: RangeRequest): RangeResult {
    return applyRange(new WriteTxn(this.s), req);
  }

  put(req: PutRequest): PutResult {
    if (req.lease !== 0n && this.s.leases !== undefined && !this.s.leases.exists(req.lease)) {
      throw Errors.leaseNotFound();
    }
    return this.write((txn) => applyPut(txn, req));
  }

  deleteRange(req: DeleteRangeRequest): DeleteRangeResult {
    return this.write((txn) => applyDeleteRange(txn, req));
  }

  txn(req: TxnRequest): TxnResult {
    return this.write((txn) => applyTxn(this.s, txn, req));
  }

  /** Errors.compacted() if rev ≤ the compacted revision, Errors.futureRev() if rev > current. */
  compact(rev: Revision): void {
    this.s.compact(rev);
  }

  hash(): number {
    return hashAll(this.s);
  }

  /** etcd HashKV: rev 0 = current; Errors.compacted() if rev ≤ compacted, Errors.futureRev() if rev > current. */
  hashKV(rev: Revision): HashKVResult {
    return hashKV(this.s, rev);
  }

  snapshot(): Uint8Array {
    return encodeSnapshot(this.s);
  }

  /** Every retained record in revision order (etcd's "key" bucket), for writing a backend file; read it before the next write. */
  records(): readonly RevisionRecord[] {
    return this.s.log;
  }

  /** Approximate bytes of all retained revisions (dbSize) and of the live ones (dbSizeInUse). */
  sizes(): { dbSize: number; dbSizeInUse: number } {
    return { dbSize: this.s.totalBytes, dbSizeInUse: this.s.liveBytes };
  }

  /** Number of keys with retained history (live or not yet compacted away). */
  get indexedKeys(): number {
    return this.s.tree.size;
  }

  /** Every live key that holds a lease, for rebuilding the lessor after restore. */
  forEachLeasedKey(visit: (lease: LeaseId, key: Uint8Array) => void): void {
    this.s.tree.forEach((ki) => {
      const r = ki.latest();
      if (r !== undefined && r.lease !== 0n) visit(r.lease, ki.bytes);
    });
  }

  /**
   * History for watchers: the events of revisions [fromRev, toRev] (toRev 0 =
   * current), at most maxRevisions revisions, oldest first. Errors.compacted()
   * when fromRev < the compacted revision. prevKv is attached when the key
   * existed at revision-1 and that revision is not compacted.
   */
  eventsBetween(fromRev: Revision, toRev: Revision, maxRevisions: number): RevisionEvents[] {
    if (fromRev < this.s.compactMainRev) throw Errors.compacted();
    const end = toRev === 0 ? this.s.currentRev : Math.min(toRev, this.s.currentRev);
    const log = this.s.log;
    const out: RevisionEvents[] = [];
    for (let i = firstAtOrAfter(log, fromRev); i < log.length; i++) {
      const rec = log[i]!;
      if (rec.main > end) break;
      let group = out[out.length - 1];
      if (group === undefined || group.revision !== rec.main) {
        if (out.length >= maxRevisions) break;
        group = { revision: rec.main, events: [] };
        out.push(group);
      }
      const ev: MvccEvent = { type: rec.version === 0 ? EventType.Delete : EventType.Put, kv: toKeyValue(rec) };
      if (rec.main - 1 >= this.s.compactMainRev) {
        const before = rec.index.get(rec.main - 1);
        if (before !== undefined) ev.prevKv = toKeyValue(before);
      }
      group.events.push(ev);
    }
    return out;
  }

  /**
   * Runs one write txn and fires events if it changed anything. Everything
   * that can fail is checked before the first change; should an op still
   * throw after one (only possible for a txn that skipped checkTxnRequest,
   * e.g. ignoreValue on a key deleted earlier in it), the changes made so far
   * are committed as their revision rather than left half-applied, so every
   * member still ends in the same, consistent state.
   */
  private write<T>(body: (txn: WriteTxn) => T): T {
    const txn = new WriteTxn(this.s);
    try {
      return body(txn);
    } finally {
      const listener = this.onEvents;
      const events = txn.end(listener !== undefined);
      if (txn.changes.length > 0 && listener !== undefined) listener(this.s.currentRev, events);
    }
  }
}

function firstAtOrAfter(log: { main: Revision }[], rev: Revision): number {
  let lo = 0;
  let hi = log.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (log[mid]!.main < rev) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}


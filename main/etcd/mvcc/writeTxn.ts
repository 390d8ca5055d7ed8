// One write transaction (etcd storeTxnWrite): every change it makes gets the
// main revision beginRev+1 and the next sub-revision; reads inside it see its
// own earlier changes; end() advances the store's revision only when something
// changed, and reports the changes as events (the one place events fire, as
// etcd's watchableStoreTxnWrite.End does).
//
// There is no rollback: the caller checks everything that can fail before the
// first change, as etcd's applier does (a failure after that is a bug).

import { copyBytes, toKeyString, type RangeEnd } from './keyBytes';
import type { RevisionRecord } from './keyIndex';
import { EMPTY, toKeyValue, type RangeKeysOptions, type RangeKeysResult, type StoreState } from './storeState';
import { EventType, type LeaseId, type MvccEvent, type Revision } from './types';

export class WriteTxn {
  readonly beginRev: Revision;
  readonly changes: RevisionRecord[] = [];

  constructor(private readonly s: StoreState) {
    this.beginRev = s.currentRev;
  }

  /** The revision reads inside this txn see. */
  get readRev(): Revision {
    return this.changes.length > 0 ? this.beginRev + 1 : this.beginRev;
  }

  range(key: string, end: RangeEnd, opts: RangeKeysOptions): RangeKeysResult {
    return this.s.rangeKeys(key, end, this.readRev, opts);
  }

  /** Writes one key; returns the txn's write revision. */
  put(keyBytes: Uint8Array, value: Uint8Array, lease: LeaseId): Revision {
    const rev = this.beginRev + 1;
    const key = toKeyString(keyBytes);
    const ki = this.s.tree.getOrCreate(key, keyBytes.length === 0 ? EMPTY : copyBytes(keyBytes));
    const prev = ki.latest();
    const rec: RevisionRecord = {
      index: ki,
      main: rev,
      sub: this.changes.length,
      create: prev !== undefined ? prev.create : rev,
      version: prev !== undefined ? prev.version + 1 : 1,
      value: value.length === 0 ? EMPTY : copyBytes(value),
      lease,
      keptAt: 0,
    };
    ki.appendPut(rec);
    this.s.appendRecord(rec, prev);
    this.changes.push(rec);
    const leases = this.s.leases;
    if (leases !== undefined) {
      if (prev !== undefined && prev.lease !== 0n) leases.detach(prev.lease, ki.bytes);
      if (lease !== 0n) leases.attach(lease, ki.bytes);
    }
    return rev;
  }

  /** Deletes every live key in the range; the revision is beginRev when nothing changed in the whole txn. */
  deleteRange(key: string, end: RangeEnd): { deleted: number; revision: Revision } {
    const { records } = this.s.rangeKeys(key, end, this.readRev, { limit: 0, rev: 0, countOnly: false });
    for (const live of records) this.tombstone(live);
    const changed = records.length > 0 || this.changes.length > 0;
    return { deleted: records.length, revision: changed ? this.beginRev + 1 : this.beginRev };
  }

  private tombstone(live: RevisionRecord): void {
    const ki = live.index;
    const rec: RevisionRecord = {
      index: ki,
      main: this.beginRev + 1,
      sub: this.changes.length,
      create: 0,
      version: 0,
      value: EMPTY,
      lease: 0n,
      keptAt: 0,
    };
    ki.appendTombstone(rec);
    this.s.appendRecord(rec, live);
    this.changes.push(rec);
    if (this.s.leases !== undefined && live.lease !== 0n) this.s.leases.detach(live.lease, ki.bytes);
  }

  /**
   * Commits: advances the store's revision if anything changed and returns
   * the events (PUT: full kv; DELETE: key + mod revision), each with the key's
   * value before this txn as prevKv when it had one.
   */
  end(wantEvents: boolean): MvccEvent[] {
    if (this.changes.length === 0) return [];
    this.s.currentRev = this.beginRev + 1;
    if (!wantEvents) return [];
    return this.changes.map((rec) => {
      const before = rec.index.get(this.beginRev);
      // toKeyValue of a tombstone is already just key + mod revision.
      const ev: MvccEvent = { type: rec.version === 0 ? EventType.Delete : EventType.Put, kv: toKeyValue(rec) };
      if (before !== undefined) ev.prevKv = toKeyValue(before);
      return ev;
    });
  }
}

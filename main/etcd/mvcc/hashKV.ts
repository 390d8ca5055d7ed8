// Consistency hashes.
//
// hashKV follows etcd 3.4's store.hashByRev byte for byte: CRC-32C seeded with
// the bucket name "key", then, in revision order, every stored revision key and
// marshalled KeyValue with main ≤ rev — except that revisions at or below the
// compacted revision count only if compaction at `rev` would keep them
// (kvindex.Keep). Same history, same number as a real etcd member.
//
// hash() stands in for etcd's Hash (a checksum of the whole bbolt file, which
// we do not have): CRC-32C over every retained record plus both revision
// counters — equal on two members exactly when their stores are equal.

import { Errors } from '../errors';
import { Crc32c } from './crc32c';
import type { RevisionRecord } from './keyIndex';
import { recordSize, writeKeyValue, writeRevisionKey } from './kvCodec';
import type { StoreState } from './storeState';
import type { Revision } from './types';

const KEY_BUCKET = new TextEncoder().encode('key');

export interface HashKVResult {
  hash: number;
  compactRevision: Revision;
  revision: Revision;
}

export function hashKV(s: StoreState, rev: Revision): HashKVResult {
  const compactRev = s.compactMainRev;
  const currentRev = s.currentRev;
  if (rev > 0 && rev <= compactRev) throw Errors.compacted();
  if (rev > 0 && rev > currentRev) throw Errors.futureRev();
  if (rev === 0) rev = currentRev;

  const keep = new Set<RevisionRecord>();
  s.tree.forEach((ki) => {
    const r = ki.keep(rev);
    if (r !== undefined) keep.add(r);
  });

  const h = new Crc32c().update(KEY_BUCKET);
  const scratch = new RecordScratch();
  for (const r of s.log) {
    if (r.main > rev) break;
    // skip revisions that compaction at or below compactRev would drop
    if (r.main <= compactRev && keep.size > 0 && !keep.has(r)) continue;
    scratch.add(h, r);
  }
  return { hash: h.digest(), compactRevision: compactRev, revision: currentRev };
}

export function hashAll(s: StoreState): number {
  const h = new Crc32c().update(KEY_BUCKET);
  const scratch = new RecordScratch();
  for (const r of s.log) scratch.add(h, r);
  const counters = new Uint8Array(16);
  const view = new DataView(counters.buffer);
  view.setBigInt64(0, BigInt(s.currentRev));
  view.setBigInt64(8, BigInt(s.compactMainRev));
  return h.update(counters).digest();
}

/** One reusable buffer for the bytes of each record, so hashing allocates almost nothing. */
class RecordScratch {
  private buf = new Uint8Array(4096);

  add(h: Crc32c, r: RevisionRecord): void {
    const size = recordSize(r);
    if (size > this.buf.length) this.buf = new Uint8Array(size * 2);
    const end = writeKeyValue(r, this.buf, writeRevisionKey(r, this.buf, 0));
    h.update(this.buf.subarray(0, end));
  }
}

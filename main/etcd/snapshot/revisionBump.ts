// etcdutl 3.5's `snapshot restore --bump-revision N --mark-compacted`
// (etcdutl/snapshot/v3_snapshot.go modifyLatestRevision), on the store's
// image (../mvcc/snapshotCodec.ts) instead of bbolt's key bucket.
//
// etcd bumps the latest revision by N (writing an empty marker at main+N, sub
// 0) and records main+N as the scheduled compaction, which the member runs
// when it starts. The effect is what the image gets here directly: the
// current revision is main+N, so the restored cluster's revisions never go
// back below what a client of the old cluster has seen, and the store is
// compacted at main+N, so a watch or a read from any older revision fails
// with "mvcc: required revision has been compacted" — a Kubernetes informer
// gets 410 Gone and relists instead of trusting its cache.

import { decodeSnapshot, encodeSnapshot } from '../mvcc/snapshotCodec';

export interface RevisionBump {
  /** How much to increase the latest revision (etcdutl --bump-revision); 0 = unchanged. */
  bumpRevision: number;
  /** Mark the bumped revision compacted (etcdutl --mark-compacted). */
  markCompacted: boolean;
}

/** etcdutl's check: the two flags go together (its message, which names the flag --revision-bump). */
export function checkRevisionBump(b: RevisionBump): void {
  if (!Number.isSafeInteger(b.bumpRevision) || b.bumpRevision < 0) throw new Error(`invalid --bump-revision ${b.bumpRevision}: a non-negative integer`);
  if ((b.bumpRevision === 0 && b.markCompacted) || (b.bumpRevision > 0 && !b.markCompacted)) {
    throw new Error('--mark-compacted required if --revision-bump > 0');
  }
}

/** The store image (bumpRevision > 0) with its revision bumped and, when asked, compacted at the new revision. Returns the new revision too. */
export function bumpStoreRevision(mvcc: Uint8Array, b: RevisionBump): { mvcc: Uint8Array; revision: number; compactRevision: number } {
  checkRevisionBump(b);
  const s = decodeSnapshot(mvcc);
  s.currentRev += b.bumpRevision;
  // compaction keeps each key's newest record at or below the revision (and
  // drops tombstones): exactly the live keys, at their own mod revisions
  if (b.markCompacted) s.compact(s.currentRev);
  return { mvcc: encodeSnapshot(s), revision: s.currentRev, compactRevision: s.compactMainRev };
}

// What etcd 3.4 keeps in its bbolt backend, bucket by bucket, and how each
// key and value is encoded (read from etcd 3.4's mvcc/kvstore.go,
// mvcc/revision.go, lease/lessor.go, etcdserver/api/membership/store.go,
// etcdserver/api/v3alarm, auth/store.go, and checked against files that
// `etcdctl snapshot save` fetched from /usr/bin/etcd 3.4):
//
//   bucket           key                                   value
//   alarm            marshalled etcdserverpb.AlarmMember   empty
//                    {1 memberID uint64, 2 alarm enum}
//   auth             "authRevision"                        8-byte big-endian uint64 (1 on a new store)
//                    ("authEnabled" [1] only once auth is enabled)
//   authRoles        role name                             authpb.Role (none here)
//   authUsers        user name                             authpb.User (none here)
//   cluster          "clusterVersion"                      "3.4.0" (major.minor.0)
//   key              revision: 8-byte BE main, '_',        marshalled mvccpb.KeyValue; a tombstone's
//                    8-byte BE sub, and 't' for a          holds only the key
//                    tombstone (mvcc/kvCodec.ts)
//   lease            8-byte BE lease id                    leasepb.Lease {1 ID int64, 2 TTL int64}
//   members          member id in hex ("76a46615cc3bf090") JSON of membership.Member:
//                    {"id":<decimal>,"peerURLs":[…],"isLearner":true?,"name":…?,"clientURLs":[…]?}
//   members_removed  member id in hex                      "removed"
//   meta             "consistent_index"                    8-byte BE uint64, the last applied Raft index
//                    "scheduledCompactRev",                a revision key (main, '_', sub 0) of the last
//                    "finishedCompactRev"                  compaction; absent when never compacted
//
// Buckets sort by name in the root bucket, keys by bytes within each bucket.

export const BUCKETS = ['alarm', 'auth', 'authRoles', 'authUsers', 'cluster', 'key', 'lease', 'members', 'members_removed', 'meta'] as const;

export const CONSISTENT_INDEX_KEY = 'consistent_index';
export const SCHEDULED_COMPACT_KEY = 'scheduledCompactRev';
export const FINISHED_COMPACT_KEY = 'finishedCompactRev';
export const AUTH_REVISION_KEY = 'authRevision';
export const CLUSTER_VERSION_KEY = 'clusterVersion';
export const REMOVED_VALUE = 'removed';

/** The members of a backend file (etcd's membership.Member). */
export interface BackendMember {
  id: bigint;
  name: string;
  peerUrls: string[];
  clientUrls: string[];
  isLearner: boolean;
}

export interface BackendLease {
  id: bigint;
  ttl: number;
}

export interface BackendAlarm {
  memberId: bigint;
  /** etcdserverpb.AlarmType: 1 NOSPACE, 2 CORRUPT. */
  alarm: number;
}

export function uint64BE(v: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt.asUintN(64, v));
  return b;
}

/** mvcc revToBytes(revision{main, 0}). */
export function revisionBytes(main: number): Buffer {
  const b = Buffer.alloc(17);
  b.writeBigUInt64BE(BigInt(main), 0);
  b[8] = 0x5f;
  return b;
}

export interface RevisionKey {
  main: number;
  sub: number;
  tombstone: boolean;
}

/** mvcc bytesToRev, plus the tombstone mark. */
export function parseRevisionKey(k: Uint8Array): RevisionKey {
  if ((k.length !== 17 && k.length !== 18) || k[8] !== 0x5f || (k.length === 18 && k[17] !== 0x74)) {
    throw new Error(`key bucket: bad revision key ${Buffer.from(k).toString('hex')}`);
  }
  const b = Buffer.from(k.buffer, k.byteOffset, k.byteLength);
  return { main: Number(b.readBigInt64BE(0)), sub: Number(b.readBigInt64BE(9)), tombstone: k.length === 18 };
}

/** membership.Member as Go's encoding/json writes it (embedded RaftAttributes, then Attributes; omitempty). */
export function encodeMemberJson(m: BackendMember): string {
  let s = `{"id":${m.id.toString()},"peerURLs":${JSON.stringify(m.peerUrls)}`;
  if (m.isLearner) s += ',"isLearner":true';
  if (m.name !== '') s += `,"name":${JSON.stringify(m.name)}`;
  if (m.clientUrls.length > 0) s += `,"clientURLs":${JSON.stringify(m.clientUrls)}`;
  return `${s}}`;
}

export function decodeMemberJson(json: string): BackendMember {
  // the id is a uint64 JSON number: read it as text, JSON.parse would round it
  const id = /"id":\s*(\d+)/.exec(json)?.[1];
  if (id === undefined) throw new Error(`members bucket: no id in ${json}`);
  const o = JSON.parse(json) as { peerURLs?: string[] | null; isLearner?: boolean; name?: string; clientURLs?: string[] | null };
  return { id: BigInt(id), name: o.name ?? '', peerUrls: o.peerURLs ?? [], clientUrls: o.clientURLs ?? [], isLearner: o.isLearner === true };
}

/** The cluster version an etcd 3.4 cluster stores (major.minor.0). */
export const CLUSTER_VERSION = '3.4.0';

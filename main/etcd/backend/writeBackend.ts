// A member's state at one applied index as the bbolt file etcd 3.4 would
// hold for it (the buckets below). planBackend fixes the state at
// once (a copy of the record list; records never change once written) and
// lays out the pages; the key bucket's rows are then written from the
// records straight into the pages, chunk by chunk as the Maintenance.Snapshot
// stream sends them (or into one buffer: writeBackend).
//
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

import { planBolt, type BoltPlan, type BucketSpec, type EntrySource } from '../bbolt/index';
import { keyValueSize, revisionKeySize, writeKeyValue, writeRevisionKey } from '../mvcc/kvCodec';
import type { RevisionRecord } from '../mvcc/keyIndex';
import { WIRE_VARINT, WireWriter } from '../../common/protobufWire';
import {
  AUTH_REVISION_KEY,
  CLUSTER_VERSION,
  CLUSTER_VERSION_KEY,
  CONSISTENT_INDEX_KEY,
  FINISHED_COMPACT_KEY,
  REMOVED_VALUE,
  SCHEDULED_COMPACT_KEY,
  encodeMemberJson,
  revisionBytes,
  uint64BE,
  type BackendAlarm,
  type BackendLease,
  type BackendMember,
} from './layout';

export interface BackendImage {
  consistentIndex: number;
  /** -1 when never compacted. */
  compactRevision: number;
  /** Every retained record in revision order. */
  records: readonly RevisionRecord[];
  leases: readonly BackendLease[];
  members: readonly BackendMember[];
  removed: readonly bigint[];
  alarms: readonly BackendAlarm[];
}

/** The whole file in one buffer. */
export function writeBackend(img: BackendImage): Buffer {
  return planBackend(img).toBuffer();
}

export function planBackend(img: BackendImage): BoltPlan {
  const text = (s: string) => Buffer.from(s, 'utf8');
  const meta: [Buffer, Buffer][] = [[text(CONSISTENT_INDEX_KEY), uint64BE(BigInt(img.consistentIndex))]];
  if (img.compactRevision > 0) {
    meta.push([text(FINISHED_COMPACT_KEY), revisionBytes(img.compactRevision)], [text(SCHEDULED_COMPACT_KEY), revisionBytes(img.compactRevision)]);
  }
  const leases = img.leases.map((l): [Buffer, Buffer] => [
    uint64BE(l.id),
    Buffer.from(new WireWriter().tag(1, WIRE_VARINT).varint(l.id).tag(2, WIRE_VARINT).varint(l.ttl).finish()),
  ]);
  const alarms = img.alarms.map((a): [Buffer, Buffer] => {
    const w = new WireWriter();
    if (a.memberId !== 0n) w.tag(1, WIRE_VARINT).varint(a.memberId);
    if (a.alarm !== 0) w.tag(2, WIRE_VARINT).varint(a.alarm);
    return [Buffer.from(w.finish()), Buffer.alloc(0)];
  });
  const buckets: [string, BucketSpec][] = [
    ['alarm', plain(alarms)],
    ['auth', plain([[text(AUTH_REVISION_KEY), uint64BE(1n)]])],
    ['authRoles', plain([])],
    ['authUsers', plain([])],
    ['cluster', plain([[text(CLUSTER_VERSION_KEY), text(CLUSTER_VERSION)]])],
    ['key', { source: keySource(img.records.slice()) }],
    ['lease', plain(leases)],
    ['members', plain(img.members.map((m) => [text(m.id.toString(16)), text(encodeMemberJson(m))]))],
    ['members_removed', plain(img.removed.map((id) => [text(id.toString(16)), text(REMOVED_VALUE)]))],
    ['meta', plain(meta)],
  ];
  return planBolt({ entries: buckets.map(([name, spec]) => [text(name), spec]) });
}

function plain(entries: [Buffer, Buffer][]): BucketSpec {
  return { entries: [...entries].sort((a, b) => Buffer.compare(a[0], b[0])) };
}

function keySource(records: readonly RevisionRecord[]): EntrySource {
  return {
    length: records.length,
    keySize: (i) => revisionKeySize(records[i]!),
    valueSize: (i) => keyValueSize(records[i]!),
    writeKey: (i, out, pos) => void writeRevisionKey(records[i]!, out, pos),
    writeValue: (i, out, pos) => void writeKeyValue(records[i]!, out, pos),
  };
}

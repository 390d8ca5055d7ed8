// A member's state at one applied index as the bbolt file etcd 3.4 would
// hold for it (the buckets in ./layout.ts), written in one pass: the key
// bucket's rows go from the store's records straight into the pages. This is
// what the Maintenance.Snapshot stream sends.

import { writeBolt, type BucketSpec, type EntrySource } from '../bbolt/index';
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

export function writeBackend(img: BackendImage): Buffer {
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
    ['key', { source: keySource(img.records) }],
    ['lease', plain(leases)],
    ['members', plain(img.members.map((m) => [text(m.id.toString(16)), text(encodeMemberJson(m))]))],
    ['members_removed', plain(img.removed.map((id) => [text(id.toString(16)), text(REMOVED_VALUE)]))],
    ['meta', plain(meta)],
  ];
  let bytes = 0;
  for (const r of img.records) bytes += 16 + revisionKeySize(r) + keyValueSize(r);
  return writeBolt(
    { entries: buckets.map(([name, spec]) => [text(name), spec]) },
    // leaves waste at most an eighth of a page, branches add a few more
    { sizeHint: Math.ceil(bytes * 1.15) + 64 * 4096 },
  );
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

// Reads etcd's state out of a bbolt backend file (ours or one etcd 3.4
// wrote): the key bucket's rows decoded, the compaction and consistent index
// from meta, leases, members and alarms. The buckets are in ./layout.ts.

import type { BoltBucket, BoltDb } from '../bbolt/index';
import type { BackendRecord } from '../mvcc/storeFromRecords';
import { WIRE_VARINT, WireReader } from '../../common/protobufWire';
import {
  CONSISTENT_INDEX_KEY,
  FINISHED_COMPACT_KEY,
  SCHEDULED_COMPACT_KEY,
  decodeMemberJson,
  parseRevisionKey,
  type BackendAlarm,
  type BackendLease,
  type BackendMember,
} from './layout';

export interface BackendContents {
  consistentIndex: number;
  /** finishedCompactRev; -1 when never compacted. */
  compactRevision: number;
  /** scheduledCompactRev; -1 when absent. */
  scheduledCompactRevision: number;
  /** Main revision of the last row of the key bucket (etcdctl snapshot status REVISION); 0 when empty. */
  lastRevision: number;
  records: BackendRecord[];
  leases: BackendLease[];
  members: BackendMember[];
  removed: bigint[];
  alarms: BackendAlarm[];
}

export function readBackend(db: BoltDb): BackendContents {
  const key = db.root.bucket('key');
  if (key === undefined) throw new Error('snapshot file: no "key" bucket (not an etcd backend)');
  const records: BackendRecord[] = [];
  key.forEach((e) => records.push(decodeRow(e.key, e.value)));
  const meta = new Map<string, Buffer>();
  db.root.bucket('meta')?.forEach((e) => meta.set(e.key.toString('latin1'), e.value));
  const revOf = (k: string) => {
    const v = meta.get(k);
    return v === undefined ? -1 : parseRevisionKey(v).main;
  };
  const ci = meta.get(CONSISTENT_INDEX_KEY);
  return {
    consistentIndex: ci !== undefined && ci.length === 8 ? Number(ci.readBigUInt64BE(0)) : 0,
    compactRevision: revOf(FINISHED_COMPACT_KEY),
    scheduledCompactRevision: revOf(SCHEDULED_COMPACT_KEY),
    lastRevision: records.length > 0 ? records[records.length - 1]!.main : 0,
    records,
    leases: rows(db.root.bucket('lease'), (_k, v) => decodeLease(v)),
    members: rows(db.root.bucket('members'), (_k, v) => decodeMemberJson(v.toString('utf8'))),
    removed: rows(db.root.bucket('members_removed'), (k) => BigInt(`0x${k.toString('latin1')}`)),
    alarms: rows(db.root.bucket('alarm'), (k) => decodeAlarm(k)),
  };
}

function rows<T>(b: BoltBucket | undefined, fn: (k: Buffer, v: Buffer) => T): T[] {
  const out: T[] = [];
  b?.forEach((e) => out.push(fn(e.key, e.value)));
  return out;
}

/** One key-bucket row: the revision key and its marshalled mvccpb.KeyValue. */
function decodeRow(k: Buffer, v: Buffer): BackendRecord {
  const rev = parseRevisionKey(k);
  const r = new WireReader(v);
  const row: BackendRecord = { key: new Uint8Array(0), main: rev.main, sub: rev.sub, create: 0, version: 0, value: new Uint8Array(0), lease: 0n };
  let modRevision = rev.main;
  while (!r.eof()) {
    const { id, wireType } = r.tag();
    if (id === 1 && wireType === 2) row.key = r.bytes();
    else if (id === 2 && wireType === WIRE_VARINT) row.create = r.number64();
    else if (id === 3 && wireType === WIRE_VARINT) modRevision = r.number64();
    else if (id === 4 && wireType === WIRE_VARINT) row.version = r.number64();
    else if (id === 5 && wireType === 2) row.value = r.bytes();
    else if (id === 6 && wireType === WIRE_VARINT) row.lease = BigInt.asIntN(64, r.varint());
    else r.skip(wireType);
  }
  if (rev.tombstone) row.version = 0;
  else if (row.version === 0 || modRevision !== rev.main) throw new Error(`key bucket: row ${rev.main}_${rev.sub} does not match its value`);
  return row;
}

function decodeLease(v: Buffer): BackendLease {
  const r = new WireReader(v);
  const l: BackendLease = { id: 0n, ttl: 0 };
  while (!r.eof()) {
    const { id, wireType } = r.tag();
    if (id === 1 && wireType === WIRE_VARINT) l.id = BigInt.asIntN(64, r.varint());
    else if (id === 2 && wireType === WIRE_VARINT) l.ttl = r.number64();
    else r.skip(wireType);
  }
  return l;
}

function decodeAlarm(k: Buffer): BackendAlarm {
  const r = new WireReader(k);
  const a: BackendAlarm = { memberId: 0n, alarm: 0 };
  while (!r.eof()) {
    const { id, wireType } = r.tag();
    if (id === 1 && wireType === WIRE_VARINT) a.memberId = r.varint();
    else if (id === 2 && wireType === WIRE_VARINT) a.alarm = r.number64();
    else r.skip(wireType);
  }
  return a;
}

// The bytes inside a Raft snapshot: everything the apply loop owns at one
// applied index, so a member can restart from it (or a lagging follower be
// replaced by it) without replaying the log before it.
//
// Layout: u32 big-endian length of a JSON header, the header
// {consistentIndex, membership, leases?}, then the MVCC store's own snapshot
// bytes. etcd keeps the same things in its bbolt backend (buckets meta,
// members/members_removed, lease, key). `leases` is optional: snapshots
// written before leases existed stay readable (no leases).

import type { EncodedLeases } from '../lease/index';
import type { Index } from '../raft/types';
import type { MembershipSnapshot } from './membership';
import type { AlarmsSnapshot } from './alarms';

export interface SnapshotData {
  consistentIndex: Index;
  membership: MembershipSnapshot;
  mvcc: Uint8Array;
  /** Active alarms (./alarms.ts); absent when none (and in older snapshots). */
  alarms?: AlarmsSnapshot;
  /** The lessor's leases (../lease/leaseCodec.ts); absent in snapshots from before leases. */
  leases?: EncodedLeases;
}

export function encodeSnapshotData(s: SnapshotData): Uint8Array {
  const fields = { consistentIndex: s.consistentIndex, membership: s.membership, ...(s.leases ? { leases: s.leases } : {}), ...(s.alarms?.length ? { alarms: s.alarms } : {}) };
  const header = Buffer.from(JSON.stringify(fields), 'utf8');
  const out = Buffer.allocUnsafe(4 + header.length + s.mvcc.length);
  out.writeUInt32BE(header.length, 0);
  header.copy(out, 4);
  out.set(s.mvcc, 4 + header.length);
  return out;
}

export function decodeSnapshotData(bytes: Uint8Array): SnapshotData {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 4) throw new Error('snapshot data: truncated header');
  const n = buf.readUInt32BE(0);
  if (4 + n > buf.length) throw new Error('snapshot data: truncated header');
  const header = JSON.parse(buf.subarray(4, 4 + n).toString('utf8')) as Omit<SnapshotData, 'mvcc'>;
  const out: SnapshotData = { consistentIndex: header.consistentIndex, membership: header.membership, mvcc: buf.subarray(4 + n) };
  if (header.leases !== undefined) out.leases = header.leases;
  if (header.alarms !== undefined) out.alarms = header.alarms;
  return out;
}

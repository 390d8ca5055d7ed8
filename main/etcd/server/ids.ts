// Member and cluster ids, derived exactly as etcd 3.4 derives them
// (etcdserver/api/membership/member.go computeMemberId, cluster.go genID), so
// that the same flags give the same ids as a real etcd and operators can
// compare `etcdctl member list` output across the two.

import { createHash } from 'node:crypto';
import type { MemberId } from '../raft/types';

function first8BigEndian(digest: Buffer): bigint {
  return digest.readBigUInt64BE(0);
}

/**
 * sha1(sorted peer URLs concatenated + cluster token [+ unix seconds])[0:8].
 * `addedAtUnixSeconds` is set only for members added at runtime (MemberAdd),
 * so that re-adding the same URLs yields a fresh id.
 */
export function computeMemberId(peerUrls: string[], clusterToken: string, addedAtUnixSeconds?: number): MemberId {
  const sorted = [...peerUrls].sort();
  let text = sorted.join('') + clusterToken;
  if (addedAtUnixSeconds !== undefined) text += String(addedAtUnixSeconds);
  return first8BigEndian(createHash('sha1').update(text, 'utf8').digest());
}

/** sha1 of the member ids as 8-byte big-endian values, sorted ascending, [0:8]. */
export function computeClusterId(memberIds: MemberId[]): bigint {
  const sorted = [...memberIds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const buf = Buffer.alloc(8 * sorted.length);
  sorted.forEach((id, i) => buf.writeBigUInt64BE(id, 8 * i));
  return first8BigEndian(createHash('sha1').update(buf).digest());
}

/** etcd prints ids as lower-case hex without padding (types.ID.String). */
export function idToHex(id: bigint): string {
  return id.toString(16);
}

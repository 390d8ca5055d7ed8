// The names and encodings of etcd 3.4's backend buckets, shared by the
// writer and the reader; the table of what each bucket holds is at the top
// of ./writeBackend.ts.

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

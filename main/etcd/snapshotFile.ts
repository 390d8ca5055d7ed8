// Pilothouse's older snapshot file (PHSNAP1): what the Maintenance.Snapshot
// RPC streamed before it sent etcd's bbolt file (backend/). Members no longer
// write it; the offline tools (snapshot/) keep reading it, so that backups
// taken then still restore. The sha256 trailer helpers here serve both formats.
//
// Layout (integers big-endian):
//
//   offset  size  field
//   0       8     magic "PHSNAP1\n"
//   8       4     format version (1)
//   12      4     length L of the state-machine data
//   16      8     MVCC revision at the snapshot
//   24      8     MVCC compacted revision (int64, -1 = never compacted)
//   32      8     keys in the MVCC key index (live or with retained history)
//   40      4     MVCC store hash (MvccStore.hash(), CRC-32C)
//   44      4     reserved (0)
//   48      8     cluster id of the member that produced it
//   56      8     member id of the member that produced it
//   64      8     consistent index (the last applied Raft index)
//   72      440   zero
//   512     L     state-machine data (server/snapshotData.ts: consistent
//                 index, membership, MVCC image; whatever else the member
//                 snapshots travels along)
//   512+L   P     zero padding, so that 512 + L + P is a multiple of 512
//   body    32    sha256 of the body (everything before it)
//
// The body is a multiple of 512 bytes and the sha256 trails it, so the file
// size is ≡ 32 (mod 512): the test etcd's restore uses to tell a file with a
// checksum (as streamed by a member) from a bare database file.

import { createHash } from 'node:crypto';

export const HEADER_BYTES = 512;
export const SHA256_BYTES = 32;
export const FORMAT_VERSION = 1;
const MAGIC = Buffer.from('PHSNAP1\n', 'latin1');

export interface SnapshotHeader {
  revision: number;
  compactRevision: number;
  keyCount: number;
  storeHash: number;
  clusterId: bigint;
  memberId: bigint;
  consistentIndex: number;
}

export interface SnapshotImage extends SnapshotHeader {
  /** The member's state-machine data (StateMachine.snapshotData()). */
  data: Uint8Array;
}

/** Header + data + padding: a multiple of 512 bytes, without the checksum. */
export function encodeSnapshotBody(img: SnapshotImage): Buffer {
  const padded = Math.ceil((HEADER_BYTES + img.data.length) / 512) * 512;
  const out = Buffer.alloc(padded);
  MAGIC.copy(out, 0);
  out.writeUInt32BE(FORMAT_VERSION, 8);
  out.writeUInt32BE(img.data.length, 12);
  out.writeBigUInt64BE(BigInt(img.revision), 16);
  out.writeBigInt64BE(BigInt(img.compactRevision), 24);
  out.writeBigUInt64BE(BigInt(img.keyCount), 32);
  out.writeUInt32BE(img.storeHash >>> 0, 40);
  out.writeBigUInt64BE(img.clusterId, 48);
  out.writeBigUInt64BE(img.memberId, 56);
  out.writeBigUInt64BE(BigInt(img.consistentIndex), 64);
  out.set(img.data, HEADER_BYTES);
  return out;
}

/** The whole file: body then its sha256. */
export function encodeSnapshotFile(img: SnapshotImage): Buffer {
  const body = encodeSnapshotBody(img);
  return Buffer.concat([body, sha256(body)]);
}

export function sha256(b: Uint8Array): Buffer {
  return createHash('sha256').update(b).digest();
}

/** True when the file carries a sha256 trailer (etcd's `size % 512 == sha256.Size`). */
export function hasHashTrailer(size: number): boolean {
  return size % 512 === SHA256_BYTES;
}

/** etcd's message for a trailer that does not match (Go's %v of two []byte). */
export function checksumMismatch(expected: Uint8Array, got: Uint8Array): Error {
  return new Error(`expected sha256 [${[...expected].join(' ')}], got [${[...got].join(' ')}]`);
}

/**
 * Splits a file into body and trailer and checks the sha256; with
 * skipHashCheck the trailer (if any) is dropped unchecked, as etcd does.
 */
export function verifiedBody(file: Uint8Array, skipHashCheck = false): Buffer {
  const buf = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  if (!hasHashTrailer(buf.length)) {
    if (!skipHashCheck) throw new Error('snapshot missing hash but --skip-hash-check=false');
    return buf;
  }
  const body = buf.subarray(0, buf.length - SHA256_BYTES);
  if (skipHashCheck) return body;
  const expected = buf.subarray(buf.length - SHA256_BYTES);
  const got = sha256(body);
  if (!got.equals(expected)) throw checksumMismatch(expected, got);
  return body;
}

/** Reads the header and data of a body (see verifiedBody); throws on a file that is not ours. */
export function decodeSnapshotBody(body: Uint8Array): SnapshotImage {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (buf.length < HEADER_BYTES || !buf.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new Error('snapshot file: not a pilothouse snapshot (bad magic)');
  }
  const version = buf.readUInt32BE(8);
  if (version !== FORMAT_VERSION) throw new Error(`snapshot file: unsupported format version ${version}`);
  const length = buf.readUInt32BE(12);
  if (HEADER_BYTES + length > buf.length) throw new Error('snapshot file: truncated data');
  return {
    revision: Number(buf.readBigUInt64BE(16)),
    compactRevision: Number(buf.readBigInt64BE(24)),
    keyCount: Number(buf.readBigUInt64BE(32)),
    storeHash: buf.readUInt32BE(40),
    clusterId: buf.readBigUInt64BE(48),
    memberId: buf.readBigUInt64BE(56),
    consistentIndex: Number(buf.readBigUInt64BE(64)),
    data: buf.subarray(HEADER_BYTES, HEADER_BYTES + length),
  };
}

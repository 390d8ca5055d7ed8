// The peer service as grpc-js sees it: method paths, the metadata every call
// carries, and pass-through (de)serializers. Bytes go through untouched so
// the codec (raftpbCodec.ts) is the only place that knows the wire format,
// and no proto-loader object mapping sits on the hot path.

import { Metadata, status, type ServiceDefinition } from '@grpc/grpc-js';
import type { MemberId } from '../../raft/types';

export const STREAM_PATH = '/raftpb.Peer/Stream';
export const SNAPSHOT_PATH = '/raftpb.Peer/Snapshot';

export const MD_CLUSTER_ID = 'x-etcd-cluster-id';
export const MD_FROM = 'x-server-from';
export const MD_TO = 'x-raft-to';
/** Which of the sender's streams this is ("message" or "app"); informational. */
export const MD_STREAM_TYPE = 'x-raft-stream-type';

/**
 * Snapshots carry the whole database: allow messages far beyond gRPC's 4 MiB
 * default. It is the connection-wide limit (grpc-js has one per server);
 * Stream messages get the tighter one below.
 */
export const MAX_MESSAGE_BYTES = 512 * 1024 * 1024;

/** A sender keeps adding queued messages to a Stream batch until it holds this much (outboundStream.ts), so a catching-up follower's appends flow in steps. */
export const BATCH_BYTES_SOFT_LIMIT = 8 * 1024 * 1024;

/** Framing of a batch and of its messages beyond their entries' bytes, generously. */
const BATCH_FRAMING_BYTES = 1024 * 1024;

/**
 * The largest Stream message a member sends: a batch goes past the soft
 * limit by at most one message, and the largest message is an append of up
 * to `maxAppendBytes` (raft's max size per message, plus the one entry it
 * always carries, which may be as large as max-request-bytes).
 */
export function maxStreamMessageBytes(maxAppendBytes: number): number {
  return BATCH_BYTES_SOFT_LIMIT + maxAppendBytes + BATCH_FRAMING_BYTES;
}

/**
 * What a member answers a removed member's calls with (etcd: rafthttp's 410
 * Gone, errMemberRemoved); the removed member then stops itself.
 */
export const REMOVED_MEMBER_DETAILS = 'the member has been permanently removed from the cluster';

/** StreamAck {} encodes to zero bytes. */
export const EMPTY_ACK = Buffer.alloc(0);

const identity = (b: Buffer): Buffer => b;
const toBuffer = (b: Uint8Array): Buffer =>
  Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);

export const peerServiceDefinition: ServiceDefinition = {
  Stream: {
    path: STREAM_PATH,
    requestStream: true,
    responseStream: false,
    requestSerialize: toBuffer,
    requestDeserialize: identity,
    responseSerialize: toBuffer,
    responseDeserialize: identity,
  },
  Snapshot: {
    path: SNAPSHOT_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: toBuffer,
    requestDeserialize: identity,
    responseSerialize: toBuffer,
    responseDeserialize: identity,
  },
};

export const serializeBytes = toBuffer;
export const deserializeBytes = identity;

/** etcd prints member and cluster ids as bare lowercase hex (types.ID.String). */
export function idToHex(id: bigint): string {
  return id.toString(16);
}

export function hexToId(s: string): bigint | undefined {
  if (!/^[0-9a-fA-F]{1,16}$/.test(s)) return undefined;
  return BigInt('0x' + s);
}

export function outboundMetadata(clusterId: bigint, from: MemberId, to: MemberId, streamType: string): Metadata {
  const md = new Metadata();
  md.set(MD_CLUSTER_ID, idToHex(clusterId));
  md.set(MD_FROM, idToHex(from));
  md.set(MD_TO, idToHex(to));
  md.set(MD_STREAM_TYPE, streamType);
  return md;
}

export interface CallIdentity {
  from: MemberId;
}

export interface CallRejection {
  code: status;
  details: string;
  /** What the receiver logs, as etcd words it. */
  log: string;
}

/**
 * The receiver's checks on a call's metadata, in etcd's order (rafthttp
 * checkClusterCompatibilityFromHeader, then the X-Raft-To check).
 */
export function checkInbound(md: Metadata, clusterId: bigint, localId: MemberId): CallIdentity | CallRejection {
  const first = (key: string): string => String(md.get(key)[0] ?? '');
  const gotCluster = first(MD_CLUSTER_ID);
  const fromHex = first(MD_FROM);
  const from = hexToId(fromHex);
  if (hexToId(gotCluster) !== clusterId) {
    return {
      code: status.FAILED_PRECONDITION,
      details: 'cluster ID mismatch',
      log: `request cluster ID mismatch (local-member-id=${idToHex(localId)}, local-member-cluster-id=${idToHex(clusterId)}, local-member-server-version=3.4.0, remote-peer-server-name=${fromHex}, remote-peer-cluster-id=${gotCluster})`,
    };
  }
  if (from === undefined) {
    return { code: status.INVALID_ARGUMENT, details: 'invalid from', log: `failed to parse from ${JSON.stringify(fromHex)} into ID` };
  }
  const toHex = first(MD_TO);
  if (hexToId(toHex) !== localId) {
    return {
      code: status.FAILED_PRECONDITION,
      details: 'to field mismatch',
      log: `rejected stream from remote peer because it sent to a different member (local-member-id=${idToHex(localId)}, remote-peer-id=${fromHex}, raft-to=${toHex})`,
    };
  }
  return { from };
}

export function isRejection(x: CallIdentity | CallRejection): x is CallRejection {
  return 'code' in x;
}

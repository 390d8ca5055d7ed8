// Peer.Members: how a member joining an existing cluster learns the cluster
// id and the current members (etcd: GET /members on a peer URL, answered by
// every member with its cluster's members as JSON and X-Etcd-Cluster-ID).
// The joiner knows no cluster id yet, so the call carries no metadata and
// none is checked. The answer is MembersResponse (raftpb.proto) whose one
// field holds JSON, the same shape etcd's /members gives:
//   {"clusterId":"<hex>","members":[{"id":"<hex>","name":...,"peerURLs":[...],
//    "clientURLs":[...],"isLearner":false}]}

import { Client, Metadata, status, type sendUnaryData, type ServerUnaryCall, type ServiceError } from '@grpc/grpc-js';
import type { MemberId } from '../../raft/types';
import { deserializeBytes, serializeBytes } from './peerProtocol';
import { channelFor, parsePeerUrl, type PeerTlsOptions } from './peerUrls';

export const MEMBERS_PATH = '/raftpb.Peer/Members';

export interface ClusterMember {
  id: MemberId;
  name: string;
  peerUrls: string[];
  clientUrls: string[];
  isLearner: boolean;
}

export interface ClusterView {
  clusterId: bigint;
  members: ClusterMember[];
}

export const membersMethod = {
  path: MEMBERS_PATH,
  requestStream: false,
  responseStream: false,
  requestSerialize: serializeBytes,
  requestDeserialize: deserializeBytes,
  responseSerialize: serializeBytes,
  responseDeserialize: deserializeBytes,
} as const;

/** MembersResponse{json = 1}: one length-delimited field. */
function wrapJson(json: Buffer): Buffer {
  const len: number[] = [];
  for (let n = json.length; ; n >>>= 7) {
    if (n < 0x80) {
      len.push(n);
      break;
    }
    len.push((n & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from([0x0a, ...len]), json]);
}

function unwrapJson(b: Buffer): Buffer {
  if (b.length === 0) throw new Error('empty MembersResponse');
  if (b[0] !== 0x0a) throw new Error(`MembersResponse: unexpected tag ${b[0]}`);
  let n = 0;
  let i = 1;
  for (let shift = 0; i < b.length && shift < 35; shift += 7) {
    const byte = b[i++]!;
    n += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
  }
  if (i + n > b.length) throw new Error('MembersResponse: truncated');
  return b.subarray(i, i + n);
}

export function encodeClusterView(v: ClusterView): Buffer {
  return wrapJson(Buffer.from(
    JSON.stringify({
      clusterId: v.clusterId.toString(16),
      members: v.members.map((m) => ({
        id: m.id.toString(16),
        name: m.name,
        peerURLs: m.peerUrls,
        clientURLs: m.clientUrls,
        isLearner: m.isLearner,
      })),
    }),
    'utf8',
  ));
}

export function decodeClusterView(b: Uint8Array): ClusterView {
  const o = JSON.parse(unwrapJson(Buffer.from(b)).toString('utf8')) as {
    clusterId: string;
    members: { id: string; name: string; peerURLs: string[]; clientURLs: string[]; isLearner: boolean }[];
  };
  return {
    clusterId: BigInt('0x' + o.clusterId),
    members: o.members.map((m) => ({
      id: BigInt('0x' + m.id),
      name: m.name,
      peerUrls: m.peerURLs,
      clientUrls: m.clientURLs,
      isLearner: m.isLearner,
    })),
  };
}

/** The server side: answers with what `view` returns now. */
export function membersHandler(view: () => ClusterView) {
  return (_call: ServerUnaryCall<Buffer, Buffer>, cb: sendUnaryData<Buffer>): void => {
    try {
      cb(null, encodeClusterView(view()));
    } catch (e) {
      cb({ code: status.INTERNAL, details: (e as Error).message });
    }
  };
}

/** Asks one peer URL for its cluster (etcd's getClusterFromRemotePeers, one URL). */
export function fetchClusterView(url: string, timeoutMs: number, tls?: PeerTlsOptions): Promise<ClusterView> {
  const addr = parsePeerUrl(url);
  const ch = channelFor(addr, tls);
  const client = new Client(addr.target, ch.credentials, ch.options);
  return new Promise<ClusterView>((resolve, reject) => {
    client.makeUnaryRequest<Uint8Array, Buffer>(
      MEMBERS_PATH,
      serializeBytes,
      deserializeBytes,
      new Uint8Array(0),
      new Metadata(),
      { deadline: Date.now() + timeoutMs },
      (err: ServiceError | null, res?: Buffer) => {
        if (err) reject(new Error(`could not retrieve cluster information from ${url}: ${err.details || status[err.code]}`));
        else resolve(decodeClusterView(res!));
      },
    );
  }).finally(() => client.close());
}

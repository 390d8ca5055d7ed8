// etcdserverpb.Cluster (etcd v3rpc/member.go). MemberList is answered from
// the member's local view of membership, with no Raft round (3.4 has no
// linearizable member list). MemberAdd/Remove/Update/Promote go through Raft
// as ConfChanges (server/membershipChanges.ts) and answer with the member
// list as applied. A promote must be decided by the leader: a follower
// forwards it to the leader's client URL (etcd forwards over the peer URL's
// /members/promote; the answer is the same) and retries until the request
// timeout while the leader is unreachable.

import { makeClientConstructor, type ChannelCredentials, type ChannelOptions, Metadata, type Client, type ServiceError, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { clientUrlChannel } from '../../common/tlsChannel';
import { EtcdError, Errors, GrpcCode, type GrpcCodeValue } from '../errors';
import type { EtcdServer, MemberInfo } from './etcdServer';
import { headerToWire, memberToWire } from './convert';
import { etcdService } from '../../common/etcdProtos';
import { unaryFor, type ServiceContext } from './unaryCall';
import type { WireLong, WireMember, WireMemberListResponse, WireResponseHeader } from './wire';

interface WireMemberAddRequest {
  peerURLs: string[];
  isLearner: boolean;
}
interface WireMemberIdRequest {
  ID: WireLong;
}
interface WireMemberUpdateRequest {
  ID: WireLong;
  peerURLs: string[];
}
interface WireMemberAddResponse {
  header: WireResponseHeader;
  member: WireMember;
  members: WireMember[];
}
interface WireMembersResponse {
  header: WireResponseHeader;
  members: WireMember[];
}

type MembershipServer = Required<Pick<EtcdServer, 'memberAdd' | 'memberRemove' | 'memberUpdate' | 'memberPromote'>> & EtcdServer;

function changesMembership(server: EtcdServer): server is MembershipServer {
  return server.memberAdd !== undefined && server.memberRemove !== undefined && server.memberUpdate !== undefined && server.memberPromote !== undefined;
}

const FORWARD_RETRY_MS = 100;

interface ClusterClient extends Client {
  MemberPromote(
    req: { ID: string },
    md: Metadata,
    options: { deadline: number },
    cb: (err: ServiceError | null, res?: { members: WireMember[] }) => void,
  ): void;
}
let ClusterClientCtor: (new (target: string, creds: ChannelCredentials, options: ChannelOptions) => ClusterClient) | undefined;

/** One promote sent to the leader's client URL; Unavailable/DeadlineExceeded come back as undefined (retry). */
function forwardPromote(url: string, id: bigint, deadline: number, tls: ServiceContext['forwardTls']): Promise<WireMember[] | undefined> {
  // With this member's client TLS, https client URLs are called presenting its certificate (as lease forwarding does).
  const ch = clientUrlChannel(url, tls);
  if (ch === undefined) return Promise.resolve(undefined);
  ClusterClientCtor ??= makeClientConstructor(etcdService('Cluster'), 'Cluster') as unknown as typeof ClusterClientCtor;
  const client = new ClusterClientCtor!(ch.target, ch.credentials, ch.options);
  return new Promise<WireMember[] | undefined>((resolve, reject) => {
    client.MemberPromote({ ID: id.toString() }, new Metadata(), { deadline }, (err, res) => {
      if (!err) resolve(res?.members ?? []);
      else if (err.code === GrpcCode.Unavailable || err.code === GrpcCode.DeadlineExceeded) resolve(undefined);
      else reject(new EtcdError(err.code as GrpcCodeValue, err.details));
    });
  }).finally(() => client.close());
}

export function clusterService(ctx: ServiceContext): UntypedServiceImplementation {
  const { server } = ctx;
  const unary = unaryFor(ctx, 'etcdserverpb.Cluster');
  const list = (members: MemberInfo[]) => members.map(memberToWire);
  const service: UntypedServiceImplementation = {
    MemberList: unary('MemberList', async (): Promise<WireMemberListResponse> => {
      const { header, result } = await server.memberList();
      // etcd's ClusterServer header carries no revision.
      return { header: headerToWire(header, false), members: result.map(memberToWire) };
    }),
  };
  if (!changesMembership(server)) return service;
  const timeoutMs = 5000 + 2 * server.config.electionTimeout;

  service.MemberAdd = unary('MemberAdd', async (w: WireMemberAddRequest): Promise<WireMemberAddResponse> => {
    const { header, result } = await server.memberAdd(w.peerURLs ?? [], w.isLearner ?? false);
    // etcd answers with the new member's id, peer URLs and learner flag only.
    const member = memberToWire({ ...result.member, name: '', clientUrls: [] });
    return { header: headerToWire(header, false), member, members: list(result.members) };
  });
  service.MemberRemove = unary('MemberRemove', async (w: WireMemberIdRequest): Promise<WireMembersResponse> => {
    const { header, result } = await server.memberRemove(BigInt(w.ID));
    return { header: headerToWire(header, false), members: list(result) };
  });
  service.MemberUpdate = unary('MemberUpdate', async (w: WireMemberUpdateRequest): Promise<WireMembersResponse> => {
    const { header, result } = await server.memberUpdate(BigInt(w.ID), w.peerURLs ?? []);
    return { header: headerToWire(header, false), members: list(result) };
  });
  service.MemberPromote = unary('MemberPromote', async (w: WireMemberIdRequest): Promise<WireMembersResponse> => {
    const id = BigInt(w.ID);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const { header, result } = await server.memberPromote(id);
      if ('value' in result) return { header: headerToWire(header, false), members: list(result.value) };
      for (const url of result.forwardTo) {
        const members = await forwardPromote(url, id, deadline, ctx.forwardTls);
        if (members !== undefined) return { header: headerToWire(header, false), members };
      }
      await new Promise((r) => setTimeout(r, FORWARD_RETRY_MS));
    }
    throw Errors.timeout();
  });
  return service;
}

// etcdserverpb.Cluster. MemberList is answered from the member's local view
// of membership, with no Raft round (3.4 has no linearizable member list).
// MemberAdd/Remove/Update/Promote slot in here as the member grows them;
// until then grpc-js answers Unimplemented for them, as for any absent method.

import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { headerToWire, memberToWire } from './convert';
import { unaryFor, type ServiceContext } from './unaryCall';
import type { WireMemberListResponse } from './wire';

export function clusterService(ctx: ServiceContext): UntypedServiceImplementation {
  const { server } = ctx;
  const unary = unaryFor(ctx, 'etcdserverpb.Cluster');
  return {
    MemberList: unary('MemberList', async (): Promise<WireMemberListResponse> => {
      const { header, result } = await server.memberList();
      // etcd's ClusterServer header carries no revision.
      return { header: headerToWire(header, false), members: result.map(memberToWire) };
    }),
  };
}

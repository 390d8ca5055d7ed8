// etcdserverpb.Maintenance. Status is local to the member (etcdctl endpoint
// status, move-leader's leader lookup). Alarm, Defragment, Hash, HashKV,
// Snapshot and MoveLeader slot in here as the member exposes them.

import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { statusToWire } from './convert';
import { unaryFor, type ServiceContext } from './unaryCall';
import type { WireStatusResponse } from './wire';

export function maintenanceService(ctx: ServiceContext): UntypedServiceImplementation {
  const { server } = ctx;
  const unary = unaryFor(ctx, 'etcdserverpb.Maintenance');
  return {
    Status: unary(
      'Status',
      async (): Promise<WireStatusResponse> => {
        const { header, result } = await server.status();
        return statusToWire(header, result);
      },
      () => true, // learners answer Status (etcdctl endpoint status)
    ),
  };
}

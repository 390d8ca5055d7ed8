// etcdserverpb.Maintenance. Status is local to the member (etcdctl endpoint
// status, move-leader's leader lookup). Alarm, Defragment, Hash, HashKV,
// Snapshot and MoveLeader slot in here as the member exposes them.

import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import type { EtcdServer } from '../server/types';
import { statusToWire } from './convert';
import { unary } from './unaryCall';
import type { WireStatusResponse } from './wire';

export function maintenanceService(server: EtcdServer): UntypedServiceImplementation {
  return {
    Status: unary(server, async (): Promise<WireStatusResponse> => {
      const { header, result } = await server.status();
      return statusToWire(header, result);
    }),
  };
}

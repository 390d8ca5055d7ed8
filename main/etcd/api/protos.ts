// Loads etcd's v3 API (resources/proto/etcd/rpc.proto, which imports kv.proto
// and auth.proto) once per process and hands out the gRPC service
// definitions. The load options fix the JS shape of every message (wire.ts).

import { join } from 'node:path';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import { protoDir } from '../../common/resources';

export const ETCD_SERVICES = ['KV', 'Watch', 'Lease', 'Cluster', 'Maintenance', 'Auth'] as const;
export type EtcdServiceName = (typeof ETCD_SERVICES)[number];

let cached: PackageDefinition | undefined;

export function etcdPackageDefinition(): PackageDefinition {
  cached ??= loadSync('rpc.proto', {
    includeDirs: [join(protoDir(), 'etcd')],
    // TTL, ID, peerURLs, dbSize: etcd's names are part of the contract.
    keepCase: true,
    // Member and cluster ids are full 64-bit values; strings keep every bit
    // (a JS number would silently round above 2^53).
    longs: String,
    enums: Number,
    // Every scalar present on decode, so handlers never test for undefined.
    defaults: true,
    // RequestOp.request / Compare.target_union name the member that is set.
    oneofs: true,
  });
  return cached;
}

/** The service definition for `etcdserverpb.<name>`, for grpc.Server.addService. */
export function etcdService(name: EtcdServiceName): ServiceDefinition {
  const def = etcdPackageDefinition()[`etcdserverpb.${name}`];
  // message and enum definitions carry `format`; services are method maps
  if (def === undefined || 'format' in def) {
    throw new Error(`etcdserverpb.${name} missing from rpc.proto`);
  }
  return def as unknown as ServiceDefinition;
}

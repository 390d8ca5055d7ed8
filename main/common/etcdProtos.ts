// Loads etcd's v3 API (resources/proto/etcd/rpc.proto, which imports kv.proto
// and auth.proto) once per process and hands out the gRPC service
// definitions. The load options fix the JS shape of every message (wire.ts).
//
// Responses skip proto-loader's serializer: it copies every response through
// protobufjs' fromObject (a Long object per 64-bit field) before encoding.
// Encoding our plain response objects directly gives the same bytes in about
// 60% of the time, which matters for large ranges (a 1000-key list: 3.6 →
// 2.2 ms). Requests keep proto-loader's decoder, which yields the checked,
// defaulted shape the handlers rely on.

import { join } from 'node:path';
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import { protoDir } from './resources';

export const ETCD_SERVICES = ['KV', 'Watch', 'Lease', 'Cluster', 'Maintenance', 'Auth'] as const;
export type EtcdServiceName = (typeof ETCD_SERVICES)[number];

const ENTRY = 'rpc.proto';
const etcdProtoDir = () => join(protoDir(), 'etcd');

let cachedDefinition: PackageDefinition | undefined;
let cachedRoot: protobuf.Root | undefined;

export function etcdPackageDefinition(): PackageDefinition {
  cachedDefinition ??= loadSync(ENTRY, {
    includeDirs: [etcdProtoDir()],
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
  return cachedDefinition;
}

/** The same protos as protobufjs types, for direct encoding. */
export function etcdRoot(): protobuf.Root {
  if (cachedRoot) return cachedRoot;
  const root = new protobuf.Root();
  const dir = etcdProtoDir();
  // imports are by bare file name ("kv.proto"), all in one directory
  root.resolvePath = (_origin, target) => join(dir, target.slice(target.lastIndexOf('/') + 1));
  root.loadSync(ENTRY, { keepCase: true });
  return (cachedRoot = root);
}

/**
 * A response serializer that encodes the handler's plain object as is:
 * numbers, decimal strings or {low, high, unsigned} for 64-bit fields, bytes
 * as Uint8Array, enums as numbers, absent fields left off the wire.
 */
function directSerializer(typeName: string): (value: object) => Buffer {
  const type = etcdRoot().lookupType(typeName);
  return (value) => type.encode(value as protobuf.Message).finish() as Buffer;
}

const services = new Map<EtcdServiceName, ServiceDefinition>();

/** The service definition for `etcdserverpb.<name>`, for grpc.Server.addService. */
export function etcdService(name: EtcdServiceName): ServiceDefinition {
  const cached = services.get(name);
  if (cached) return cached;
  const def = etcdPackageDefinition()[`etcdserverpb.${name}`];
  // message and enum definitions carry `format`; services are method maps
  if (def === undefined || 'format' in def) throw new Error(`etcdserverpb.${name} missing from rpc.proto`);
  const methods: Record<string, MethodDefinition<object, object>> = {};
  for (const [method, m] of Object.entries(def as unknown as Record<string, MethodDefinition<object, object>>)) {
    const responseType = (m as unknown as { responseType: { type: { name: string } } }).responseType.type.name;
    methods[method] = { ...m, responseSerialize: directSerializer(`etcdserverpb.${responseType}`) };
  }
  const service = methods as ServiceDefinition;
  services.set(name, service);
  return service;
}

let healthDefinition: ServiceDefinition | undefined;

/** grpc.health.v1.Health, which etcd also registers on the client port. */
export function grpcHealthService(): ServiceDefinition {
  healthDefinition ??= loadSync('health.proto', { includeDirs: [etcdProtoDir()], keepCase: true, enums: Number, defaults: true })[
    'grpc.health.v1.Health'
  ] as unknown as ServiceDefinition;
  return healthDefinition;
}

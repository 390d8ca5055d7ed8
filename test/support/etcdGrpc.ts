// etcd's v3 API as a stock gRPC client sees it: @grpc/proto-loader over the
// shipped .proto files, independent of the definitions the members serve.

import { join } from 'node:path';
import { loadPackageDefinition } from '@grpc/grpc-js';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import { protoDir } from '../../main/common/resources';

let definition: PackageDefinition | undefined;

/** proto-loader's definition of rpc.proto, with the options etcd clients in Node use. */
export function etcdGrpcDefinition(): PackageDefinition {
  definition ??= loadSync('rpc.proto', {
    includeDirs: [join(protoDir(), 'etcd')],
    keepCase: true,
    longs: String,
    enums: Number,
    defaults: true,
    oneofs: true,
  });
  return definition;
}

/** `etcdserverpb` client constructors (Watch, KV, …). */
export function etcdGrpcPackage(): any {
  return (loadPackageDefinition(etcdGrpcDefinition()) as any).etcdserverpb;
}

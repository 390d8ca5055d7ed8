// The one error table between the member and gRPC (etcd's v3rpc/util.go
// togRPCError): an EtcdError keeps its code and its exact message, because
// clientv3, etcdctl and the etcd3 npm client recognise errors by that text;
// anything else becomes Unknown with its raw text, as unmapped Go errors do.

import { Metadata, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { toEtcdError } from '../errors';

/** What a grpc-js handler passes to its callback or emits on a stream. */
export type GrpcFailure = Partial<StatusObject> & Pick<ServiceError, 'code' | 'details' | 'message'>;

export function toGrpcFailure(err: unknown): GrpcFailure {
  const e = toEtcdError(err);
  return { code: e.code, details: e.message, message: e.message, metadata: new Metadata() };
}

// The shape every unary etcd handler shares (etcd's v3rpc interceptor plus a
// thin handler): refuse when the client required a leader and there is none,
// then run the handler, then map a failure through the one error table.
// Handlers themselves are validate → delegate → convert.

import type { handleUnaryCall, Metadata } from '@grpc/grpc-js';
import { Errors } from '../errors';
import type { EtcdServer } from '../server/types';
import { toGrpcFailure } from './grpcStatus';

/**
 * clientv3.WithRequireLeader sets metadata `hasleader: true` (etcdctl watch,
 * lease keep-alive, the API server's watches); etcd then answers "no leader"
 * at once instead of letting the call hang on a leaderless member.
 */
export function requiresLeader(md: Metadata): boolean {
  const v = md.get('hasleader');
  return v.length > 0 && v[0] === 'true';
}

export function unary<Req, Res>(
  server: EtcdServer,
  handle: (req: Req) => Promise<Res>,
): handleUnaryCall<Req, Res> {
  return (call, callback) => {
    if (requiresLeader(call.metadata) && !server.hasLeader()) {
      callback(toGrpcFailure(Errors.noLeader()));
      return;
    }
    let pending: Promise<Res>;
    try {
      pending = handle(call.request);
    } catch (err) {
      callback(toGrpcFailure(err));
      return;
    }
    pending.then(
      (res) => callback(null, res),
      (err: unknown) => callback(toGrpcFailure(err)),
    );
  };
}

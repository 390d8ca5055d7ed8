// The shape every unary etcd handler shares — etcd's v3rpc unary interceptor
// plus a thin handler: count the call, refuse on a learner unless the RPC is
// one learners serve, refuse when the client required a leader and there is
// none, run the handler, map a failure through the one error table, count
// the outcome. Handlers themselves are validate → delegate → convert.

import type { handleUnaryCall } from '@grpc/grpc-js';
import { Errors, GrpcCode } from '../errors';
import type { EtcdServer } from './etcdServer';
import type { GrpcMetrics } from './grpcMetrics';
import { toGrpcFailure } from './grpcStatus';
import { requiresLeader, type LeaderMonitor } from './leaderMonitor';
import type { ClientTlsOptions } from './tlsTermination';

/** What every service module gets. */
export interface ServiceContext {
  server: EtcdServer;
  metrics: GrpcMetrics;
  /** Cuts leader-bound streams after the leader is lost (leaderMonitor.ts). */
  leaders: LeaderMonitor;
  /**
   * The client port's TLS (--cert-file/--key-file/--trusted-ca-file), also
   * what this member presents when it calls another member's https client
   * URL (lease forwarding), as etcd's own gateway dials with it.
   */
  forwardTls?: ClientTlsOptions;
}

/** Which requests a learner answers (etcd's isRPCSupportedForLearner). */
export type LearnerPolicy<Req> = (req: Req) => boolean;
const NOT_FOR_LEARNERS = () => false;

export type UnaryFactory = <Req, Res>(
  method: string,
  handle: (req: Req) => Promise<Res>,
  servesLearner?: LearnerPolicy<Req>,
) => handleUnaryCall<Req, Res>;

/** Binds the shared call shape to one service, e.g. unaryFor(ctx, 'etcdserverpb.KV'). */
export function unaryFor(ctx: ServiceContext, service: string): UnaryFactory {
  const { server, metrics } = ctx;
  return <Req, Res>(method: string, handle: (req: Req) => Promise<Res>, servesLearner: LearnerPolicy<Req> = NOT_FOR_LEARNERS) => {
    const counter = metrics.forMethod(service, method);
    const fail = (err: unknown, callback: (e: ReturnType<typeof toGrpcFailure>) => void) => {
      const failure = toGrpcFailure(err);
      counter.handled(failure.code);
      callback(failure);
    };
    const call: handleUnaryCall<Req, Res> = (call, callback) => {
      counter.started();
      if (server.isLearner?.() === true && !servesLearner(call.request)) {
        return fail(Errors.notSupportedForLearner(), callback);
      }
      if (requiresLeader(call.metadata) && !server.hasLeader()) {
        return fail(Errors.noLeader(), callback);
      }
      let pending: Promise<Res>;
      try {
        pending = handle(call.request);
      } catch (err) {
        return fail(err, callback);
      }
      pending.then(
        (res) => {
          counter.handled(GrpcCode.OK);
          callback(null, res);
        },
        (err: unknown) => fail(err, callback),
      );
    };
    return call;
  };
}

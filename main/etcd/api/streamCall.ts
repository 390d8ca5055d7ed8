// The shape of etcd's bidirectional streams (Watch, LeaseKeepAlive), from
// etcd's v3rpc stream interceptor: learners refuse every stream; a stream
// opened with `hasleader: true` is refused while there is no leader, and is
// ended with "etcdserver: no leader" once the member has been leaderless for
// three election timeouts (monitorLeader, maxNoLeaderCnt = 3), so clients
// re-dial a member that has one instead of waiting on a dead watch.
//
// Streaming services (Watch in watchService.ts, LeaseKeepAlive) register
// through `bidiFor(ctx, service)` exactly as unary methods use `unaryFor`;
// the client server runs one LeaderMonitor (leaderMonitor.ts, ctx.leaders).

import type { handleBidiStreamingCall, ServerDuplexStream } from '@grpc/grpc-js';
import { Errors, GrpcCode } from '../errors';
import { toGrpcFailure } from './grpcStatus';
import { requiresLeader } from './leaderMonitor';
import type { ServiceContext } from './unaryCall';

/** grpc status Canceled, counted when the client goes away. */
const CANCELLED = 1;

/**
 * Runs one stream. `ended` aborts when the stream is cut from outside, with
 * reason 'leader lost' or 'cancelled' (the client went away); the handler
 * stops its work then. The returned promise
 * settles when the handler is done with the stream; a rejection becomes
 * the stream's status through the error table.
 */
export type StreamHandler<Req, Res> = (call: ServerDuplexStream<Req, Res>, ended: AbortSignal) => Promise<void>;

export function bidiFor(ctx: ServiceContext, service: string) {
  const { server, metrics, leaders } = ctx;
  return <Req, Res>(method: string, handle: StreamHandler<Req, Res>): handleBidiStreamingCall<Req, Res> => {
    const counter = metrics.forMethod(service, method, 'bidi_stream');
    return (call) => {
      counter.started();
      let finished = false;
      const finish = (failure?: ReturnType<typeof toGrpcFailure>) => {
        if (finished) return;
        finished = true;
        counter.handled(failure?.code ?? GrpcCode.OK);
        if (failure) call.emit('error', failure);
        else call.end();
      };
      if (server.isLearner?.() === true) return finish(toGrpcFailure(Errors.notSupportedForLearner()));
      const needsLeader = requiresLeader(call.metadata);
      if (needsLeader && !server.hasLeader()) return finish(toGrpcFailure(Errors.noLeader()));

      const ended = new AbortController();
      const unwatch = needsLeader
        ? leaders.watch((failure) => {
            ended.abort('leader lost');
            finish(failure);
          })
        : () => true;
      call.on('cancelled', () => {
        unwatch();
        if (finished) return;
        finished = true; // the client is gone: nothing left to send
        counter.handled(CANCELLED);
        ended.abort('cancelled');
      });
      handle(call, ended.signal).then(
        () => {
          unwatch();
          finish();
        },
        (err: unknown) => {
          unwatch();
          finish(toGrpcFailure(err));
        },
      );
    };
  };
}

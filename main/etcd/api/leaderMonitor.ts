// Leader-bound calls (etcd's v3rpc interceptors, monitorLeader): a call whose
// metadata asks for a leader is refused while there is none, and a
// leader-bound stream is cut once the member has been leaderless for three
// election timeouts. Unary calls (unaryCall.ts) use the first, streams
// (streamCall.ts) both.

import type { Metadata } from '@grpc/grpc-js';
import { Errors } from '../errors';
import type { EtcdServer } from './etcdServer';
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

/** etcd's maxNoLeaderCnt: leaderless election timeouts before leader-bound streams end. */
export const MAX_NO_LEADER_TICKS = 3;

/**
 * Counts leaderless election timeouts and cuts the streams that asked for
 * a leader. One per client server; stop() on close.
 */
export class LeaderMonitor {
  private readonly bound = new Set<(err: ReturnType<typeof toGrpcFailure>) => void>();
  private leaderless = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly server: EtcdServer) {
    // etcd ticks once per election timeout; never spin on a zero or missing value
    const everyMs = Math.max(100, server.config.electionTimeout || 1000);
    this.timer = setInterval(() => this.tick(), everyMs);
    this.timer.unref();
  }

  /** Registers a stream's cut function; returns the unregister. */
  watch(cut: (err: ReturnType<typeof toGrpcFailure>) => void): () => void {
    this.bound.add(cut);
    return () => this.bound.delete(cut);
  }

  /** One election timeout passed (exposed for tests). */
  tick(): void {
    if (this.server.hasLeader()) {
      this.leaderless = 0;
      return;
    }
    if (++this.leaderless < MAX_NO_LEADER_TICKS) return;
    this.leaderless = 0;
    const cuts = [...this.bound];
    this.bound.clear();
    for (const cut of cuts) cut(toGrpcFailure(Errors.noLeader()));
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

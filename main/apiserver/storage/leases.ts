// etcd leases for keys written with a TTL (events: --event-ttl). Granting one
// lease per write would flood etcd, so — like kube's leaseManager — a lease is
// reused for writes with the same TTL during a short window, and granted a
// little longer than asked so that every key on it lives at least its TTL.

import type { EtcdClient } from '../../client/etcd/etcdClient';

/** kube: reuse for 5% of the TTL, at most 60 s. */
const REUSE_FRACTION = 0.05;
const MAX_REUSE_SECONDS = 60;

export class LeaseManager {
  private readonly byTtl = new Map<number, { id: bigint; grantedAt: number; reuseMs: number }>();
  private readonly inflight = new Map<number, Promise<bigint>>();

  constructor(
    private readonly client: EtcdClient,
    private readonly now: () => number = Date.now,
  ) {}

  /** A lease id that keeps a key at least ttlSeconds. */
  async leaseFor(ttlSeconds: number): Promise<bigint> {
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    const held = this.byTtl.get(ttl);
    if (held && this.now() - held.grantedAt < held.reuseMs) return held.id;
    const pending = this.inflight.get(ttl);
    if (pending) return pending;
    const reuseSeconds = Math.min(MAX_REUSE_SECONDS, Math.floor(ttl * REUSE_FRACTION));
    const grant = this.client
      .leaseGrant(ttl + reuseSeconds)
      .then((id) => {
        this.byTtl.set(ttl, { id, grantedAt: this.now(), reuseMs: reuseSeconds * 1000 });
        return id;
      })
      .finally(() => this.inflight.delete(ttl));
    this.inflight.set(ttl, grant);
    return grant;
  }
}

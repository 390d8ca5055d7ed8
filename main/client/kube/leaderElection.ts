// Leader election over a coordination.k8s.io/v1 Lease, as client-go's
// tools/leaderelection with a LeaseLock:
//   - acquire: every retryPeriod (jittered ×1.2) read the Lease; take it if it
//     does not exist, is ours, or its record has not changed for
//     leaseDuration as observed by OUR clock (clocks of two hosts are never
//     compared: a changed record restarts the observation). Taking it from
//     someone else sets acquireTime and leaseTransitions+1. Writes are PUTs
//     with the read resourceVersion, so two candidates cannot both win.
//   - renew: every retryPeriod; if no renewal succeeded for renewDeadline,
//     leadership is lost: onStoppedLeading runs and run() resolves.
//   - releaseOnCancel: on stop, a leader clears holderIdentity (leaseDuration 1 s)
//     so a standby takes over at once.
// Defaults are kube's: leaseDuration 15 s, renewDeadline 10 s, retryPeriod 2 s.

import { setMaxListeners } from 'node:events';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { type Clock, realClock, sleep } from './clock';
import { isNotFound, type RestClient } from './rest';

export interface LeaderElectionConfig {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  releaseOnCancel?: boolean;
  clock?: Clock;
  onStartedLeading(signal: AbortSignal): void;
  onStoppedLeading?(): void;
  /** Called when the observed holder changes (including to us). */
  onNewLeader?(identity: string): void;
  onError?(err: unknown): void;
}

export const LEADER_ELECTION_DEFAULTS = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 } as const;

/** `<hostname>_<uuid>`, as kube's components name themselves. */
export function leaderIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/** metav1.MicroTime: RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}
interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec?: LeaseSpec;
}

export class LeaderElector {
  private readonly clock: Clock;
  private observedRecord = '';
  private observedTime = 0;
  private observedHolder = '';
  private leading = false;
  private current: Lease | undefined;

  constructor(
    private readonly rest: RestClient,
    private readonly cfg: LeaderElectionConfig,
  ) {
    if (cfg.leaseDurationMs <= cfg.renewDeadlineMs) throw new Error('leaseDuration must be greater than renewDeadline');
    if (cfg.renewDeadlineMs <= cfg.retryPeriodMs * 1.2) throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
    this.clock = cfg.clock ?? realClock;
  }

  isLeader(): boolean {
    return this.leading;
  }
  /** The holder we last saw in the Lease. */
  leader(): string {
    return this.observedHolder;
  }

  private get path(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.cfg.namespace)}/leases/${encodeURIComponent(this.cfg.name)}`;
  }

  /** Campaigns until leading, leads until the lease is lost or signal aborts; resolves then. */
  async run(signal: AbortSignal): Promise<void> {
    if (!(await this.acquire(signal))) return;
    const leaderCtl = new AbortController();
    // The leader's whole workload (controllers, informers, watches) stops on this signal.
    setMaxListeners(1000, leaderCtl.signal);
    const stopLeading = (): void => leaderCtl.abort();
    signal.addEventListener('abort', stopLeading, { once: true });
    this.leading = true;
    try {
      this.cfg.onStartedLeading(leaderCtl.signal);
      await this.renewLoop(signal);
    } finally {
      signal.removeEventListener('abort', stopLeading);
      this.leading = false;
      leaderCtl.abort();
      this.cfg.onStoppedLeading?.();
      if (signal.aborted && this.cfg.releaseOnCancel) await this.release();
    }
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    for (let i = 0; i < Number.MAX_SAFE_INTEGER && !signal.aborted; i++) {
      if (await this.tryAcquireOrRenew()) return true;
      await sleep(this.clock, this.cfg.retryPeriodMs * (1 + Math.random() * 1.2), signal);
    }
    return false;
  }

  private async renewLoop(signal: AbortSignal): Promise<void> {
    for (let i = 0; i < Number.MAX_SAFE_INTEGER && !signal.aborted; i++) {
      await sleep(this.clock, this.cfg.retryPeriodMs, signal);
      if (signal.aborted) return;
      const deadline = this.clock.now() + this.cfg.renewDeadlineMs;
      let renewed = false;
      // Retry within the renew deadline (client-go's wait.PollImmediateUntil).
      for (let j = 0; j < 10_000 && !signal.aborted && this.clock.now() < deadline; j++) {
        if (await this.tryAcquireOrRenew()) {
          renewed = true;
          break;
        }
        await sleep(this.clock, this.cfg.retryPeriodMs, signal);
      }
      if (!renewed && !signal.aborted) return;
    }
  }

  private observe(lease: Lease): void {
    const spec = lease.spec ?? {};
    const record = JSON.stringify([spec.holderIdentity ?? '', spec.leaseDurationSeconds ?? 0, spec.acquireTime ?? '', spec.renewTime ?? '', spec.leaseTransitions ?? 0]);
    if (record !== this.observedRecord) {
      this.observedRecord = record;
      this.observedTime = this.clock.now();
    }
    const holder = spec.holderIdentity ?? '';
    if (holder !== this.observedHolder) {
      this.observedHolder = holder;
      if (holder) this.cfg.onNewLeader?.(holder);
    }
  }

  /** One attempt; true when we hold the lease afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.clock.now();
    const durationS = Math.ceil(this.cfg.leaseDurationMs / 1000);
    try {
      let lease: Lease;
      try {
        lease = await this.rest.get<Lease>(this.path);
      } catch (e) {
        if (!isNotFound(e)) throw e;
        const created = await this.rest.create<Lease>(`/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.cfg.namespace)}/leases`, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.cfg.name, namespace: this.cfg.namespace },
          spec: { holderIdentity: this.cfg.identity, leaseDurationSeconds: durationS, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
        });
        this.observe(created);
        this.current = created;
        return true;
      }
      this.observe(lease);
      const spec = lease.spec ?? {};
      const holder = spec.holderIdentity ?? '';
      const ours = holder === this.cfg.identity;
      const heldMs = (spec.leaseDurationSeconds ?? 0) * 1000;
      if (holder && !ours && this.observedTime + heldMs > now) return false;
      const next: LeaseSpec = ours
        ? { ...spec, holderIdentity: this.cfg.identity, leaseDurationSeconds: durationS, renewTime: microTime(now) }
        : { ...spec, holderIdentity: this.cfg.identity, leaseDurationSeconds: durationS, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: (spec.leaseTransitions ?? 0) + 1 };
      const updated = await this.rest.replace<Lease>(this.path, { ...lease, spec: next });
      this.observe(updated);
      this.current = updated;
      return true;
    } catch (e) {
      this.cfg.onError?.(e);
      return false;
    }
  }

  private async release(): Promise<void> {
    const lease = this.current;
    if (!lease || lease.spec?.holderIdentity !== this.cfg.identity) return;
    const now = microTime(this.clock.now());
    try {
      await this.rest.replace(this.path, { ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now } });
    } catch (e) {
      this.cfg.onError?.(e);
    }
  }
}

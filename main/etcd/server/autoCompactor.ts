// etcd 3.4's auto-compaction (etcdserver/api/v3compactor): --auto-compaction-mode
// `periodic` or `revision`, --auto-compaction-retention. Only the leader
// compacts: etcd pauses the compactor on followers; here every timer firing
// asks whether this member leads (as the lease expiry timer does), which is
// the same at the compactor's granularity. A compaction goes through Raft like
// `etcdctl compact` (physical=false); "required revision has been compacted"
// counts as success, any other error is retried at the next interval.
//
// periodic (periodic.go): the revision is sampled every retry interval
// (min(retention, 1h) / 10); once `retention` has passed since the start (then
// every min(retention, 1h)) it compacts to the oldest kept sample, the
// revision of about `retention` ago.
// revision (revision.go): every 5 minutes it compacts to current - retention,
// unless that is <= 0 or the revision it compacted to last time.

import { formatGoDuration } from '../../common/goDuration';
import type { Revision } from '../mvcc/types';

export type AutoCompactionMode = 'periodic' | 'revision';

/** etcd's v3compactor.revInterval. */
export const REVISION_MODE_INTERVAL_MS = 5 * 60_000;
const HOUR_MS = 3_600_000;
/** etcd's retryDivisor. */
const RETRY_DIVISOR = 10;

export interface AutoCompactionConfig {
  mode: AutoCompactionMode;
  /** periodic: milliseconds; revision: a number of revisions. */
  retention: number;
  /**
   * Test-only: the revision mode's interval (etcd: 5 minutes, not
   * configurable); set from PILOTHOUSE_AUTO_COMPACTION_INTERVAL_MS.
   */
  revisionIntervalMs?: number;
}

export interface CompactorClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: CompactorClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface AutoCompactorDeps {
  /** The member's current revision (etcd's RevGetter, kv.Rev()). */
  rev(): Revision;
  /** Proposes a compaction through Raft (physical=false) and resolves once applied. */
  compact(revision: Revision): Promise<void>;
  isLeader(): boolean;
  log(line: string): void;
  clock?: CompactorClock;
}

const COMPACTED = 'etcdserver: mvcc: required revision has been compacted';

function isCompactedError(err: unknown): boolean {
  return err instanceof Error && (err.message === COMPACTED || err.message === 'mvcc: required revision has been compacted');
}


export class AutoCompactor {
  private readonly clock: CompactorClock;
  private timer: unknown;
  private stopped = false;
  private readonly revs: Revision[] = [];
  private lastSuccess = 0;
  private baseInterval = 0;
  private prev: Revision = 0;

  constructor(
    private readonly config: AutoCompactionConfig,
    private readonly deps: AutoCompactorDeps,
  ) {
    this.clock = deps.clock ?? realClock;
  }

  /** periodic: min(retention, 1h) / 10. */
  get retryIntervalMs(): number {
    return Math.min(this.config.retention, HOUR_MS) / RETRY_DIVISOR;
  }

  private get compactIntervalMs(): number {
    return Math.min(this.config.retention, HOUR_MS);
  }

  /** Revision samples kept by the periodic compactor: retention / retry interval. */
  private get retentions(): number {
    return Math.floor(this.config.retention / this.retryIntervalMs);
  }

  private get revisionIntervalMs(): number {
    return this.config.revisionIntervalMs ?? REVISION_MODE_INTERVAL_MS;
  }

  start(): void {
    if (this.config.mode === 'periodic') {
      this.lastSuccess = this.clock.now();
      this.baseInterval = this.config.retention;
      this.samplePeriodic();
    } else {
      this.schedule(() => void this.revisionTick(), this.revisionIntervalMs);
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(fn: () => void, ms: number): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimeout(fn, ms);
  }

  // ---- periodic (periodic.go Run)

  private samplePeriodic(): void {
    this.revs.push(this.deps.rev());
    // revs[0] is always the revision of about `retention` ago.
    if (this.revs.length > this.retentions) this.revs.shift();
    this.schedule(() => void this.periodicTick(), this.retryIntervalMs);
  }

  private async periodicTick(): Promise<void> {
    if (this.stopped) return;
    if (!this.deps.isLeader() || this.clock.now() - this.lastSuccess < this.baseInterval) {
      this.samplePeriodic();
      return;
    }
    // Waited the initial retention; from now on compact every min(retention, 1h).
    if (this.baseInterval === this.config.retention) this.baseInterval = this.compactIntervalMs;
    const rev = this.revs[0]!;
    this.deps.log(`compactor: Starting auto-compaction at revision ${rev} (retention: ${formatGoDuration(this.config.retention)})`);
    if (await this.tryCompact(rev)) {
      this.lastSuccess = this.clock.now();
    } else {
      this.deps.log(`compactor: Retry after ${formatGoDuration(this.retryIntervalMs)}`);
    }
    if (!this.stopped) this.samplePeriodic();
  }

  // ---- revision (revision.go Run)

  private async revisionTick(): Promise<void> {
    if (this.stopped) return;
    if (this.deps.isLeader()) {
      const rev = this.deps.rev() - this.config.retention;
      if (rev > 0 && rev !== this.prev) {
        this.deps.log(`compactor: Starting auto-compaction at revision ${rev} (retention: ${this.config.retention} revisions)`);
        if (await this.tryCompact(rev)) this.prev = rev;
        else this.deps.log(`compactor: Retry after ${formatGoDuration(this.revisionIntervalMs)}`);
      }
    }
    this.schedule(() => void this.revisionTick(), this.revisionIntervalMs);
  }

  /** true when compacted (or already compacted up to there). */
  private async tryCompact(rev: Revision): Promise<boolean> {
    try {
      await this.deps.compact(rev);
    } catch (err) {
      if (!isCompactedError(err)) {
        if (!this.stopped) this.deps.log(`compactor: Failed auto-compaction at revision ${rev} (${(err as Error).message})`);
        return false;
      }
    }
    if (!this.stopped) this.deps.log(`compactor: Finished auto-compaction at revision ${rev}`);
    return true;
  }
}

/** Starts the member's compactor when the config asks for one (retention > 0). */
export function startAutoCompactor(
  config: { autoCompaction?: AutoCompactionConfig },
  member: { compact(req: { revision: Revision; physical: boolean }): Promise<unknown> },
  sm: { store: { currentRevision: Revision } },
  loop: { isLeader: boolean },
  log: (line: string) => void,
): AutoCompactor | undefined {
  const ac = config.autoCompaction;
  if (!ac || !(ac.retention > 0)) return undefined;
  const compactor = new AutoCompactor(ac, {
    rev: () => sm.store.currentRevision,
    compact: async (revision) => void (await member.compact({ revision, physical: false })),
    isLeader: () => loop.isLeader,
    log,
  });
  compactor.start();
  return compactor;
}

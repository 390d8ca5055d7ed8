// Disaster recovery from a snapshot file, following etcd's recovery guide
// for Kubernetes: check the file, stop the controllers and the API server
// (their caches hold the old cluster's objects and revisions), then the
// members; set every member's data dir aside; restore each member into a NEW
// logical cluster (a fresh --initial-cluster-token: new member ids and a new
// cluster id) with the revision bumped past the live cluster's and marked
// compacted (etcdutl 3.5's --bump-revision/--mark-compacted), so revisions
// never go backwards and every watcher and informer must relist (410 Gone);
// start the members, then the API server and the controllers. The set-aside
// dirs are removed only once the restored plane serves; any failure after
// the stop removes the restored dirs, puts the old ones back and starts the
// old plane again, and the error says so.
//
// The plane is whatever can stop and start the components (RecoveryPlane):
// the console's supervisor, or a `pilothouse up` process driven from the
// CLI (recoveryHost.ts). Each phase is a method so the restore walkthrough
// (restoreWalkthrough.ts) runs them as steps, with a gate before stop().

import { existsSync, renameSync, rmSync } from 'node:fs';
import { idHex, type MemberClient } from '../client/etcd/memberClient';
import { restoreSnapshot } from '../etcd/snapshot/index';
import { kubernetesWarning } from './backupWalkthrough';
import { inspectSnapshot, type SnapshotFacts } from './inspect';

export interface RecoveryMember {
  name: string;
  dataDir: string;
  peerUrl: string;
}

export interface RecoveryPlane {
  readonly layout: readonly RecoveryMember[];
  client(name: string): MemberClient;
  /** The controllers, then the API server, then the members; resolves once all are down. */
  stopAll(): Promise<void>;
  /** The members, then the API server and the controllers (they retry until the members serve). */
  startAll(): void | Promise<void>;
  /** Resolves once the API server and the controllers serve again (after the members); absent: members only. */
  waitServing?(timeoutMs: number): Promise<void>;
}

/** Added to the revisions written since the snapshot: writes between reading the live revision and the stop. */
export const BUMP_MARGIN = 10_000;
/** When the live cluster cannot be read (it is down): the Kubernetes documentation's example bump. */
export const BUMP_UNKNOWN_LIVE = 1_000_000_000;

export interface RecoveryState {
  file: string;
  facts?: SnapshotFacts;
  liveRevision?: number;
  bump?: number;
  stopped?: boolean;
  moved: { from: string; to: string }[];
  clusterId?: string;
  revision?: number;
  keys?: number;
  rolledBack?: string;
}

const POLL_MS = 100;
const REPORT_MS = 2_000;

export class DisasterRecovery {
  readonly state: RecoveryState;
  private readonly stamp: string;

  constructor(
    private readonly plane: RecoveryPlane,
    file: string,
    private o: { bumpRevision?: number; now?: Date; healthyTimeoutMs?: number; log?: (line: string) => void } = {},
  ) {
    this.state = { file, moved: [] };
    this.stamp = (o.now ?? new Date()).toISOString().replace(/[:.]/g, '-');
  }

  private log(line: string): void {
    this.o.log?.(line);
  }

  /** Where the next phase logs (a walkthrough step's output). */
  attach(log: (line: string) => void): void {
    this.o = { ...this.o, log };
  }

  /** The file reads whole (integrity, revision, keys) and holds a Kubernetes keyspace. */
  verify(): SnapshotFacts {
    const facts = inspectSnapshot(this.state.file);
    const notKube = kubernetesWarning(facts);
    if (notKube !== undefined) throw new Error(`refusing to restore the control plane from ${this.state.file}: ${notKube}`);
    this.state.facts = facts;
    this.log(`snapshot ok: revision ${facts.revision}, ${facts.totalKeys} keys, sha256 ${facts.sha256.slice(0, 16)}…`);
    return facts;
  }

  /** The live cluster's revision (a status call, before anything stops) and the bump past it. */
  async planBump(): Promise<number> {
    const facts = this.facts();
    for (const m of this.plane.layout) {
      try {
        const st = await this.plane.client(m.name).status(1_500);
        this.state.liveRevision = Number(st.header?.revision ?? 0);
        break;
      } catch {
        // the next member may answer
      }
    }
    if (this.o.bumpRevision !== undefined) this.state.bump = this.o.bumpRevision;
    else if (this.state.liveRevision !== undefined) this.state.bump = Math.max(0, this.state.liveRevision - facts.revision) + BUMP_MARGIN;
    else this.state.bump = BUMP_UNKNOWN_LIVE;
    if (this.state.bump <= 0) throw new Error('--bump-revision must be > 0: a restore that does not move revisions forward leaves watch caches stale');
    const live = this.state.liveRevision;
    this.log(
      live !== undefined
        ? `live cluster at revision ${live}, snapshot at ${facts.revision}: restoring at ${facts.revision + this.state.bump} (bump ${this.state.bump}), compacted there`
        : `live cluster not answering: bumping by ${this.state.bump}`,
    );
    return this.state.bump;
  }

  /** Controllers, API server, members: down. */
  async stop(): Promise<void> {
    this.log(`stopping the controllers, the API server and ${this.plane.layout.map((m) => m.name).join(', ')}`);
    this.state.stopped = true;
    await this.plane.stopAll();
  }

  /** Every member's data dir to <dir>.bak-<stamp>. */
  setAside(): void {
    for (const m of this.plane.layout) {
      if (!existsSync(m.dataDir) || this.state.moved.some((x) => x.from === m.dataDir)) continue;
      const to = `${m.dataDir}.bak-${this.stamp}`;
      renameSync(m.dataDir, to);
      this.state.moved.push({ from: m.dataDir, to });
      this.log(`${m.dataDir} set aside as ${to}`);
    }
  }

  /** A fresh data dir per member: a new logical cluster, revisions bumped and compacted. */
  async restore(): Promise<void> {
    const layout = this.plane.layout;
    const initialCluster = layout.map((m) => `${m.name}=${m.peerUrl}`).join(',');
    for (const m of layout) {
      rmSync(m.dataDir, { recursive: true, force: true }); // a half-written dir of an earlier attempt
      const r = await restoreSnapshot({
        snapshotPath: this.state.file,
        dataDir: m.dataDir,
        name: m.name,
        initialCluster,
        initialAdvertisePeerUrls: [m.peerUrl],
        initialClusterToken: `pilothouse-restore-${this.stamp}`,
        skipHashCheck: false,
        bumpRevision: this.state.bump,
        markCompacted: true,
      });
      this.state.clusterId = idHex(r.clusterId);
      this.state.revision = r.revision;
      this.log(`${m.name}: restored into ${m.dataDir} (member ${idHex(r.memberId)}, revision ${r.revision}, compacted at ${r.compactRevision})`);
    }
  }

  /** Starts the plane and waits until every member answers a linearizable read. */
  async start(): Promise<number> {
    await this.plane.startAll();
    this.state.keys = await waitHealthy(this.plane, this.o.healthyTimeoutMs ?? 120_000, (d) => this.log(d));
    this.log(`every member serves: ${this.state.keys} keys, cluster ${this.state.clusterId}`);
    return this.state.keys;
  }

  /** The API server and the controllers serve the restored state; then the set-aside dirs go. */
  async finish(): Promise<void> {
    await this.plane.waitServing?.(this.o.healthyTimeoutMs ?? 120_000);
    for (const x of this.state.moved) rmSync(x.to, { recursive: true, force: true });
    this.log(`the restored plane serves; removed ${this.state.moved.map((x) => x.to).join(', ') || 'nothing'}`);
    this.state.moved = [];
  }

  /** After a failure past stop(): restored dirs out, old dirs back, old plane started. Resolves with what it did, for the message. */
  async rollBack(): Promise<string> {
    if (!this.state.stopped || this.state.moved.length === 0) {
      if (this.state.stopped) await this.plane.startAll();
      return this.state.stopped ? '; nothing had been restored, the plane was started again' : '';
    }
    try {
      await this.plane.stopAll();
      for (const x of this.state.moved) {
        rmSync(x.from, { recursive: true, force: true });
        renameSync(x.to, x.from);
      }
      this.state.moved = [];
      await this.plane.startAll();
      this.state.rolledBack = 'the previous data dirs were put back and the old plane started again';
    } catch (err) {
      this.state.rolledBack = `rolling back failed too (${(err as Error).message}); old data dirs: ${this.state.moved.map((x) => x.to).join(', ')}`;
    }
    return `; ${this.state.rolledBack}`;
  }

  private facts(): SnapshotFacts {
    if (!this.state.facts) throw new Error('the snapshot was not verified first');
    return this.state.facts;
  }
}

export interface RecoveryOutcome {
  clusterId: string;
  keys: number;
  /** The restored cluster's revision (the snapshot's plus the bump). */
  revision: number;
  snapshotRevision: number;
  liveRevision?: number;
  bump: number;
}

/** The whole recovery in order; throws "restore failed at <step>: <why>[; what the rollback did]". */
export async function recoverCluster(
  plane: RecoveryPlane,
  file: string,
  o: { bumpRevision?: number; now?: Date; healthyTimeoutMs?: number; log?: (line: string) => void; onStep?: (step: string, state: 'running' | 'done' | 'failed', detail?: string) => void } = {},
): Promise<RecoveryOutcome> {
  const r = new DisasterRecovery(plane, file, o);
  const phases: [string, () => unknown][] = [
    ['verify', () => r.verify()],
    ['plan', () => r.planBump()],
    ['stop', () => r.stop()],
    ['set-aside', () => r.setAside()],
    ['restore', () => r.restore()],
    ['start', () => r.start()],
    ['serving', () => r.finish()],
  ];
  let step = '';
  try {
    for (const [name, run] of phases) {
      step = name;
      o.onStep?.(step, 'running');
      await run();
      o.onStep?.(step, 'done');
    }
  } catch (err) {
    const detail = (err as Error).message + (await r.rollBack());
    o.onStep?.(step, 'failed', detail);
    throw new Error(`restore failed at ${step}: ${detail}`);
  }
  const s = r.state;
  return { clusterId: s.clusterId!, keys: s.keys!, revision: s.revision!, snapshotRevision: s.facts!.revision, liveRevision: s.liveRevision, bump: s.bump! };
}

/** Every member answers a linearizable read; then the key count from the first. */
export async function waitHealthy(plane: Pick<RecoveryPlane, 'layout' | 'client'>, timeoutMs: number, report: (detail: string) => void): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  const ok = new Set<string>();
  let last = '';
  let reported = Date.now();
  while (Date.now() < deadline) {
    if (Date.now() - reported >= REPORT_MS && last !== '') {
      reported = Date.now();
      report(`${ok.size}/${plane.layout.length} healthy; ${last}`);
    }
    await Promise.all(
      plane.layout
        .filter((m) => !ok.has(m.name))
        .map(async (m) => {
          try {
            await plane.client(m.name).healthRead(1_000);
            ok.add(m.name);
          } catch (err) {
            last = `${m.name}: ${(err as Error).message}`;
          }
        }),
    );
    if (ok.size === plane.layout.length) return plane.client(plane.layout[0]!.name).countKeys();
    await new Promise((res) => setTimeout(res, POLL_MS));
  }
  throw new Error(`restored members not healthy within ${timeoutMs} ms (${last})`);
}

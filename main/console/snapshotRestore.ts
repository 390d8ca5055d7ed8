// Restoring the embedded cluster from a snapshot file, the way etcd's
// disaster-recovery guide does it by hand: check the file, stop every member,
// put each member's data dir aside, `snapshot restore` a fresh data dir per
// member (the same code as `pilothouse snapshot restore`), start them, wait
// until all serve linearizable reads.
//
// As with etcd, the restored cluster is a NEW logical cluster: a fresh
// --initial-cluster-token gives new member ids and a new cluster id, so a
// client or member still holding the old ids cannot mix the two. The old data
// dirs stay as <dir>.bak-<stamp> until the restored cluster is healthy; if
// anything fails before that, the restored dirs are removed, the old ones put
// back and the old cluster started again.

import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import type { EventSink, RestoreProgress } from '../../preload/contract';
import { restoreSnapshot } from '../etcd/snapshot';
import { snapshotStatus } from '../etcd/snapshot';
import type { RestorableMember } from './cluster';
import { idHex, type MemberClient } from '../client/etcd/memberClient';

/** The members (the cluster's `restorable`), their clients, and stopping and starting the whole cluster around the restore. */
export interface RestoreDeps {
  layout: readonly RestorableMember[];
  client(name: string): MemberClient;
  stopMembers(): Promise<void>;
  startMembers(): void;
  events?: EventSink;
  healthyTimeoutMs?: number;
}

export interface RestoreOutcome {
  clusterId: string;
  keys: number;
  revision: number;
}

const POLL_MS = 100;
/** While waiting for health: one progress line with the latest error this often. */
const REPORT_MS = 2_000;

export async function restoreCluster(deps: RestoreDeps, snapshotPath: string, now = new Date()): Promise<RestoreOutcome> {
  const emit = (p: RestoreProgress) => deps.events?.emit('restoreProgress', p);
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const token = `pilothouse-restore-${stamp}`;
  let step = 'verify';
  const moved: { from: string; to: string }[] = [];
  let stopped = false;
  try {
    emit({ step, state: 'running', detail: snapshotPath });
    const st = snapshotStatus(readFileSync(snapshotPath));
    emit({ step, state: 'done', detail: `revision ${st.revision}, ${st.totalKey} keys, sha256 ok` });

    step = 'stop';
    emit({ step, state: 'running', detail: `stopping ${deps.layout.map((m) => m.name).join(', ')}` });
    await deps.stopMembers();
    stopped = true;
    emit({ step, state: 'done' });

    step = 'set-aside';
    emit({ step, state: 'running' });
    for (const m of deps.layout) {
      if (!existsSync(m.dataDir)) continue;
      const to = `${m.dataDir}.bak-${stamp}`;
      renameSync(m.dataDir, to);
      moved.push({ from: m.dataDir, to });
    }
    emit({ step, state: 'done', detail: moved.map((x) => x.to).join(', ') });

    step = 'restore';
    emit({ step, state: 'running' });
    const initialCluster = deps.layout.map((m) => `${m.name}=${m.peerUrl}`).join(',');
    let clusterId = 0n;
    for (const m of deps.layout) {
      const r = await restoreSnapshot({
        snapshotPath,
        dataDir: m.dataDir,
        name: m.name,
        initialCluster,
        initialAdvertisePeerUrls: [m.peerUrl],
        initialClusterToken: token,
        skipHashCheck: false,
      });
      clusterId = r.clusterId;
    }
    emit({ step, state: 'done', detail: `new cluster id ${idHex(clusterId)}` });

    step = 'start';
    emit({ step, state: 'running' });
    deps.startMembers();
    emit({ step, state: 'done' });

    step = 'healthy';
    emit({ step, state: 'running' });
    const keys = await waitHealthy(deps, deps.healthyTimeoutMs ?? 60_000, (detail) => emit({ step, state: 'running', detail }));
    for (const x of moved) rmSync(x.to, { recursive: true, force: true });
    const outcome = { clusterId: idHex(clusterId), keys, revision: st.revision };
    emit({ step, state: 'done', detail: `${keys} keys`, clusterId: outcome.clusterId, keys });
    return outcome;
  } catch (err) {
    const why = (err as Error).message;
    let detail = why;
    if (stopped) detail += await rollBack(deps, moved);
    emit({ step, state: 'failed', detail });
    throw new Error(`restore failed at ${step}: ${detail}`);
  }
}

/** Every member answers a linearizable read; then the key count from one of them. */
async function waitHealthy(deps: RestoreDeps, timeoutMs: number, report: (detail: string) => void): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  const ok = new Set<string>();
  let last = '';
  let reported = Date.now();
  while (Date.now() < deadline) {
    if (Date.now() - reported >= REPORT_MS && last !== '') {
      reported = Date.now();
      report(`${ok.size}/${deps.layout.length} healthy; ${last}`);
    }
    await Promise.all(
      deps.layout
        .filter((m) => !ok.has(m.name))
        .map(async (m) => {
          try {
            await deps.client(m.name).healthRead(1_000);
            ok.add(m.name);
          } catch (err) {
            last = `${m.name}: ${(err as Error).message}`;
          }
        }),
    );
    if (ok.size === deps.layout.length) return deps.client(deps.layout[0]!.name).countKeys();
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new Error(`restored members not healthy within ${timeoutMs} ms (${last})`);
}

/** Restored dirs out, old dirs back, old cluster started. Returns what it did, for the message. */
async function rollBack(deps: RestoreDeps, moved: { from: string; to: string }[]): Promise<string> {
  try {
    await deps.stopMembers();
    for (const x of moved) {
      rmSync(x.from, { recursive: true, force: true });
      renameSync(x.to, x.from);
    }
    deps.startMembers();
    return '; the previous data dirs were put back and the old cluster started again';
  } catch (err) {
    return `; rolling back failed too (${(err as Error).message}); old data dirs: ${moved.map((x) => x.to).join(', ')}`;
  }
}

// Restoring the embedded cluster from a snapshot file: the console's side of
// the disaster recovery in main/backup/recovery.ts (the same implementation
// `pilothouse backup restore` runs), with its phases reported as
// restoreProgress events for the Snapshots view.
//
// As with etcd, the restored cluster is a NEW logical cluster (new member
// ids, new cluster id), its revisions bumped past the live cluster's and
// marked compacted, so that every watcher relists. The old data dirs stay as
// <dir>.bak-<stamp> until the restored cluster is healthy; if anything fails
// before that, the restored dirs are removed, the old ones put back and the
// old cluster started again.

import type { EventSink, RestoreProgress } from '../../preload/contract';
import type { RestorableMember } from './cluster';
import type { MemberClient } from '../client/etcd/memberClient';
import { recoverCluster } from '../backup/recovery';

/** The members (the cluster's `restorable`), their clients, and stopping and starting the whole cluster around the restore. */
export interface RestoreDeps {
  layout: readonly RestorableMember[];
  client(name: string): MemberClient;
  /** Every component down (the API server too: its watch cache holds the old cluster's revisions). */
  stopMembers(): Promise<void>;
  startMembers(): void;
  events?: EventSink;
  healthyTimeoutMs?: number;
  /** Overrides the bump past the live cluster's revision (tests). */
  bumpRevision?: number;
}

export interface RestoreOutcome {
  clusterId: string;
  keys: number;
  revision: number;
}

/** recoverCluster's last step: the restored plane serves. */
const LAST_STEP = 'serving';

export async function restoreCluster(deps: RestoreDeps, snapshotPath: string, now = new Date()): Promise<RestoreOutcome> {
  const emit = (p: RestoreProgress) => deps.events?.emit('restoreProgress', p);
  let current = '';
  const out = await recoverCluster(
    { layout: deps.layout, client: (n) => deps.client(n), stopAll: () => deps.stopMembers(), startAll: () => deps.startMembers() },
    snapshotPath,
    {
      now,
      bumpRevision: deps.bumpRevision,
      healthyTimeoutMs: deps.healthyTimeoutMs ?? 60_000,
      log: (line) => emit({ step: current, state: 'running', detail: line }),
      onStep: (step, state, detail) => {
        current = step;
        // the last step's done waits for the outcome below, which it carries
        if (step === LAST_STEP && state === 'done') return;
        emit({ step, state, detail: detail ?? (step === 'verify' && state === 'running' ? snapshotPath : undefined) });
      },
    },
  );
  emit({ step: LAST_STEP, state: 'done', detail: `${out.keys} keys at revision ${out.revision}`, clusterId: out.clusterId, keys: out.keys });
  return { clusterId: out.clusterId, keys: out.keys, revision: out.revision };
}

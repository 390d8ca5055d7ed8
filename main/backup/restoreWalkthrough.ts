// Disaster recovery as a walkthrough: the phases of recovery.ts as steps,
// with a confirm gate before the first destructive one (stopping the plane).
// A step that fails past the stop rolls back at once (restored dirs out, the
// set-aside dirs back, the old plane started) and says so in its error, so a
// failed run never leaves a half-restored cluster behind unreported. The
// steps past the gate are not resumable: after an interruption the run ends
// failed, naming the set-aside dirs that still hold the old data.

import { randomBytes } from 'node:crypto';
import type { StepContext, StepDefinition, WalkthroughDefinition } from '../walkthrough/types';
import { DisasterRecovery, type RecoveryPlane, type RecoveryState } from './recovery';

export interface RestoreParams {
  file: string;
  dataDir: string;
  /** Overrides the bump past the live cluster's revision. */
  bumpRevision?: number;
}

interface Session {
  recovery: DisasterRecovery;
  plane: RecoveryPlane;
}

const sessions = new Map<string, Session>();

/** The commands the stop and start steps show: what the host that runs the plane does, as a shell line. */
export interface RecoveryCommands {
  stop: string;
  start: string;
}

/** The CLI's: `pilothouse backup restore` signals the process in DIR/controlplane.pid and runs `up` again. */
export function cliRecoveryCommands(p: RestoreParams): RecoveryCommands {
  return { stop: `kill -TERM $(cat ${p.dataDir}/controlplane.pid)`, start: `pilothouse up --data-dir ${p.dataDir}` };
}

export function restoreWalkthrough(o: {
  plane(params: RestoreParams): RecoveryPlane;
  healthyTimeoutMs?: number;
  /** The host's own stop and start commands; the CLI's unless given. */
  commands?: (params: RestoreParams) => RecoveryCommands;
}): WalkthroughDefinition<RestoreParams> {
  const commands = o.commands ?? cliRecoveryCommands;
  const session = (ctx: StepContext, p: RestoreParams): Session => {
    let id = ctx.state.session as string | undefined;
    if (id === undefined) ctx.state.session = id = randomBytes(6).toString('hex');
    let s = sessions.get(id);
    if (!s) {
      const prior = ctx.state.recovery as RecoveryState | undefined;
      if (prior?.stopped) {
        const aside = prior.moved.map((x) => x.to).join(', ');
        throw new Error(`the restore was interrupted after the plane was stopped; ${aside ? `the old data dirs are still set aside as ${aside}` : 'no data dir had been set aside'}`);
      }
      const plane = o.plane(p);
      s = { plane, recovery: new DisasterRecovery(plane, p.file, { bumpRevision: p.bumpRevision, healthyTimeoutMs: o.healthyTimeoutMs }) };
      sessions.set(id, s);
    }
    s.recovery.attach((line) => ctx.log(line));
    return s;
  };
  const step = (def: Omit<StepDefinition, 'run'>, p: RestoreParams, run: (r: DisasterRecovery, ctx: StepContext) => Promise<string>, last = false): StepDefinition => ({
    ...def,
    async run(ctx) {
      const s = session(ctx, p);
      try {
        const verdict = await run(s.recovery, ctx);
        ctx.state.recovery = { ...s.recovery.state };
        if (last) sessions.delete(String(ctx.state.session));
        return verdict;
      } catch (err) {
        const rolled = await s.recovery.rollBack();
        ctx.state.recovery = { ...s.recovery.state };
        sessions.delete(String(ctx.state.session));
        throw new Error(`${(err as Error).message}${rolled}`);
      }
    },
  });

  return {
    kind: 'restore',
    title: 'Disaster recovery from a snapshot',
    steps: (p) => {
      const host = commands(p);
      return [
      step({ id: 'verify', title: 'Verify the snapshot', why: 'Nothing is stopped for a damaged file: check its integrity, revision and keys first.', command: `pilothouse backup verify ${p.file}`, resumable: true }, p, async (r) => {
        const f = r.verify();
        return `revision ${f.revision}, ${f.totalKeys} keys`;
      }),
      step({ id: 'plan', title: 'Read the live revision', why: "The restored revisions must start past every revision a client has seen, or watch caches and informers would trust stale data: bump past the live cluster's.", command: `source ${p.dataDir}/etcdctl.env && etcdctl endpoint status -w json`, resumable: true }, p, async (r) => {
        const bump = await r.planBump();
        return `bump ${bump}: restored at revision ${r.state.facts!.revision + bump}`;
      }),
      step({ id: 'stop', title: 'Stop the controllers, the API server and the members', why: 'Their caches hold objects the snapshot does not have; nothing may write to the old members while they are replaced. Destructive: the cluster is down from here.', command: host.stop, gate: 'confirm', resumable: false }, p, async (r) => {
        await r.stop();
        return 'controllers, API server and members stopped';
      }),
      step({ id: 'set-aside', title: "Set the members' data dirs aside", why: 'Kept until the restored plane serves, so a failed restore can put them back.', command: `for m in m1 m2 m3; do mv ${p.dataDir}/$m ${p.dataDir}/$m.bak-$STAMP; done`, resumable: false }, p, async (r) => {
        r.setAside();
        return `${r.state.moved.length} data dirs set aside`;
      }),
      step({ id: 'restore', title: 'Restore every member into a new cluster', why: 'A new cluster id and member ids, revisions bumped past the live cluster and marked compacted, so every watcher gets 410 Gone and relists.', command: `pilothouse snapshot restore ${p.file} --name m1 --data-dir ${p.dataDir}/m1 --initial-cluster-token pilothouse-restore-$STAMP --bump-revision $BUMP --mark-compacted  # and m2, m3`, resumable: false }, p, async (r) => {
        await r.restore();
        return `new cluster ${r.state.clusterId} at revision ${r.state.revision}`;
      }),
      step({ id: 'start', title: 'Start the members', why: 'Each member starts from its restored dir; the cluster is back once every member serves a linearizable read.', command: host.start, resumable: false }, p, async (r) => {
        const keys = await r.start();
        return `every member serves, ${keys} keys`;
      }),
      step({ id: 'serving', title: 'Start the API server and the controllers', why: 'The API server rebuilds its cache from the restored keys; the controllers relist and converge on the restored state. Then the set-aside dirs are removed.', command: `KUBECONFIG=${p.dataDir}/kubeconfig kubectl get --raw /readyz && kubectl get nodes`, resumable: false }, p, async (r) => {
        await r.finish();
        return 'the restored plane serves';
      }, true),
      ];
    },
    figures: (state) => {
      const r = state.recovery as RecoveryState | undefined;
      if (!r) return {};
      const f: Record<string, string | number> = {};
      if (r.facts) f.snapshotRevision = r.facts.revision;
      if (r.liveRevision !== undefined) f.liveRevision = r.liveRevision;
      if (r.bump !== undefined) f.bump = r.bump;
      if (r.revision !== undefined) f.restoredRevision = r.revision;
      if (r.keys !== undefined) f.keys = r.keys;
      if (r.clusterId) f.clusterId = r.clusterId;
      if (r.rolledBack) f.rolledBack = r.rolledBack;
      return f;
    },
  };
}

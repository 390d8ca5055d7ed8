// The restore drill as a walkthrough: the steps of drill.ts one by one, each
// with the command an operator would type for it. A step that fails tears
// the scratch cluster down and records the failure in the backup's metadata
// before the run stops, so no failed, cancelled or paused drill leaves
// processes or a temp dir behind. The scratch cluster lives only in this
// process: after the app was closed mid-drill the run cannot go on (the steps
// past the verification are not resumable) and ends failed with the reason.

import { randomBytes } from 'node:crypto';
import type { StepContext, StepDefinition, WalkthroughDefinition } from '../walkthrough/types';
import { DRILL_TOKEN, RestoreDrill, type DrillReport } from './drill';

export interface DrillParams {
  file: string;
  dataDir: string;
  /** First port of the scratch cluster; a free block when absent. */
  portBase?: number;
}

const sessions = new Map<string, RestoreDrill>();

export function drillWalkthrough(o: { cliPath: string; onReport?: (r: DrillReport) => void }): WalkthroughDefinition<DrillParams> {
  const session = (ctx: StepContext, p: DrillParams): RestoreDrill => {
    let id = ctx.state.session as string | undefined;
    if (id === undefined) ctx.state.session = id = randomBytes(6).toString('hex');
    let d = sessions.get(id);
    if (!d) {
      if (ctx.state.scratch !== undefined) throw new Error('the scratch cluster of this drill is gone (the process that ran it ended); start a new drill');
      sessions.set(id, (d = new RestoreDrill({ snapshotFile: p.file, dataDir: p.dataDir, cliPath: o.cliPath, portBase: p.portBase })));
    }
    d.attach((line) => ctx.log(line), ctx.signal);
    return d;
  };
  /** Ends the drill: scratch down, outcome recorded, report kept in the run's state. */
  const conclude = async (ctx: StepContext, d: RestoreDrill, failed?: { step: string; err: unknown }) => {
    if (failed) d.fail(failed.step, failed.err);
    else if (d.report.failedStep === undefined) d.report.verdict = 'restorable';
    try {
      await d.teardown();
    } catch (err) {
      if (!failed) d.fail('teardown', err);
    }
    try {
      if (!d.record()) ctx.log(`no metadata beside ${d.report.file}: lastDrill not recorded`);
    } catch (err) {
      ctx.log(`could not record the drill: ${(err as Error).message}`);
    }
    ctx.state.report = d.report;
    o.onReport?.(d.report);
    sessions.delete(String(ctx.state.session));
  };
  /** A step of the drill: on failure (or cancel) the drill ends there, torn down and recorded. */
  const step = (def: Omit<StepDefinition, 'run'>, p: DrillParams, run: (d: RestoreDrill, ctx: StepContext) => Promise<string>): StepDefinition => ({
    ...def,
    async run(ctx) {
      const d = session(ctx, p);
      try {
        if (ctx.signal.aborted) throw new Error('cancelled');
        const verdict = await run(d, ctx);
        if (d.report.scratch) ctx.state.scratch = d.report.scratch;
        return verdict;
      } catch (err) {
        await conclude(ctx, d, { step: def.id, err });
        throw err;
      }
    },
  });

  return {
    kind: 'drill',
    title: 'Restore drill',
    steps: (p) => {
      const scratch = '$SCRATCH';
      const base = p.portBase !== undefined ? String(p.portBase) : '$PORT_BASE';
      return [
        step({ id: 'verify', title: 'Verify the snapshot', why: 'A drill of a damaged file proves nothing: check its integrity, revision and key counts, and compare them with the metadata saved with it.', command: `pilothouse backup verify ${p.file}`, resumable: true }, p, async (d) => {
          const f = d.verify();
          return `revision ${f.revision}, ${f.totalKeys} keys, ${Object.keys(f.resources).length} resources`;
        }),
        step({ id: 'rpo', title: 'Measure the RPO', why: 'How much would be lost restoring this file now: revisions the live cluster has moved on since, and time since it was taken. Read-only (member status).', command: `source ${p.dataDir}/etcdctl.env && etcdctl endpoint status -w json`, resumable: true }, p, async (d) => {
          const r = await d.measureRpo();
          return r.revisions !== undefined ? `${r.revisions} revisions and ${r.seconds} s behind the live cluster` : `${r.seconds} s old; live revision unknown (${r.unavailable})`;
        }),
        step({ id: 'restore', title: 'Restore into a scratch cluster', why: 'Fresh data dirs for three new members on free ports in a temp dir; the live cluster is not touched.', command: `for i in 1 2 3; do pilothouse snapshot restore ${p.file} --name m$i --data-dir ${scratch}/m$i --initial-cluster m1=https://127.0.0.1:$((${base}+1)),m2=https://127.0.0.1:$((${base}+3)),m3=https://127.0.0.1:$((${base}+5)) --initial-advertise-peer-urls https://127.0.0.1:$((${base}+2*i-1)) --initial-cluster-token ${DRILL_TOKEN}; done`, resumable: false }, p, async (d) => {
          const r = await d.restore();
          return `3 members restored into ${r.dir} in ${d.report.timings.restoreMs} ms`;
        }),
        step({ id: 'start', title: 'Start the scratch members and API server', why: 'The same programs and flags as the live plane, on other ports: it must elect a leader and the API server must turn ready on the restored data.', command: `pilothouse up --data-dir ${scratch} --port-base ${base} --no-controllers`, resumable: false }, p, async (d) => {
          await d.start();
          return `serving ${d.report.timings.serveMs} ms after the restore began`;
        }),
        step({ id: 'counts', title: 'Compare the key counts', why: "Every key of the snapshot must be back: total keys and keys per /registry resource at the snapshot's revision, equal to its facts.", command: `etcdctl get "" --from-key --keys-only --rev=${'$REV'} | grep -c .`, resumable: false }, p, async (d) => {
          await d.checkCounts();
          return d.report.checks.find((c) => c.name === 'keys per resource')!.detail;
        }),
        step({ id: 'list', title: 'List every resource through the API server', why: 'Discovery, then a full list of each listable resource, as kubectl would: the objects must decode and serve, not only sit in etcd. RTO ends here.', command: `KUBECONFIG=${scratch}/kubeconfig kubectl api-resources --verbs=list -o name | xargs -n1 kubectl get -A --chunk-size=500 -o name`, resumable: false }, p, async (d, ctx) => {
          const listed = await d.listResources((_r, done, total) => ctx.progress({ done, total, unit: 'resources' }));
          return `${listed.length} resources listed; RTO ${d.report.rtoMs} ms`;
        }),
        step({ id: 'teardown', title: 'Tear the scratch cluster down and record the drill', why: 'Every scratch process is stopped by its PID and the temp dir removed; the verdict and RTO go into the backup metadata (lastDrill).', command: `kill $SCRATCH_PIDS && rm -rf ${scratch}`, resumable: false }, p, async (d, ctx) => {
          await conclude(ctx, d);
          const r = d.report;
          if (r.verdict !== 'restorable') throw new Error(r.reason ?? 'failed');
          return `restorable: RTO ${r.rtoMs} ms${r.recorded ? ', recorded in the metadata' : ''}`;
        }),
      ];
    },
    figures: (state) => {
      const r = state.report as DrillReport | undefined;
      if (!r) return {};
      const f: Record<string, string | number> = { verdict: r.verdict };
      if (r.reason) f.reason = r.reason;
      if (r.rtoMs !== undefined) f.rtoMs = r.rtoMs;
      if (r.rpo?.revisions !== undefined) f.rpoRevisions = r.rpo.revisions;
      if (r.rpo?.seconds !== undefined) f.rpoSeconds = r.rpo.seconds;
      if (r.facts) {
        f.snapshotRevision = r.facts.revision;
        f.snapshotKeys = r.facts.totalKeys;
      }
      if (r.resources) {
        f.resourcesListed = r.resources.length;
        f.objectsListed = r.resources.reduce((n, x) => n + x.items, 0);
      }
      for (const [k, v] of Object.entries(r.timings)) f[k] = v;
      return f;
    },
  };
}

// `pilothouse upgrade apply --rehearse`: the same upgrade, first, on a copy.
// The newest verified backup is restored into a scratch plane (the restore
// drill's restore: fresh data dirs and PKI in a temp dir, free loopback
// ports), which is started whole — members, API server, controllers — in
// this process, and the plan is applied to it exactly as it would be to the
// live plane: the same target, the same flag changes, the same order (its
// own leader last), the same timeout, rollback and availability probe. The
// live plane is only read (the plan, the backup). Afterwards the scratch
// plane is stopped by PID and its dir removed, whatever happened.
//
// With badFlag the first member replaced is given a flag it refuses at
// start (BAD_FLAG), as the seed's bad kubelet parameter kept the upgraded
// etcd from starting: the rehearsal shows the failure detected, the member
// rolled back and the quorum kept.

import { RestoreDrill } from '../backup/drill';
import { listBackups } from '../backup/catalog';
import { LogStore } from '../controlplane/logStore';
import { Supervisor } from '../controlplane/supervisor';
import { join } from 'node:path';
import { inProcessPlane } from './applyPlane';
import { runApply, type ApplyReport } from './apply';
import { flagValue } from './planeSurvey';
import type { UpgradePlan } from './plan';

export interface RehearsalOptions {
  plan: UpgradePlan;
  /** The `pilothouse` entry script the scratch plane runs (the live plane's build). */
  cliPath: string;
  timeoutMs?: number;
  badFlag?: boolean;
  portBase?: number;
  log?: (line: string) => void;
  signal?: AbortSignal;
}

export interface RehearsalReport {
  backup: string;
  scratch?: { dir: string; portBase: number };
  /** The apply on the scratch plane; undefined when the scratch plane did not start. */
  apply?: ApplyReport;
  ok: boolean;
  /** Why the rehearsal could not run the plan at all. */
  error?: string;
  startMs?: number;
  durationMs: number;
}

async function scratchLeader(sup: Supervisor): Promise<string | undefined> {
  const views = await Promise.all(sup.layout.map(async (m) => ({ name: m.name, st: await sup.client(m.name).status(1_000).catch(() => undefined) })));
  const leaderId = views.find((v) => v.st && v.st.leader !== '0')?.st?.leader;
  return views.find((v) => v.st?.header?.member_id === leaderId)?.name;
}

export async function rehearse(o: RehearsalOptions): Promise<RehearsalReport> {
  const t0 = Date.now();
  const log = (l: string) => o.log?.(l);
  const newest = listBackups(join(o.plan.dataDir, 'snapshots')).find((b) => b.meta?.facts.integrity === 'ok');
  if (!newest) {
    return { backup: '', ok: false, error: `no verified backup in ${join(o.plan.dataDir, 'snapshots')} to rehearse on: take one with pilothouse backup save --data-dir ${o.plan.dataDir}`, durationMs: 0 };
  }
  const report: RehearsalReport = { backup: newest.file, ok: false, durationMs: 0 };
  const drill = new RestoreDrill({ snapshotFile: newest.file, dataDir: o.plan.dataDir, cliPath: o.cliPath, ...(o.portBase !== undefined && { portBase: o.portBase }), log, ...(o.signal && { signal: o.signal }) });
  const logs = new LogStore(undefined);
  let sup: Supervisor | undefined;
  try {
    log(`rehearsal on a copy of ${newest.name}`);
    drill.verify();
    const scratch = await drill.restore();
    report.scratch = scratch;
    const ctl = o.plan.components.find((c) => c.kind === 'controllers');
    const nodes = Number(flagValue(ctl?.current.flags ?? [], 'nodes') ?? 3);
    sup = new Supervisor({ dataDir: scratch.dir, portBase: scratch.portBase, cliPath: o.cliPath, logs, members: 3, apiserver: true, controllers: ctl !== undefined, nodes });
    const s0 = Date.now();
    if (!(await sup.start(o.timeoutMs ?? 120_000))) {
      const failed = sup.startupSteps().find((s) => s.state === 'failed');
      throw new Error(`the scratch plane did not start: ${failed ? `${failed.label}: ${failed.detail}` : 'timed out'}`);
    }
    report.startMs = Date.now() - s0;
    log(`scratch plane ready in ${report.startMs} ms (ports ${scratch.portBase}..${scratch.portBase + 6}, ${scratch.dir})`);
    const leader = await scratchLeader(sup);
    const members = sup.layout.map((m) => m.name);
    const order = [...members.filter((m) => m !== leader), ...members.filter((m) => m === leader), ...(sup.apiserver ? ['apiserver'] : []), ...(sup.controllers ? ['controllers'] : [])];
    // The live plan's checks were of the live plane; the copy's only job is to run the same change.
    const plan: UpgradePlan = { ...o.plan, dataDir: scratch.dir, order, ...(leader && { leader }), refusals: [], forceable: [] };
    const plane = inProcessPlane(scratch.dir, sup);
    try {
      report.apply = await runApply({ plane, plan, ...(o.timeoutMs !== undefined && { timeoutMs: o.timeoutMs }), ...(o.badFlag && { badFlag: true }), log, ...(o.signal && { signal: o.signal }) });
    } finally {
      plane.close();
    }
    report.ok = report.apply.ok;
  } catch (err) {
    report.error = (err as Error).message;
    log(`rehearsal failed: ${report.error}`);
  } finally {
    await sup?.dispose();
    await logs.dispose();
    await drill.teardown().catch((err: Error) => log(`teardown: ${err.message}`));
    report.durationMs = Date.now() - t0;
  }
  return report;
}

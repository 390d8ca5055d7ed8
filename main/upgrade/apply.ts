// `pilothouse upgrade apply`: a plan (plan.ts) carried out on the plane, one
// component at a time, as kubeadm and etcd's upgrade guide do it:
//   1. refuse what the plan refuses (a missing or stale backup passes with
//      --force, nothing else does);
//   2. start the availability probe: writes through etcd and through the API
//      server for the whole run;
//   3. the members, followers first, the leader last after its leadership
//      is moved to a member already upgraded; each stopped, started with its
//      target program and flags, and waited for until it is healthy and has
//      applied what the leader had committed — within the timeout, and never
//      while another member is not back;
//   4. the API server, until /readyz; then the controllers, until the
//      plane is usable with their new process holding the Leases; then each
//      simulated node, cordoned, seen Ready, uncordoned;
//   5. the storage migration, when a flag change alters how objects are
//      stored (storageMigration.ts);
//   6. the probe stopped and verified: every failed write and the longest
//      unavailability of each path, and no acknowledged write lost.
// A component that is not back in time is rolled back to the program and
// flags it ran before (kubeadm: "etcd was rolled back"), and the run stops
// there, saying what it saw — exit code, log tail, health — and what to do
// next. A component already running its target is left alone, so apply can
// be run again after a failure is fixed. Each step is a method, so the
// console's walkthrough runs the same steps one by one.

import { randomBytes } from 'node:crypto';
import { renewAll } from '../common/pki/renewal';
import { sameCommandLine, type CommandLine } from '../controlplane/componentOverrides';
import type { ControlledComponent } from '../controlplane/controlSocket';
import { flagValue } from './planeSurvey';
import { AvailabilityProbe, type AvailabilityReport } from './availabilityProbe';
import type { ApplyPlane } from './applyPlane';
import { applyStatePath, readApplyState, writeApplyState, type ApplyState, type AppliedComponent } from './applyState';
import type { ComponentKind } from './build';
import { waitBack, type Seen } from './componentHealth';
import { withSettings } from './flagSettings';
import { moveLeadershipAway, electedHolders } from './leadership';
import { cycleNodes } from './nodeCycle';
import type { UpgradePlan } from './plan';
import { migrationsFor, runMigrations, type MigrationResult } from './storageMigration';

export const DEFAULT_TIMEOUT_MS = 5 * 60_000;
/** The rehearsal's broken flag: valid syntax, refused at start, as the seed's bad parameter kept the new etcd from starting. */
export const BAD_FLAG = '--election-timeout=50';

export interface ApplyOptions {
  plane: ApplyPlane;
  plan: UpgradePlan;
  /** Per component: how long it may take to be back. */
  timeoutMs?: number;
  /** Go ahead without a fresh verified backup (the only refusal it passes). */
  force?: boolean;
  /** Run the availability probe (default true). */
  probe?: boolean;
  /** The first member replaced gets BAD_FLAG (a rehearsal of the seed's failure). */
  badFlag?: boolean;
  log?: (line: string) => void;
  signal?: AbortSignal;
  /**
   * The id of a run DIR/upgrade/apply.json records, to carry on with it (a
   * walkthrough resumed after the app restarted): its components keep the
   * command lines they ran before the run began, so a rollback still knows them.
   */
  continueRun?: string;
}

export interface ComponentOutcome {
  id: string;
  kind: ComponentKind;
  outcome: 'upgraded' | 'unchanged' | 'rolled-back' | 'failed';
  ms: number;
  detail: string;
  /** What the component did when it failed (before the rollback). */
  seen?: Seen;
  rollback?: string;
}

export interface ApplyReport {
  dataDir: string;
  runId: string;
  ok: boolean;
  /** Set when apply refused to start; nothing was changed. */
  refused?: string[];
  forced: string[];
  components: ComponentOutcome[];
  nodes?: { ok: boolean; lines: string[] };
  migrations?: MigrationResult[];
  availability?: AvailabilityReport;
  durationMs: number;
  /** What the user should do next. */
  next: string[];
}

/** The same program (its V8 flags, env) running another build's cli.js. */
export function retargetProgram(program: CommandLine['program'], cliPath: string | undefined): CommandLine['program'] {
  if (!cliPath) return program;
  return { ...program, args: program.args.map((a) => (/(^|\/)cli\.js$/.test(a) ? cliPath : a)) };
}

export class UpgradeApply {
  readonly report: ApplyReport;
  private readonly t0: number = Date.now();
  private probe: AvailabilityProbe | undefined;
  private state: ApplyState;
  private badFlagUsed = false;
  private begun = false;
  /** The run was recorded by an earlier instance: its components are not recorded again. */
  private readonly continued: boolean;
  /** When the kubelets now running started: the controllers' replacement, else the run's start. */
  private kubeletsSince = Date.now();

  constructor(private o: ApplyOptions) {
    const recorded = o.continueRun === undefined ? undefined : readApplyState(o.plane.dataDir);
    this.continued = recorded !== undefined && recorded.runId === o.continueRun;
    if (recorded && this.continued) {
      const { endedAt: _ended, ...open } = recorded;
      this.state = { ...open, outcome: 'running' };
      this.t0 = Date.parse(recorded.startedAt);
      this.report = { dataDir: o.plane.dataDir, runId: recorded.runId, ok: false, forced: [], components: [], durationMs: 0, next: [] };
      return;
    }
    const runId = randomBytes(4).toString('hex');
    this.report = { dataDir: o.plane.dataDir, runId, ok: false, forced: [], components: [], durationMs: 0, next: [] };
    this.state = {
      runId,
      startedAt: new Date().toISOString(),
      outcome: 'running',
      ...(o.plan.target && { target: { version: o.plan.target.version, commit: o.plan.target.commit, cliPath: o.plan.target.cliPath } }),
      settings: o.plan.settings.map((s) => `${s.kind}.${s.flag}=${s.value}`),
      components: [],
    };
  }

  /** Where the next step logs and what cancels it (a walkthrough step's context). */
  attach(log: (line: string) => void, signal: AbortSignal): void {
    this.o = { ...this.o, log, signal };
  }

  private log(line: string): void {
    this.o.log?.(line);
  }

  private get timeoutMs(): number {
    return this.o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Component ids in the order they are replaced. */
  get order(): string[] {
    return this.o.plan.order;
  }

  /** Why apply refuses (empty: it goes ahead); with force, the backup check is passed and named in report.forced. */
  refusals(): string[] {
    const plan = this.o.plan;
    const hard = plan.refusals.filter((r) => !plan.forceable.includes(r));
    if (this.o.force) {
      this.report.forced = [...plan.forceable];
      for (const f of plan.forceable) this.log(`--force: going ahead although ${f}`);
      return hard;
    }
    return plan.refusals;
  }

  /** Records the run and starts the probe; once (every step calls it, so a resumed walkthrough's first step does). */
  async begin(): Promise<void> {
    if (this.begun) return;
    this.begun = true;
    if (this.continued) this.log(`carrying on with run ${this.report.runId} (${applyStatePath(this.o.plane.dataDir)})`);
    else await this.record();
    this.save();
    if (this.o.plan.renewCerts && !this.state.certsRenewed) {
      const renewed = await renewAll(this.o.plane.dataDir);
      this.state.certsRenewed = new Date().toISOString();
      this.save();
      this.log(`certificates renewed (new keys and serials, same CAs): ${renewed.map((c) => c.name).join(', ')}; each component restarts to load them`);
    }
    if (this.o.probe === false) return;
    const tls = this.o.plane.etcdTls();
    this.probe = new AvailabilityProbe({
      etcd: { endpoints: this.o.plane.members.map((m) => m.url), ...(tls && { tls }) },
      kubeconfig: this.o.plane.kubeconfig,
      // a carried-on run's probe is a new one: the writes of the one the restart ended are not its to verify
      runId: this.continued ? `${this.report.runId}-${randomBytes(2).toString('hex')}` : this.report.runId,
      // A write unanswered for an election timeout's worth counts as failed: the target is one election of unavailability.
      writeTimeoutMs: 1_000,
    });
    this.probe.start();
    this.log(`availability probe started: writes through etcd and through the API server (run ${this.report.runId})`);
  }

  /** The run's components as they run now: what each is given, and what a rollback returns it to. */
  private async record(): Promise<void> {
    const comps = await this.o.plane.control.components();
    this.state.components = this.order.map((id) => {
      const c = comps.find((x) => x.id === id);
      if (!c) throw new Error(`${id} is in the plan but the plane has no such component`);
      return { id, kind: c.kind as ComponentKind, state: 'pending', previous: c.commandLine, target: this.targetOf(c) };
    });
    const newest = this.o.plan.preflight.find((p) => p.name === 'backup' && p.ok)?.detail;
    if (newest) this.state.backup = /verified backup (\S+),/.exec(newest)?.[1];
  }

  private save(): void {
    writeApplyState(this.o.plane.dataDir, this.state);
  }

  private entry(id: string): AppliedComponent {
    const e = this.state.components.find((c) => c.id === id);
    if (!e) throw new Error(`no component ${id} in this run`);
    return e;
  }

  private targetOf(c: ControlledComponent): CommandLine {
    const kind = c.kind as ComponentKind;
    const settings = this.o.plan.settings.filter((s) => s.kind === kind);
    return { program: retargetProgram(c.commandLine.program, this.o.plan.target?.cliPath), args: withSettings(c.commandLine.args, settings) };
  }

  private get nodes(): number {
    const ctl = this.state.components.find((c) => c.kind === 'controllers');
    return Number(flagValue(ctl?.target.args ?? [], 'nodes') ?? 3);
  }

  /** Every member but this one healthy: taking it down leaves a quorum. */
  private async othersHealthy(id: string): Promise<string | undefined> {
    const others = this.o.plane.members.filter((m) => m.name !== id);
    const down: string[] = [];
    await Promise.all(others.map((m) => this.o.plane.memberClient(m.name).healthRead(2_000).catch(() => down.push(m.name))));
    return down.length === 0 ? undefined : `${down.sort().join(', ')} not healthy: taking ${id} down now could lose the quorum`;
  }

  /** Replaces one component and waits for it; rolls it back when it is not back in time. */
  async component(id: string): Promise<ComponentOutcome> {
    await this.begin();
    const t0 = Date.now();
    const plane = this.o.plane;
    const entry = this.entry(id);
    const current = (await plane.control.components()).find((c) => c.id === id);
    if (!current) throw new Error(`the plane has no component ${id}`);
    let target = entry.target;
    const done = (o: Omit<ComponentOutcome, 'id' | 'kind' | 'ms'>): ComponentOutcome => {
      const out = { id, kind: entry.kind, ms: Date.now() - t0, ...o };
      this.report.components.push(out);
      entry.state = o.outcome;
      this.save();
      return out;
    };
    // With renewed certificates a component running its target restarts all the same, to load them (once per run).
    const reload = this.o.plan.renewCerts === true && entry.state !== 'upgraded';
    if (sameCommandLine(current.commandLine, target) && !reload) {
      this.log(`${id}: already runs its target; left alone`);
      return done({ outcome: 'unchanged', detail: 'already runs its target' });
    }
    if (entry.kind === 'etcd') {
      const blocked = await this.othersHealthy(id);
      if (blocked) return done({ outcome: 'failed', detail: `not replaced: ${blocked}` });
      if (this.o.badFlag && !this.badFlagUsed) {
        this.badFlagUsed = true;
        target = { ...target, args: [...target.args, BAD_FLAG] };
        this.log(`${id}: rehearsing a bad flag: ${BAD_FLAG}`);
      }
      const moved = await moveLeadershipAway(plane, id, this.state.components.filter((c) => c.kind === 'etcd' && c.state === 'upgraded').map((c) => c.id));
      if (moved) this.log(`${id}: ${moved}`);
    }
    const holders = entry.kind === 'controllers' ? await electedHolders(plane) : [];
    this.log(`${id}: stopping pid ${current.pid ?? '-'} and starting ${target.program.command} ${[...target.program.args, ...target.args].join(' ')}`);
    if (entry.kind === 'controllers') this.kubeletsSince = Date.now();
    await plane.control.replace(id, target);
    const back = await waitBack(plane, id, entry.kind, this.nodes, this.timeoutMs, this.o.signal, holders);
    if (back.ok) {
      this.log(`${id}: ${back.detail}`);
      return done({ outcome: 'upgraded', detail: back.detail });
    }
    this.log(`${id}: ${back.why}; rolling it back to its previous program and flags`);
    for (const line of describeSeen(back.seen)) this.log(`${id}:   ${line}`);
    await plane.control.replace(id, entry.previous);
    const again = await waitBack(plane, id, entry.kind, this.nodes, this.timeoutMs, this.o.signal, holders);
    const rollback = again.ok ? `${id} was rolled back and is ${again.detail}` : `${id} was rolled back but is still not back: ${again.why}`;
    this.log(rollback);
    return done({ outcome: again.ok ? 'rolled-back' : 'failed', detail: back.why, seen: back.seen, rollback });
  }

  /** Each simulated node: cordoned, seen Ready under the new kubelet, uncordoned. */
  async cycleNodes(): Promise<{ ok: boolean; lines: string[] }> {
    await this.begin();
    const r = await cycleNodes(this.o.plane.rest(), this.kubeletsSince, this.timeoutMs, (l) => this.log(l), this.o.signal);
    this.report.nodes = r;
    return r;
  }

  /** Storage migration for the flag changes that alter how objects are stored; [] when none does. */
  async migrate(): Promise<MigrationResult[]> {
    await this.begin();
    const wanted = migrationsFor(this.o.plan.settings);
    if (wanted.length === 0) return (this.report.migrations = []);
    const results = await runMigrations(this.o.plane, wanted, this.report.runId, this.timeoutMs, (l) => this.log(l), this.o.signal);
    this.report.migrations = results;
    return results;
  }

  /** Stops the probe, closes the run's record and says what to do next. */
  async finish(): Promise<ApplyReport> {
    if (this.probe) {
      this.report.availability = await this.probe.stop();
      this.probe = undefined;
    }
    const failed = this.report.components.find((c) => c.outcome === 'rolled-back' || c.outcome === 'failed');
    const complete = !failed && this.state.components.every((c) => c.state === 'upgraded' || c.state === 'unchanged');
    this.state.outcome = complete ? 'complete' : 'stopped';
    this.state.endedAt = new Date().toISOString();
    this.save();
    const migrationsOk = (this.report.migrations ?? []).every((m) => m.ok);
    const nodesOk = this.report.nodes?.ok ?? true;
    this.report.ok = complete && migrationsOk && nodesOk;
    this.report.durationMs = Date.now() - this.t0;
    const dir = this.o.plane.dataDir;
    if (failed) {
      const upgraded = this.state.components.filter((c) => c.state === 'upgraded').map((c) => c.id);
      this.report.next = [
        `${failed.id} ${failed.outcome === 'rolled-back' ? 'runs its previous program and flags again' : 'is not healthy: see what it showed above'}; ${
          upgraded.length > 0 ? `the cluster is mixed: ${upgraded.join(', ')} upgraded.` : 'no component was upgraded: the plane runs what it ran before.'
        }`,
        `Read ${this.o.plane.logFile(failed.id)} for why it did not come back, fix the target, and run apply again: components already upgraded are left alone.`,
        ...(upgraded.length > 0 ? [`Or undo the upgraded components while the cluster is mixed: pilothouse upgrade rollback --data-dir ${dir}`] : []),
      ];
    } else if (!this.report.ok) {
      this.report.next = ['Every component runs its target, but a later step failed (see above); run apply again to retry it.'];
    } else {
      this.report.next = [
        `The upgrade is complete (${applyStatePath(dir)}). Going back now is a restore of the backup taken before it${this.state.backup ? ` (${this.state.backup})` : ''}: pilothouse backup restore FILE --data-dir ${dir}`,
      ];
    }
    return this.report;
  }

  /**
   * Stops the probe and keeps what it measured for the report (a step that
   * failed: the run may wait on the user for long, and the probe must not
   * write on meanwhile). Later steps run unprobed.
   */
  async stopProbe(): Promise<void> {
    if (!this.probe) return;
    const probe = this.probe;
    this.probe = undefined;
    this.report.availability = await probe.stop();
    this.log('availability probe stopped at the failure; the report gives what it measured until then');
  }

  /** Stops the probe without a report (a cancelled run). */
  async abandon(): Promise<void> {
    await this.probe?.stop().catch(() => undefined);
    this.probe = undefined;
    this.state.outcome = 'stopped';
    this.state.endedAt = new Date().toISOString();
    this.save();
  }
}

export function describeSeen(seen: Seen): string[] {
  const lines = [`state ${seen.state ?? 'unknown'}${seen.pid !== undefined ? `, pid ${seen.pid}` : ''}, restarts ${seen.restarts ?? '?'}`];
  if (seen.lastExit) lines.push(`last exit: ${seen.lastExit.signal ? `signal ${seen.lastExit.signal}` : `code ${seen.lastExit.code}`}`);
  lines.push(`health: ${seen.health}`);
  if (seen.logTail.length > 0) lines.push('log tail:', ...seen.logTail.map((l) => `  ${l}`));
  return lines;
}

/** The whole apply in one go (the CLI's); refuses without changing anything when the plan refuses. */
export async function runApply(o: ApplyOptions): Promise<ApplyReport> {
  const run = new UpgradeApply(o);
  const refusals = run.refusals();
  if (refusals.length > 0) {
    run.report.refused = refusals;
    run.report.next = refusals.some((r) => o.plan.forceable.includes(r))
      ? [`take a backup first (pilothouse backup save --data-dir ${o.plane.dataDir}), or pass --force to go on without one`]
      : ['fix what the preflight found, then run apply again (pilothouse upgrade plan shows the checks)'];
    return run.report;
  }
  await run.begin();
  try {
    for (const id of run.order) {
      const out = await run.component(id);
      if (out.outcome === 'rolled-back' || out.outcome === 'failed') return await run.finish();
    }
    const nodes = await run.cycleNodes();
    if (nodes.ok) await run.migrate();
    return await run.finish();
  } catch (err) {
    await run.abandon();
    throw err;
  }
}

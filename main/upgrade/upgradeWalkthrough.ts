// The guided upgrade: `pilothouse upgrade plan`, a backup when the plan
// asks for one, `upgrade apply --rehearse` on a copy, then — after a
// confirmation — the live apply one component per step, the nodes, the
// storage migration and the report. Each step runs the same code as the CLI
// (plan.ts, rehearsal.ts, apply.ts's UpgradeApply step methods) and shows the
// command it stands for.
//
// The steps are fixed when the run starts (the engine persists them): the
// component steps come from params.order, the plane's components with the
// leader last as they ran at the start. A leadership change after that costs
// nothing: UpgradeApply moves the leadership away from whichever member it
// replaces.
//
// One UpgradeApply serves a run's apply steps (its availability probe runs
// from the gate to the report). It lives in the closure steps() makes, which
// the engine makes once per run — at start, or when it takes over a run after
// an app restart. Then a fresh instance carries on with the run apply.json
// records (continueRun): components already running their target are left
// alone, and their previous command lines stay known for a rollback.

import { join } from 'node:path';
import { backupWalkthrough, type BackupWalkthroughEnv } from '../backup/backupWalkthrough';
import { backupFileName, listBackups } from '../backup/catalog';
import { etcdctlFlags } from '../backup/clusterAccess';
import type { StepContext, StepDefinition, WalkthroughDefinition } from '../walkthrough/types';
import { describeSeen, UpgradeApply, type ApplyOptions, type ApplyReport, type ComponentOutcome } from './apply';
import type { ApplyPlane } from './applyPlane';
import { formatApplyText, formatRehearsalText } from './applyReport';
import { formatAvailability, type AvailabilityReport } from './availabilityProbe';
import { makePlan, type PlanOptions, type UpgradePlan } from './plan';
import { formatPlanText } from './planReport';
import { rehearse, type RehearsalOptions, type RehearsalReport } from './rehearsal';
import { formatCounts, type MigrationResult } from './storageMigration';

export const UPGRADE_KIND = 'upgrade';

export interface UpgradeParams extends Record<string, unknown> {
  dataDir: string;
  /** A directory holding the target build (DIR/out/main/cli.js); flags only when unset. */
  to?: string;
  /** COMPONENT.FLAG=VALUE settings. */
  set: string[];
  timeoutMs: number;
  /** The timeout as given (a Go duration), for the commands shown. */
  timeout: string;
  rehearse: boolean;
  rehearseBadFlag: boolean;
  force: boolean;
  /** Component ids in the order they are replaced: members (the leader last), apiserver, controllers. */
  order: string[];
  /** Where the rehearsal's scratch plane listens; free ports when unset. */
  rehearsalPortBase?: number;
}

/** What the apply steps ask of an apply run (UpgradeApply's step methods). */
export type UpgradeRun = Pick<UpgradeApply, 'report' | 'refusals' | 'begin' | 'component' | 'cycleNodes' | 'migrate' | 'finish' | 'abandon' | 'attach' | 'stopProbe'>;

export interface UpgradeWalkthroughEnv {
  /** The live plane (closed by the caller when the run no longer needs it). */
  plane(): ApplyPlane;
  /** The members as the backup code reaches them, for the backup step. */
  backup: BackupWalkthroughEnv;
  /** The `pilothouse` script the rehearsal runs when the plan names none. */
  cliPath: string;
  /** Tests: stand-ins for the plan, the rehearsal and the apply. */
  makePlan?: (o: PlanOptions) => Promise<UpgradePlan>;
  rehearse?: (o: RehearsalOptions) => Promise<RehearsalReport>;
  apply?: (o: ApplyOptions) => UpgradeRun;
}

/** What the steps record in the run's state (JSON). */
interface RunState {
  plan?: UpgradePlan;
  backupFile?: string;
  rehearsal?: { ok: boolean; durationMs: number; error?: string; availability: string[]; rolledBack?: string };
  /** The apply run apply.json records, once the gate was passed. */
  applyRunId?: string;
  applyStartedAt?: string;
  components?: Record<string, Pick<ComponentOutcome, 'outcome' | 'ms' | 'detail'>>;
  migrations?: Pick<MigrationResult, 'resource' | 'group' | 'ok' | 'before' | 'after'>[];
  report?: { ok: boolean; durationMs: number; availability?: AvailabilityReport; next: string[] };
}

const st = (ctx: StepContext) => ctx.state as RunState;

function needPlan(ctx: StepContext): UpgradePlan {
  const plan = st(ctx).plan;
  if (!plan) throw new Error('no plan recorded: run the plan step again');
  return plan;
}

/** `pilothouse upgrade apply` with this run's parameters (without --rehearse: the live run). */
export function applyCommand(p: UpgradeParams, extra: string[] = []): string {
  return ['pilothouse upgrade apply', `--data-dir ${p.dataDir}`, ...(p.to ? [`--to ${p.to}`] : []), ...p.set.map((s) => `--set ${s}`), `--timeout ${p.timeout}`, ...(p.force ? ['--force'] : []), ...extra].join(' ');
}

function planCommand(p: UpgradeParams): string {
  return ['pilothouse upgrade plan', `--data-dir ${p.dataDir}`, ...(p.to ? [`--to ${p.to}`] : []), ...p.set.map((s) => `--set ${s}`)].join(' ');
}

const memberOrder = (o: string[]) => o.filter((id) => id !== 'apiserver' && id !== 'controllers');

function componentStep(p: UpgradeParams, id: string, i: number, etcdctl: (member?: string) => string, run: (ctx: StepContext) => UpgradeRun): StepDefinition {
  const kubectl = `kubectl --kubeconfig ${join(p.dataDir, 'kubeconfig')}`;
  const members = memberOrder(p.order);
  const kind = id === 'apiserver' ? 'apiserver' : id === 'controllers' ? 'controllers' : 'etcd';
  const info = {
    etcd: {
      title: `Member ${id}${i === members.length - 1 && members.length > 1 ? ' (the leader at the start, last)' : ''}`,
      why: 'One member at a time, never while another is not back: the others keep the quorum. A leader hands its leadership to an upgraded member first (move-leader); each must be healthy and have applied what the leader committed before the next goes.',
      command: `etcdctl ${etcdctl(id)} endpoint health && etcdctl ${etcdctl()} endpoint status -w table`,
    },
    apiserver: {
      title: 'API server',
      why: 'Replaced once every member runs its target (the API server may not be newer than etcd allows); back when /readyz says so.',
      command: `${kubectl} get --raw='/readyz?verbose'`,
    },
    controllers: {
      title: 'Controllers (scheduler, controller manager, kubelets)',
      why: 'Last, as kubeadm upgrades the control plane before the kubelets: back when the new process holds the elected components\' Leases.',
      command: `${kubectl} -n kube-system get leases`,
    },
  }[kind];
  return {
    id,
    ...info,
    resumable: true,
    async run(ctx) {
      const r = run(ctx);
      const out = await r.component(id);
      (st(ctx).components ??= {})[id] = { outcome: out.outcome, ms: out.ms, detail: out.detail };
      if (out.outcome === 'upgraded' || out.outcome === 'unchanged') return `${id} ${out.outcome === 'unchanged' ? 'already ran its target: left alone' : `is back on its target in ${(out.ms / 1000).toFixed(1)} s: ${out.detail}`}`;
      ctx.log(`${id} did not come back: what it showed:`);
      if (out.seen) for (const line of describeSeen(out.seen)) ctx.log(`  ${line}`);
      await r.stopProbe();
      throw new Error(`${id}: ${out.detail}${out.rollback ? `; ${out.rollback}` : ''}`);
    },
  };
}

export function upgradeWalkthrough(env: UpgradeWalkthroughEnv): WalkthroughDefinition<UpgradeParams> {
  const planFn = env.makePlan ?? makePlan;
  const rehearseFn = env.rehearse ?? rehearse;
  const applyFn = env.apply ?? ((o: ApplyOptions) => new UpgradeApply(o));
  return {
    kind: UPGRADE_KIND,
    title: 'Rolling upgrade or reconfiguration',
    steps(p) {
      let plane: ApplyPlane | undefined;
      let live: UpgradeRun | undefined;
      const livePlane = () => (plane ??= env.plane());
      const done = () => {
        plane?.close();
        plane = undefined;
        live = undefined;
      };
      /** This run's apply, attached to the step that asks (a fresh one carries on with the recorded run). */
      const applyRun = (ctx: StepContext): UpgradeRun => {
        const s = st(ctx);
        live ??= applyFn({
          plane: livePlane(),
          plan: needPlan(ctx),
          timeoutMs: p.timeoutMs,
          ...(p.force && { force: true }),
          ...(s.applyRunId && { continueRun: s.applyRunId }),
        });
        live.attach((l) => ctx.log(l), ctx.signal);
        return live;
      };
      const etcdctl = (member?: string): string => {
        try {
          return etcdctlFlags(env.backup.address, member);
        } catch {
          return `--endpoints=<${member ?? 'the members'}'s client URL>`;
        }
      };
      const wantsRehearsal = p.rehearse || p.rehearseBadFlag;

      const steps: StepDefinition[] = [
        {
          id: 'plan',
          title: 'Plan: versions, flags, skew and preflight',
          why: "What each component runs now and will run, whether the version skew policy allows it, and kubeadm's preflight: every member healthy with a quorum to spare, one leader, no alarm, every node Ready, a fresh verified backup.",
          command: planCommand(p),
          resumable: true,
          async run(ctx) {
            const plan = await planFn({ dataDir: p.dataDir, ...(p.to !== undefined && { to: p.to }), set: p.set });
            ctx.log(formatPlanText(plan).trimEnd());
            const planned = [...plan.order].sort().join(',');
            if (planned !== [...p.order].sort().join(',')) throw new Error(`the plane's components changed since the run started: the plan has ${plan.order.join(', ')}, the run ${p.order.join(', ')}; start a new run`);
            const hard = plan.refusals.filter((r) => !plan.forceable.includes(r));
            if (hard.length > 0) throw new Error(`apply would refuse: ${hard.join('; ')}`);
            st(ctx).plan = plan;
            const changes = plan.components.filter((c) => c.flagChanges.length > 0 || c.current.version !== c.target.version || c.current.commit !== c.target.commit).length;
            const backup = plan.forceable.length === 0 ? '' : p.force ? '; forced past the backup check' : '; the next step takes the backup it asks for';
            return `${changes} of ${plan.components.length} components change; order ${plan.order.join(', ')}${backup}`;
          },
        },
      ];
      // A rehearsal restores the newest verified backup, so one is needed for it even when forced.
      if (!p.force || wantsRehearsal) {
        const file = (ctx: StepContext) => (st(ctx).backupFile ??= join(p.dataDir, 'snapshots', backupFileName(new Date())));
        steps.push({
          id: 'backup',
          title: 'Backup: a verified snapshot first',
          why: "kubeadm's rule for etcd: a snapshot before the upgrade. The plan asks for a verified backup younger than an hour; when there is none this step takes one (preflight, snapshot from the leader, verify, store).",
          command: `pilothouse backup save --data-dir ${p.dataDir}`,
          resumable: true,
          async run(ctx) {
            const plan = needPlan(ctx);
            const check = plan.preflight.find((c) => c.name === 'backup');
            if (check?.ok) return `not needed: ${check.detail}`;
            if (p.force) {
              const older = listBackups(join(p.dataDir, 'snapshots')).find((b) => b.meta?.facts.integrity === 'ok');
              if (older) return `forced past: ${check?.detail ?? 'no backup check'}; the rehearsal restores ${older.name}`;
              ctx.log('forced past the backup check, but the rehearsal restores the newest verified backup and there is none: taking one');
            }
            const target = file(ctx);
            ctx.log(`$ pilothouse backup save --data-dir ${p.dataDir}   # into ${target}`);
            const backupState: Record<string, unknown> = {};
            for (const step of backupWalkthrough(env.backup).steps({ file: target, source: 'save', dataDir: p.dataDir })) {
              ctx.log(`[${step.id}] ${step.title}`);
              const verdict = await step.run({ ...ctx, state: backupState, log: (l) => ctx.log(`  ${l}`) });
              ctx.log(`  ✓ ${verdict}`);
            }
            // plan again: the backup check now passes (and the leader may have moved)
            const again = await planFn({ dataDir: p.dataDir, ...(p.to !== undefined && { to: p.to }), set: p.set });
            const now = again.preflight.find((c) => c.name === 'backup');
            if (!now?.ok) throw new Error(`the backup was taken but the plan still refuses it: ${now?.detail ?? 'no backup check'}`);
            st(ctx).plan = again;
            return `backup taken and verified: ${now.detail}`;
          },
        });
      }
      if (wantsRehearsal) {
        steps.push({
          id: 'rehearse',
          title: p.rehearseBadFlag ? 'Rehearse the bad-flag failure on a copy' : 'Rehearse on a copy',
          why: p.rehearseBadFlag
            ? 'The newest backup restored into a scratch plane on other ports, and the same upgrade applied to it with a flag the first member refuses at start: the failure must be caught, that member rolled back and the quorum kept. The live plane is only read.'
            : 'The newest backup restored into a scratch plane on other ports, and the same upgrade applied to it — same target, flags, order, timeout, rollback and availability probe. The live plane is only read.',
          command: applyCommand(p, [p.rehearseBadFlag ? '--rehearse-bad-flag' : '--rehearse']),
          resumable: true,
          async run(ctx) {
            const plan = needPlan(ctx);
            const r = await rehearseFn({
              plan,
              cliPath: plan.currentCli ?? env.cliPath,
              timeoutMs: p.timeoutMs,
              ...(p.rehearseBadFlag && { badFlag: true }),
              ...(p.rehearsalPortBase !== undefined && { portBase: p.rehearsalPortBase }),
              log: (l) => ctx.log(l),
              signal: ctx.signal,
            });
            ctx.log(formatRehearsalText(r, applyCommand(p)).trimEnd());
            const availability = r.apply?.availability ? formatAvailability(r.apply.availability) : [];
            const rolledBack = r.apply?.components.find((c) => c.outcome === 'rolled-back');
            st(ctx).rehearsal = { ok: r.ok, durationMs: r.durationMs, ...(r.error && { error: r.error }), availability, ...(rolledBack?.rollback && { rolledBack: rolledBack.rollback }) };
            const took = `${(r.durationMs / 1000).toFixed(1)} s`;
            if (p.rehearseBadFlag) {
              if (!rolledBack) throw new Error(`the bad flag was not caught and rolled back${r.error ? `: ${r.error}` : ''}`);
              return `the failure was caught: ${rolledBack.rollback ?? `${rolledBack.id} was rolled back`} (rehearsal ${took}; the live plane was not changed)`;
            }
            if (!r.ok) throw new Error(`the rehearsal failed${r.error ? `: ${r.error}` : rolledBack ? `: ${rolledBack.detail}` : ''}; the live plane was not changed`);
            return `the rehearsal succeeded in ${took}${availability[1] ? `; ${availability.slice(1).filter((l) => !l.startsWith(' ')).join('; ')}` : ''}`;
          },
        });
      }
      steps.push({
        id: 'apply',
        title: 'Apply to the live plane',
        why: 'From here the live plane changes: the run is recorded in DIR/upgrade/apply.json (what a rollback undoes while the cluster is mixed) and the availability probe writes through etcd and through the API server until the report.',
        command: applyCommand(p),
        gate: 'confirm',
        gateNote: `This step replaces the live plane's components one at a time. A component that does not come back is rolled back by itself; while the cluster is mixed, pilothouse upgrade rollback --data-dir ${p.dataDir} undoes the rest, and after that only the backup does.`,
        resumable: true,
        async run(ctx) {
          const s = st(ctx);
          const r = applyRun(ctx);
          const refusals = r.refusals();
          if (refusals.length > 0) {
            done();
            throw new Error(`apply refuses: ${refusals.join('; ')}`);
          }
          await r.begin();
          s.applyRunId = r.report.runId;
          s.applyStartedAt ??= new Date().toISOString();
          return `run ${r.report.runId} recorded in ${join(p.dataDir, 'upgrade', 'apply.json')}; replacing ${p.order.join(', ')} in turn`;
        },
      });
      memberOrder(p.order).forEach((id, i) => steps.push(componentStep(p, id, i, etcdctl, applyRun)));
      for (const id of p.order.filter((x) => x === 'apiserver' || x === 'controllers')) steps.push(componentStep(p, id, 0, etcdctl, applyRun));
      if (p.order.includes('controllers')) {
        steps.push({
          id: 'nodes',
          title: 'Nodes: cordon, Ready under the new kubelet, uncordon',
          why: 'The simulated kubelets run in the controllers process: each node is cordoned, seen Ready with a heartbeat from the new kubelet, and uncordoned, as kubeadm drains and upgrades each node.',
          command: `kubectl --kubeconfig ${join(p.dataDir, 'kubeconfig')} cordon NODE && kubectl --kubeconfig ${join(p.dataDir, 'kubeconfig')} wait --for=condition=Ready node/NODE && kubectl --kubeconfig ${join(p.dataDir, 'kubeconfig')} uncordon NODE`,
          resumable: true,
          async run(ctx) {
            const r = await applyRun(ctx).cycleNodes();
            if (!r.ok) throw new Error(r.lines.at(-1) ?? 'a node did not come back Ready');
            return r.lines.at(-1) ?? 'every node Ready';
          },
        });
      }
      steps.push({
        id: 'migrate',
        title: 'Storage migration',
        why: 'A flag change that alters how objects are stored (encryption, the storage media type) applies to new writes only; a StorageVersionMigration rewrites every stored object so none is left the old way.',
        command: `kubectl --kubeconfig ${join(p.dataDir, 'kubeconfig')} get storageversionmigrations`,
        resumable: true,
        async run(ctx) {
          const results = await applyRun(ctx).migrate();
          st(ctx).migrations = results.map((m) => ({ resource: m.resource, group: m.group, ok: m.ok, ...(m.before && { before: m.before }), ...(m.after && { after: m.after }) }));
          if (results.length === 0) return 'skipped: no flag change alters how objects are stored';
          for (const m of results) ctx.log(`${m.resource}${m.group ? `.${m.group}` : ''}: ${m.ok ? 'migrated' : 'FAILED'} (${m.detail})\n  before: ${formatCounts(m.before)}\n  after:  ${formatCounts(m.after)}`);
          const failed = results.filter((m) => !m.ok);
          if (failed.length > 0) throw new Error(`migration failed for ${failed.map((m) => m.resource).join(', ')}`);
          return `${results.length} resource${results.length === 1 ? '' : 's'} rewritten: ${results.map((m) => m.resource).join(', ')}`;
        },
      });
      steps.push({
        id: 'report',
        title: 'Report: availability and next steps',
        why: 'The probe stopped and its writes read back: the longest unavailability of etcd and of the API server, every failed write, and no acknowledged write lost; then what to do next.',
        command: `cat ${join(p.dataDir, 'upgrade', 'apply.json')}`,
        resumable: true,
        async run(ctx) {
          const s = st(ctx);
          let r: ApplyReport;
          try {
            r = await applyRun(ctx).finish();
          } finally {
            done();
          }
          const since = s.applyStartedAt ? Date.parse(s.applyStartedAt) : Date.now() - r.durationMs;
          s.report = { ok: r.ok, durationMs: Date.now() - since, ...(r.availability && { availability: r.availability }), next: r.next };
          ctx.log(formatApplyText(r).trimEnd());
          if (r.availability && s.applyStartedAt && Date.parse(r.availability.startedAt) - since > 5_000) {
            ctx.log(`(the availability probe ran from ${r.availability.startedAt}: the app restarted during the run, so what happened before that was not measured)`);
          }
          if (!r.ok) throw new Error(r.next.join(' ') || 'the upgrade did not complete');
          const lines = r.availability ? formatAvailability(r.availability).slice(1).filter((l) => !l.startsWith(' ')) : [];
          return `upgrade complete in ${(s.report.durationMs / 1000).toFixed(1)} s${lines.length ? `; ${lines.join('; ')}` : ''}`;
        },
      });
      return steps;
    },
    figures(state) {
      const s = state as RunState;
      const out: Record<string, string | number> = {};
      if (s.rehearsal) out.rehearsalMs = s.rehearsal.durationMs;
      if (s.report) {
        out.durationMs = s.report.durationMs;
        const a = s.report.availability;
        if (a?.etcd) out.etcdLongestUnavailableMs = a.etcd.longestUnavailableMs;
        if (a?.apiserver) out.apiServerLongestUnavailableMs = a.apiserver.longestUnavailableMs;
        if (a) {
          const channels = [a.etcd, a.apiserver].filter((c) => c !== undefined);
          out.writesFailed = channels.reduce((n, c) => n + c.failedCount, 0);
          out.writesLost = channels.some((c) => c.verifyError !== undefined) ? 'not verified' : channels.reduce((n, c) => n + c.lost, 0);
        }
      }
      for (const [id, c] of Object.entries(s.components ?? {})) out[id] = c.outcome;
      return out;
    },
  };
}

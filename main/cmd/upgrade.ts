// `pilothouse upgrade plan|apply|rollback`: a rolling upgrade or
// reconfiguration of the plane under a data dir to another build (--to DIR)
// and/or flag settings (--set).
//   plan      what it would do and whether apply may go ahead (main/upgrade/plan.ts);
//             exit 0 when it may, 1 when it would refuse or cannot plan.
//   apply     does it, one component at a time, with rollback of a component
//             that does not come back (main/upgrade/apply.ts); --rehearse does
//             it on a copy restored from the newest backup instead
//             (main/upgrade/rehearsal.ts). Exit 0 when it completed.
//   rollback  undoes an apply that left the cluster mixed (main/upgrade/rollback.ts).

import type { Command } from 'commander';
import { parseGoDurationStrict } from '../common/goDuration';
import { DEFAULT_TIMEOUT_MS, runApply } from '../upgrade/apply';
import { hostedPlane } from '../upgrade/applyPlane';
import { formatApplyText, formatRehearsalText } from '../upgrade/applyReport';
import { makePlan, type PlanOptions } from '../upgrade/plan';
import { formatPlanJson, formatPlanText } from '../upgrade/planReport';
import { rehearse } from '../upgrade/rehearsal';
import { rollbackUpgrade } from '../upgrade/rollback';

interface PlanFlags {
  dataDir: string;
  to?: string;
  set: string[];
  renewCerts?: boolean;
  writeOut: string;
}

interface ApplyFlags extends PlanFlags {
  timeout: string;
  force?: boolean;
  rehearse?: boolean;
  rehearseBadFlag?: boolean;
  probe: boolean;
}

type Out = (t: string) => void;

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function checkFormat(f: { writeOut: string }, err: Out): boolean {
  if (f.writeOut === 'table' || f.writeOut === 'json') return true;
  err(`Error: unsupported output format "${f.writeOut}" (table or json)\n`);
  return false;
}

function timeoutMs(text: string): number {
  const ms = parseGoDurationStrict(text);
  if (typeof ms === 'string') throw new Error(`--timeout: ${ms}`);
  if (ms <= 0) throw new Error(`--timeout must be positive, not ${text}`);
  return ms;
}

function planOptions(f: PlanFlags): PlanOptions {
  return { dataDir: f.dataDir, ...(f.to !== undefined && { to: f.to }), set: f.set, ...(f.renewCerts && { renewCerts: true }) };
}

export async function runUpgradePlan(f: PlanFlags, out: Out, err: Out): Promise<number> {
  if (!checkFormat(f, err)) return 1;
  try {
    const plan = await makePlan(planOptions(f));
    out(f.writeOut === 'json' ? formatPlanJson(plan) : formatPlanText(plan));
    return plan.refusals.length === 0 ? 0 : 1;
  } catch (e) {
    err(`Error: ${(e as Error).message}\n`);
    return 1;
  }
}

/** The apply command line without --rehearse, to offer the live run after a rehearsal. */
function liveCommand(f: ApplyFlags): string {
  return ['pilothouse upgrade apply', `--data-dir ${f.dataDir}`, ...(f.to ? [`--to ${f.to}`] : []), ...f.set.map((s) => `--set ${s}`), ...(f.renewCerts ? ['--renew-certs'] : []), `--timeout ${f.timeout}`].join(' ');
}

export async function runUpgradeApply(f: ApplyFlags, cliPath: string, out: Out, err: Out): Promise<number> {
  if (!checkFormat(f, err)) return 1;
  const json = f.writeOut === 'json';
  const log = (l: string) => (json ? err(`${l}\n`) : out(`${l}\n`));
  try {
    const timeout = timeoutMs(f.timeout);
    const plan = await makePlan(planOptions(f));
    if (f.rehearse || f.rehearseBadFlag) {
      const hard = plan.refusals.filter((r) => !plan.forceable.includes(r));
      if (hard.length > 0) {
        err(`Error: the plan refuses, so there is nothing to rehearse:\n${hard.map((r) => `  - ${r}`).join('\n')}\n`);
        return 1;
      }
      const report = await rehearse({ plan, cliPath: plan.currentCli ?? cliPath, timeoutMs: timeout, ...(f.rehearseBadFlag && { badFlag: true }), log });
      out(json ? `${JSON.stringify(report, null, 2)}\n` : formatRehearsalText(report, liveCommand(f)));
      // The bad-flag rehearsal succeeds when the failure was caught and undone.
      if (f.rehearseBadFlag) return report.apply?.components.some((c) => c.outcome === 'rolled-back') ? 0 : 1;
      return report.ok ? 0 : 1;
    }
    const plane = hostedPlane(f.dataDir);
    try {
      const report = await runApply({ plane, plan, timeoutMs: timeout, ...(f.force && { force: true }), probe: f.probe, log });
      out(json ? `${JSON.stringify(report, null, 2)}\n` : formatApplyText(report));
      return report.ok ? 0 : 1;
    } finally {
      plane.close();
    }
  } catch (e) {
    err(`Error: ${(e as Error).message}\n`);
    return 1;
  }
}

export async function runUpgradeRollback(f: { dataDir: string; timeout: string }, out: Out, err: Out): Promise<number> {
  try {
    const plane = hostedPlane(f.dataDir);
    try {
      const r = await rollbackUpgrade(plane, timeoutMs(f.timeout), (l) => out(`${l}\n`));
      if (!r.ok) for (const l of r.lines) err(`${l}\n`);
      return r.ok ? 0 : 1;
    } finally {
      plane.close();
    }
  } catch (e) {
    err(`Error: ${(e as Error).message}\n`);
    return 1;
  }
}

function targetOptions(c: Command): Command {
  return c
    .requiredOption('--data-dir <dir>', 'the cluster directory of a running `pilothouse up`')
    .option('--to <dir>', 'a directory holding another built Pilothouse (DIR/out/main/cli.js) to upgrade to')
    .option('--set <component.flag=value>', 'a flag change for every instance of a component (etcd, apiserver, controllers); repeatable', collect, [])
    .option('--renew-certs', 'renew every leaf certificate (new keys and serials, same CAs) and restart every component in turn to load them')
    .option('-w, --write-out <format>', 'table or json', 'table');
}

export function registerUpgradeCommand(program: Command, setExitCode: (code: number) => void, cliPath: string): void {
  const stdout = (t: string) => void process.stdout.write(t);
  const stderr = (t: string) => void process.stderr.write(t);
  const upgrade = program.command('upgrade').description('a rolling upgrade or reconfiguration of the plane on a data dir: plan, apply, rollback');
  targetOptions(
    upgrade.command('plan').description("each component's current and target build and flags, the version skew policy and the preflight checks; exit 0 when apply may go ahead"),
  ).action(async (f: PlanFlags) => setExitCode(await runUpgradePlan(f, stdout, stderr)));
  targetOptions(
    upgrade
      .command('apply')
      .description(
        'replace the components one at a time (members followers first, the leader last after move-leader; then the API server, the controllers, each node), ' +
          'each waited for until healthy and caught up, rolled back if not back within --timeout; runs the storage migration a flag change needs; measures availability',
      ),
  )
    .option('--timeout <duration>', 'how long each component may take to be back before it is rolled back', `${DEFAULT_TIMEOUT_MS / 60_000}m`)
    .option('--force', 'go ahead without a verified backup younger than an hour (the only check it passes)')
    .option('--rehearse', 'apply to a copy restored from the newest verified backup instead (the live plane is not changed), and report it')
    .option('--rehearse-bad-flag', `rehearse with a flag the first upgraded member refuses (its start fails), to see the failure caught and rolled back`)
    .option('--no-probe', 'do not write through etcd and the API server during the apply to measure availability')
    .action(async (f: ApplyFlags) => setExitCode(await runUpgradeApply(f, cliPath, stdout, stderr)));
  upgrade
    .command('rollback')
    .description('give every component an apply upgraded its previous program and flags again, while the cluster is mixed')
    .requiredOption('--data-dir <dir>', 'the cluster directory of a running `pilothouse up`')
    .option('--timeout <duration>', 'how long each component may take to be back', `${DEFAULT_TIMEOUT_MS / 60_000}m`)
    .action(async (f: { dataDir: string; timeout: string }) => setExitCode(await runUpgradeRollback(f, stdout, stderr)));
}

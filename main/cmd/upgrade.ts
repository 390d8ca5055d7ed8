// `pilothouse upgrade plan`: what a rolling upgrade of the plane under a data
// dir to another build (--to DIR) and/or flag settings (--set) would do, and
// whether apply may go ahead (main/upgrade/plan.ts). Exit 0 when it may, 1
// when it would refuse or the plan cannot be made.

import type { Command } from 'commander';
import { makePlan } from '../upgrade/plan';
import { formatPlanJson, formatPlanText } from '../upgrade/planReport';

interface PlanFlags {
  dataDir: string;
  to?: string;
  set: string[];
  writeOut: string;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export async function runUpgradePlan(f: PlanFlags, out: (t: string) => void, err: (t: string) => void): Promise<number> {
  if (f.writeOut !== 'table' && f.writeOut !== 'json') {
    err(`Error: unsupported output format "${f.writeOut}" (table or json)\n`);
    return 1;
  }
  try {
    const plan = await makePlan({ dataDir: f.dataDir, ...(f.to !== undefined && { to: f.to }), set: f.set });
    out(f.writeOut === 'json' ? formatPlanJson(plan) : formatPlanText(plan));
    return plan.refusals.length === 0 ? 0 : 1;
  } catch (e) {
    err(`Error: ${(e as Error).message}\n`);
    return 1;
  }
}

export function registerUpgradeCommand(program: Command, setExitCode: (code: number) => void): void {
  const upgrade = program.command('upgrade').description('plan a rolling upgrade or reconfiguration of the plane on a data dir');
  upgrade
    .command('plan')
    .description("each component's current and target build and flags, the version skew policy and the preflight checks; exit 0 when apply may go ahead")
    .requiredOption('--data-dir <dir>', 'the cluster directory of a running `pilothouse up`')
    .option('--to <dir>', 'a directory holding another built Pilothouse (DIR/out/main/cli.js) to upgrade to')
    .option('--set <component.flag=value>', 'a flag change for every instance of a component (etcd, apiserver, controllers); repeatable', collect, [])
    .option('-w, --write-out <format>', 'table or json', 'table')
    .action(async (f: PlanFlags) => setExitCode(await runUpgradePlan(f, (t) => void process.stdout.write(t), (t) => void process.stderr.write(t))));
}

// `pilothouse backup drill FILE --data-dir DIR [-w json]` and
// `pilothouse backup restore FILE --data-dir DIR [--yes] [-w json]`: the
// restore drill and the disaster recovery (main/backup/drill*.ts,
// recovery*.ts), each run as its walkthrough through the same engine as the
// console, printed headless; the run's report goes to DIR/walkthroughs/.
// Registered under `pilothouse backup` by backup.ts.

import { resolve, join } from 'node:path';
import type { Command } from 'commander';
import { WalkthroughEngine } from '../walkthrough/engine';
import { runHeadless } from '../walkthrough/headless';
import { drillWalkthrough } from '../backup/drillWalkthrough';
import type { DrillReport } from '../backup/drill';
import { restoreWalkthrough } from '../backup/restoreWalkthrough';
import { UpHostPlane } from '../backup/recoveryHost';

type SetExitCode = (code: number) => void;

interface CommonFlags {
  dataDir: string;
  writeOut?: string;
}

function checkFormat(w: string | undefined): boolean {
  if (w === undefined || w === 'simple' || w === 'json') return true;
  process.stderr.write(`Error: unknown output format ${JSON.stringify(w)} (simple or json)\n`);
  return false;
}

/** A sink for the headless printer when only the JSON document goes to stdout. */
const nowhere = { write: () => true } as unknown as NodeJS.WritableStream;

export async function runBackupDrill(file: string, flags: CommonFlags & { portBase?: string }, cliPath: string): Promise<number> {
  if (!checkFormat(flags.writeOut)) return 1;
  const dataDir = resolve(flags.dataDir);
  const json = flags.writeOut === 'json';
  let report: DrillReport | undefined;
  const engine = new WalkthroughEngine({ dir: join(dataDir, 'walkthroughs'), definitions: [drillWalkthrough({ cliPath, onReport: (r) => (report = r) })] });
  try {
    const portBase = flags.portBase !== undefined ? Number(flags.portBase) : undefined;
    if (portBase !== undefined && (!Number.isInteger(portBase) || portBase < 1024 || portBase > 65_000)) {
      process.stderr.write(`Error: --port-base must be an integer in 1024..65000, got ${flags.portBase}\n`);
      return 1;
    }
    const code = await runHeadless(engine, 'drill', { file: resolve(file), dataDir, ...(portBase !== undefined ? { portBase } : {}) }, { out: json ? nowhere : process.stdout, err: process.stderr });
    if (json) process.stdout.write(`${JSON.stringify(report ?? { file, verdict: 'failed' }, null, 2)}\n`);
    else if (report) process.stdout.write(report.verdict === 'restorable' ? `restorable: RTO ${report.rtoMs} ms\n` : `not restorable: ${report.reason}\n`);
    return code === 0 && report?.verdict === 'restorable' ? 0 : 1;
  } finally {
    engine.dispose();
  }
}

export async function runBackupRestore(file: string, flags: CommonFlags & { yes?: boolean; bumpRevision?: string }, cliPath: string): Promise<number> {
  if (!checkFormat(flags.writeOut)) return 1;
  const dataDir = resolve(flags.dataDir);
  let bumpRevision: number | undefined;
  if (flags.bumpRevision !== undefined) {
    bumpRevision = Number(flags.bumpRevision);
    if (!/^\d+$/.test(flags.bumpRevision) || bumpRevision <= 0 || !Number.isSafeInteger(bumpRevision)) {
      process.stderr.write(`Error: --bump-revision must be a positive integer, got ${flags.bumpRevision}\n`);
      return 1;
    }
  }
  let plane: UpHostPlane;
  try {
    plane = UpHostPlane.forDataDir(dataDir, cliPath);
  } catch (err) {
    process.stderr.write(`Error: ${(err as Error).message}\n`);
    return 1;
  }
  const engine = new WalkthroughEngine({ dir: join(dataDir, 'walkthroughs'), definitions: [restoreWalkthrough({ plane: () => plane })] });
  try {
    return await runHeadless(engine, 'restore', { file: resolve(file), dataDir, ...(bumpRevision !== undefined ? { bumpRevision } : {}) }, { out: process.stdout, err: process.stderr, json: flags.writeOut === 'json', yes: flags.yes === true });
  } finally {
    engine.dispose();
    plane.closeClients();
  }
}

/** Adds `drill` and `restore` to `pilothouse backup`. */
export function registerBackupDrillCommands(backup: Command, setExitCode: SetExitCode, cliPath: string): void {
  backup
    .command('drill <file>')
    .description(
      'prove that a snapshot restores, without touching the live cluster: restore it into a scratch 3-member cluster on free ports, ' +
        'start a scratch API server on it, compare key counts with the snapshot, list every resource, measure RTO and RPO, tear it all down ' +
        'and record the verdict in <file>.json (exit 0: restorable)',
    )
    .requiredOption('--data-dir <dir>', 'the live control plane\'s directory (read only: RPO; runs are reported under <dir>/walkthroughs)')
    .option('-w, --write-out <format>', 'simple or json (the drill report)', 'simple')
    .option('--port-base <port>', 'first of the 7 ports of the scratch cluster (default: a free block)')
    .action(async (file: string, opts: CommonFlags & { portBase?: string }) => setExitCode(await runBackupDrill(file, opts, cliPath)));
  backup
    .command('restore <file>')
    .description(
      'disaster recovery: stop the controllers, the API server and the members, restore every member into a new cluster with revisions ' +
        'bumped past the live cluster\'s and marked compacted, then start the members, the API server and the controllers. ' +
        'The plane must be run by `pilothouse up --data-dir <dir>` (or not run at all): its host (DIR/controlplane.pid) gets SIGTERM, ' +
        'and the same `up` command line is started again detached, its output in <dir>/logs/up.log. A plane hosted by the console is ' +
        'restored from the console. The old data dirs are set aside and put back if anything fails.',
    )
    .requiredOption('--data-dir <dir>', 'the control plane\'s directory')
    .option('--yes', 'confirm the destructive step without asking')
    .option('--bump-revision <n>', 'revisions to add (default: those written since the snapshot + 10000)')
    .option('-w, --write-out <format>', 'simple or json (the run record)', 'simple')
    .action(async (file: string, opts: CommonFlags & { yes?: boolean; bumpRevision?: string }) => setExitCode(await runBackupRestore(file, opts, cliPath)));
}

// `pilothouse backup save|list|verify`: backups of a cluster run by
// `pilothouse up` (or the console) on DIR. `save` runs the backup walkthrough
// (main/backup/backupWalkthrough.ts) through the walkthrough engine headless,
// printing the same steps the console shows and leaving a report under
// DIR/walkthroughs/; with --schedule it keeps running, taking a backup on
// each cron tick and keeping the newest --retention scheduled ones, as k3s
// does, until SIGINT or SIGTERM. Errors are etcdctl's style: "Error: …" on
// stderr, exit code 1.

import { join, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { backupWalkthrough, BACKUP_KIND, factLines, factsVerdict, kubernetesWarning, type BackupParams } from '../backup/backupWalkthrough';
import { backupFileName, formatBackupJson, formatBackupTable, listBackups } from '../backup/catalog';
import { dataDirAccess } from '../backup/clusterAccess';
import { parseCron } from '../backup/cron';
import { BackupScheduler } from '../backup/scheduler';
import { inspectSnapshot } from '../backup/inspect';
import { DEFAULT_RETENTION } from '../backup/retention';
import { intOption } from '../common/intOption';
import { WalkthroughEngine } from '../walkthrough/engine';
import { runHeadless } from '../walkthrough/headless';
import { registerBackupDrillCommands } from './backupDrill';

/** k3s's defaults: every 12 hours, 5 kept. */
export const DEFAULT_SCHEDULE = '0 */12 * * *';

export interface SaveFlags {
  dataDir: string;
  member?: string;
  out?: string;
  schedule?: string | boolean;
  retention?: number;
  writeOut: string;
}

type Out = (text: string) => void;

function fail(err: unknown, stderr: Out): number {
  stderr(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
  return 1;
}

function checkFormat(w: string, allowed: string[]): void {
  if (!allowed.includes(w)) throw new Error(`unknown output format ${JSON.stringify(w)} (${allowed.join(', ')})`);
}

/** DIR/snapshots: where the console keeps its snapshots too. */
export function backupDir(dataDir: string): string {
  return join(dataDir, 'snapshots');
}

function engineFor(dataDir: string): WalkthroughEngine {
  const access = dataDirAccess(dataDir);
  return new WalkthroughEngine({ dir: join(dataDir, 'walkthroughs'), definitions: [backupWalkthrough({ address: access.address, connect: () => access.connect() })] });
}

export async function runBackupSave(flags: SaveFlags, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): Promise<number> {
  const err: Out = (t) => void stderr.write(t);
  let engine: WalkthroughEngine;
  const dataDir = resolve(flags.dataDir);
  try {
    checkFormat(flags.writeOut, ['simple', 'json']);
    if (flags.schedule !== undefined && flags.out !== undefined) throw new Error('--out names one file; scheduled backups go to DIR/snapshots, one file per run');
    if (flags.retention !== undefined && flags.schedule === undefined) throw new Error('--retention prunes scheduled backups: it needs --schedule');
    engine = engineFor(dataDir);
  } catch (e) {
    return fail(e, err);
  }
  const mine = new Set<string>();
  engine.subscribe((run) => mine.add(run.id)); // only this engine's own runs are announced
  const json = flags.writeOut === 'json';
  const params = (source: BackupParams['source'], file: string): BackupParams => ({
    file,
    source,
    dataDir,
    ...(flags.member !== undefined ? { member: flags.member } : {}),
    ...(source === 'schedule' ? { retention: flags.retention ?? DEFAULT_RETENTION } : {}),
  });
  try {
    if (flags.schedule === undefined) {
      const file = resolve(flags.out ?? join(backupDir(dataDir), backupFileName(new Date())));
      // SIGINT cancels through runHeadless; SIGTERM must too, or the process
      // would die with FILE.part on disk
      const onTerm = () => {
        stderr.write('pilothouse: SIGTERM: cancelling the backup\n');
        cancelLive(engine, mine);
      };
      process.on('SIGTERM', onTerm);
      try {
        return await runHeadless(engine, BACKUP_KIND, params('save', file), { out: stdout, err: stderr, json });
      } finally {
        process.off('SIGTERM', onTerm);
      }
    }
    return await runSchedule(engine, typeof flags.schedule === 'string' ? flags.schedule : DEFAULT_SCHEDULE, (at) => params('schedule', join(backupDir(dataDir), backupFileName(at))), mine, stdout, stderr, json);
  } catch (e) {
    return fail(e, err);
  } finally {
    engine.dispose();
  }
}

/** Backups on each tick of the schedule until SIGINT/SIGTERM; a failed one is reported and the next tick tries again. */
async function runSchedule(
  engine: WalkthroughEngine,
  expr: string,
  paramsAt: (at: Date) => BackupParams,
  mine: Set<string>,
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream,
  json: boolean,
): Promise<number> {
  let signalled: (sig: NodeJS.Signals) => void = () => undefined;
  const stopped = new Promise<NodeJS.Signals>((res) => (signalled = res));
  const scheduler = new BackupScheduler({
    schedule: expr,
    onNext: (at) => stderr.write(`pilothouse: next backup at ${at.toISOString()}\n`),
    tick: async () => {
      const code = await runHeadless(engine, BACKUP_KIND, paramsAt(new Date()), { out: stdout, err: stderr, json, handleSigint: false });
      if (code !== 0) stderr.write('pilothouse: this scheduled backup did not succeed; the schedule goes on\n');
    },
  });
  const onSignal = (sig: NodeJS.Signals) => {
    cancelLive(engine, mine); // its step removes the partial file
    signalled(sig);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    stderr.write(`pilothouse: backups on schedule "${expr}", keeping ${paramsAt(new Date()).retention} scheduled backups\n`);
    scheduler.start();
    const sig = await stopped;
    stderr.write(`pilothouse: ${sig}: stopping the backup schedule\n`);
    await scheduler.stop();
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** Cancels the runs this process started that have not ended (never another process's: the list holds those too). */
function cancelLive(engine: WalkthroughEngine, mine: Set<string>): void {
  for (const id of mine) {
    const run = engine.get(id);
    if (run && (run.state === 'running' || run.state === 'waiting' || run.state === 'paused')) engine.cancel(id);
  }
}

export function runBackupList(dataDir: string, writeOut: string, stdout: Out, stderr: Out): number {
  try {
    checkFormat(writeOut, ['table', 'json']);
    const entries = listBackups(backupDir(resolve(dataDir)));
    stdout(writeOut === 'json' ? formatBackupJson(entries) : formatBackupTable(entries));
    return 0;
  } catch (e) {
    return fail(e, stderr);
  }
}

export function runBackupVerify(file: string, writeOut: string, stdout: Out, stderr: Out): number {
  try {
    checkFormat(writeOut, ['simple', 'json']);
    const facts = inspectSnapshot(file);
    const warning = kubernetesWarning(facts);
    if (writeOut === 'json') stdout(`${JSON.stringify({ ...facts, ...(warning ? { warning } : {}) })}\n`);
    else {
      for (const line of factLines(facts)) if (!line.startsWith('warning: ')) stdout(`${line}\n`);
      stdout(`${factsVerdict(facts)}\n`);
    }
    if (warning) stderr(`Warning: ${warning}\n`);
    return 0;
  } catch (e) {
    return fail(e, stderr);
  }
}

function retentionOption(v: string): number {
  return intOption('--retention', 1, 10_000)(v);
}

function scheduleOption(v: string): string {
  try {
    parseCron(v);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
  return v;
}

/** Adds `backup save|list|verify` (and the drill/restore subcommands) to the pilothouse program. */
export function registerBackupCommand(program: Command, setExitCode: (code: number) => void, cliPath: string): void {
  const stdout: Out = (t) => void process.stdout.write(t);
  const stderr: Out = (t) => void process.stderr.write(t);
  const backup = program.command('backup').description('take, list and verify backups of the cluster on a data dir (guided: preflight, snapshot, verify, store)');
  backup
    .command('save')
    .description('back up the cluster: preflight, snapshot from the leader, verify, store with metadata (a report goes to DIR/walkthroughs/)')
    .requiredOption('--data-dir <dir>', 'the cluster directory of `pilothouse up` (backups go to DIR/snapshots)')
    .option('--member <name>', 'stream the snapshot from this member (m1, m2, ...) instead of the leader')
    .option('--out <file>', 'write the snapshot to this file (default DIR/snapshots/<time>.db)')
    .option('--schedule [cron]', `keep running and back up on this cron schedule (5 fields or @every 30s; default "${DEFAULT_SCHEDULE}")`, scheduleOption)
    .option('--retention <n>', `with --schedule: scheduled backups to keep (default ${DEFAULT_RETENTION})`, retentionOption)
    .option('-w, --write-out <format>', 'simple (the steps as they run) or json (the final run record)', 'simple')
    .action(async (opts: SaveFlags) => setExitCode(await runBackupSave(opts, process.stdout, process.stderr)));
  backup
    .command('list')
    .description('list the backups in DIR/snapshots with their metadata (newest first)')
    .requiredOption('--data-dir <dir>', 'the cluster directory')
    .option('-w, --write-out <format>', 'table or json', 'table')
    .action((opts: { dataDir: string; writeOut: string }) => setExitCode(runBackupList(opts.dataDir, opts.writeOut, stdout, stderr)));
  backup
    .command('verify <file>')
    .description('check a snapshot file: sha256 integrity, hash, revision, total keys, keys per /registry resource, size')
    .option('-w, --write-out <format>', 'simple or json', 'simple')
    .action((file: string, opts: { writeOut: string }) => setExitCode(runBackupVerify(file, opts.writeOut, stdout, stderr)));
  registerBackupDrillCommands(backup, setExitCode, cliPath);
}

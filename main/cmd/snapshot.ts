// `pilothouse snapshot status|restore`: etcdctl 3.4's offline snapshot
// commands for snapshot files — bbolt files (ours or etcd 3.4's) and our older
// PHSNAP1 files (../etcd/snapshot/snapshotState.ts) — with etcdctl's flags, defaults, output and error text ("Error: …" on
// stderr, exit code 1).

import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { restoreSnapshot } from '../etcd/snapshot';
import { formatStatusJson, formatStatusSimple, formatStatusTable, snapshotStatus } from '../etcd/snapshot';

type Out = (text: string) => void;

export interface RestoreFlags {
  dataDir?: string;
  name: string;
  initialCluster: string;
  initialClusterToken: string;
  initialAdvertisePeerUrls: string;
  skipHashCheck?: boolean;
  /** etcdutl 3.5's --bump-revision, as commander hands it over (a string). */
  bumpRevision?: string;
  markCompacted?: boolean;
}

function fail(err: unknown, stderr: Out): number {
  stderr(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
  return 1;
}

export function runSnapshotStatus(file: string, writeOut: string, stdout: Out, stderr: Out): number {
  let st;
  try {
    st = snapshotStatus(readFileSync(file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return fail(new Error(`stat ${file}: no such file or directory`), stderr);
    return fail(err, stderr);
  }
  if (writeOut === 'json') stdout(formatStatusJson(st));
  else if (writeOut === 'table') stdout(formatStatusTable(st));
  else if (writeOut === 'simple') stdout(formatStatusSimple(st));
  else return fail(new Error(`unknown output format ${JSON.stringify(writeOut)}`), stderr);
  return 0;
}

export async function runSnapshotRestore(file: string, flags: RestoreFlags, stderr: Out): Promise<number> {
  const dataDir = flags.dataDir ?? `${flags.name}.etcd`;
  const where = `"path":${JSON.stringify(file)},"data-dir":${JSON.stringify(dataDir)}`;
  try {
    const bumpRevision = parseBump(flags.bumpRevision);
    stderr(`{"level":"info","msg":"restoring snapshot",${where}}\n`);
    const r = await restoreSnapshot({
      snapshotPath: file,
      dataDir,
      name: flags.name,
      initialCluster: flags.initialCluster,
      initialAdvertisePeerUrls: flags.initialAdvertisePeerUrls.split(',').filter((u) => u !== ''),
      initialClusterToken: flags.initialClusterToken,
      skipHashCheck: flags.skipHashCheck === true,
      bumpRevision,
      markCompacted: flags.markCompacted === true,
    });
    if (bumpRevision > 0) {
      stderr(`{"level":"info","msg":"bumped latest revision and marked it compacted",${where},"bump-amount":${bumpRevision},"new-latest-revision":${r.revision}}\n`);
    }
    stderr(
      `{"level":"info","msg":"restored snapshot",${where},"member-id":"${r.memberId.toString(16)}","cluster-id":"${r.clusterId.toString(16)}","revision":${r.revision}}\n`,
    );
    return 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return fail(new Error(`open ${file}: no such file or directory`), stderr);
    return fail(err, stderr);
  }
}

/** --bump-revision's value: Go's Uint64Var accepts a plain decimal. */
function parseBump(v: string | undefined): number {
  if (v === undefined) return 0;
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new Error(`invalid argument "${v}" for "--bump-revision" flag: a non-negative integer`);
  return Number(v);
}

/** Adds `snapshot status` and `snapshot restore` to the pilothouse program. */
export function registerSnapshotCommand(program: Command, setExitCode: (code: number) => void): void {
  const stdout: Out = (t) => void process.stdout.write(t);
  const stderr: Out = (t) => void process.stderr.write(t);
  const snapshot = program.command('snapshot').description('inspect and restore etcd snapshot files (as etcdctl snapshot)');
  snapshot
    .command('status <file>')
    .description('print HASH, REVISION, TOTAL KEYS, TOTAL SIZE of a snapshot file (checks its sha256)')
    .option('-w, --write-out <format>', 'simple, table or json', 'simple')
    .action((file: string, opts: { writeOut: string }) => setExitCode(runSnapshotStatus(file, opts.writeOut, stdout, stderr)));
  snapshot
    .command('restore <file>')
    .description('create a data dir for a new cluster member from a snapshot file')
    .option('--data-dir <dir>', 'directory to restore into (default "<name>.etcd"); must not exist')
    .option('--name <name>', 'human-readable name for this member', 'default')
    .option('--initial-cluster <list>', 'initial cluster configuration for restore bootstrap', 'default=http://localhost:2380')
    .option('--initial-cluster-token <token>', 'initial cluster token for the etcd cluster during restore bootstrap', 'etcd-cluster')
    .option('--initial-advertise-peer-urls <urls>', "list of this member's peer URLs to advertise", 'http://localhost:2380')
    .option('--skip-hash-check', 'ignore snapshot integrity hash value')
    .option('--bump-revision <n>', 'How much to increase the latest revision after restore (etcdutl 3.5)', '0')
    .option('--mark-compacted', 'Mark the latest revision after restore as the point of scheduled compaction (required if --bump-revision > 0, disallowed otherwise)')
    .action(async (file: string, opts: RestoreFlags) => setExitCode(await runSnapshotRestore(file, opts, stderr)));
}

// `pilothouse etcd [etcd flags]`: one etcd-compatible member, run the way
// etcd runs — flags (or ETCD_* env) in, "ready to serve client requests" in
// the log once serving, graceful stop and exit 0 on SIGTERM/SIGINT.

import { startMember } from '../etcd/server/index';
import { DATA_FORMAT, DataFormatError } from '../etcd/server/dataFormat';
import { TlsFileError } from '../etcd/server/tlsFiles';
import { etcdUsage, FlagError, parseEtcdFlags } from './etcdFlags';
import { BUILD_INFO, PILOTHOUSE_VERSION, shortCommit } from '../common/version';

/** Runs until a signal stops the member; returns the process exit code. */
export async function runEtcdCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseEtcdFlags(argv, process.env, (line) => process.stderr.write(`${line}\n`));
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    process.stderr.write(`${err.logPrefix}${err.message}\n`);
    if (err.showUsage) process.stderr.write(`${etcdUsage()}\n`);
    return err.exitCode;
  }
  if (parsed.kind === 'help') {
    process.stdout.write(`${etcdUsage()}\n`);
    return 0;
  }
  if (parsed.kind === 'version') {
    process.stdout.write(
      `pilothouse etcd Version: ${PILOTHOUSE_VERSION}\nGit SHA: ${shortCommit()}\nAPI: etcd 3.4 (v3 gRPC)\nData format: ${DATA_FORMAT}\nNode Version: ${process.version}\n`,
    );
    return 0;
  }
  for (const w of parsed.warnings) process.stderr.write(`${w}\n`);
  // etcd logs its version and build first thing; so does a member here.
  process.stderr.write(`etcdmain: pilothouse etcd Version: ${PILOTHOUSE_VERSION}\netcdmain: Git SHA: ${shortCommit()}\netcdmain: built: ${BUILD_INFO.buildDate}\netcdmain: Node Version: ${process.version}\n`);

  // Listen before starting, so a signal during startup still stops cleanly.
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  let member;
  try {
    member = await startMember(parsed.config);
  } catch (err) {
    if (!(err instanceof TlsFileError || err instanceof DataFormatError)) throw err;
    process.stderr.write(`etcdmain: ${err.message}\n`);
    return 1;
  }
  // A member removed from the cluster stops itself; etcd then exits 0.
  const signal = await Promise.race([signalled, member.closed.then(() => undefined)]);
  if (signal === undefined) return 0;
  process.stderr.write(`etcdmain: received ${signal} signal, shutting down...\n`);
  // A second signal while stopping means "now".
  const force = (): void => process.exit(1);
  process.once('SIGTERM', force);
  process.once('SIGINT', force);
  await member.stop();
  return 0;
}

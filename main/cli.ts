// `pilothouse`: every Pilothouse program behind one command, each started
// with the flags its real counterpart takes (see DESIGN.md §1).
//
// Each subcommand's code is imported only when that subcommand runs: a
// member (`pilothouse etcd`) must not pay for the Kubernetes client, CEL and
// the API server at start, since `up` and the console start three at once and
// the cluster is healthy only once they all are. The full program (every
// command, for --help and --version) is built only when no known subcommand
// is named.
//
// `pilothouse etcd` hands its arguments straight to the etcd flag parser:
// etcd's flags follow Go's rules (`-name m1`, `--name=m1`), which commander
// would reinterpret, so commander only lists it in the help.

import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { versionLine } from './common/version';

type SetExitCode = (code: number) => void;
type Register = (program: Command, setExitCode: SetExitCode, cliPath: string) => void;

/** The commander subcommands, each loading its module on demand. */
const SUBCOMMANDS: Record<string, () => Promise<Register>> = {
  up: async () => (await import('./cmd/up')).registerUpCommand,
  snapshot: async () => (await import('./cmd/snapshot')).registerSnapshotCommand,
  backup: async () => (await import('./cmd/backup')).registerBackupCommand,
  certs: async () => (await import('./cmd/certs')).registerCertsCommand,
  apiserver: async () => (await import('./cmd/apiserver')).registerApiServerCommand,
  controllers: async () => (await import('./cmd/controllers')).registerControllersCommand,
  'example-webhook': async () => (await import('./cmd/exampleWebhook')).registerExampleWebhookCommand,
  web: async () => (await import('./cmd/web')).registerWebCommand,
  upgrade: async () => (await import('./cmd/upgrade')).registerUpgradeCommand,
};

async function buildProgram(names: string[], setExitCode: SetExitCode): Promise<Command> {
  const program = new Command('pilothouse')
    .description('Pilothouse: an etcd-compatible Raft cluster and its operations console')
    .version(versionLine());

  program
    .command('etcd')
    .description('run one etcd-compatible member (etcd 3.4 flags; `pilothouse etcd --help` lists them)')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments();

  // In the build the subcommand modules sit in shared chunks, so their own
  // import.meta.url is not the entry script the children must run.
  const cliPath = fileURLToPath(import.meta.url);
  const registers = await Promise.all(names.map((name) => SUBCOMMANDS[name]!()));
  for (const register of registers) register(program, setExitCode, cliPath);
  return program;
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'etcd') return (await import('./cmd/etcd')).runEtcdCommand(argv.slice(1));
  const named = argv[0] !== undefined && Object.hasOwn(SUBCOMMANDS, argv[0]) ? [argv[0]] : Object.keys(SUBCOMMANDS);
  let code = 0;
  const program = await buildProgram(named, (c) => (code = c));
  await program.parseAsync(argv, { from: 'user' });
  return code;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`pilothouse: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);

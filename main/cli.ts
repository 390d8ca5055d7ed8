// `pilothouse`: every Pilothouse program behind one command, each started
// with the flags its real counterpart takes (see DESIGN.md §1).
//
// `pilothouse etcd` hands its arguments straight to the etcd flag parser:
// etcd's flags follow Go's rules (`-name m1`, `--name=m1`), which commander
// would reinterpret, so commander only lists it in the help.

import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import { runEtcdCommand } from './common/cli/etcdCommand';
import { registerSnapshotCommand } from './common/cli/snapshotCommand';
import { controllersProgram, runUpCommand, selfProgram } from './common/cli/upCommand';
import { registerApiServerCommand } from './common/cli/apiserverCommand';
import { registerControllersCommand } from './common/cli/controllersCommand';
import { registerExampleWebhookCommand } from './common/cli/exampleWebhookCommand';
import { apiServerProgram } from './common/cli/apiserverLayout';
import { PILOTHOUSE_VERSION } from './common/cli/version';
import { registerWebCommand } from './web/webCommand';

function intOption(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) throw new InvalidArgumentError(`${name} must be an integer in ${min}..${max}`);
    return n;
  };
}

function buildProgram(setExitCode: (code: number) => void): Command {
  const program = new Command('pilothouse')
    .description('Pilothouse: an etcd-compatible Raft cluster and its operations console')
    .version(PILOTHOUSE_VERSION);

  program
    .command('etcd')
    .description('run one etcd-compatible member (etcd 3.4 flags; `pilothouse etcd --help` lists them)')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments();

  program
    .command('up')
    .description('run a local cluster of members, the API server and the controllers (scheduler, controller manager, 3 simulated nodes) until Ctrl-C (clients on port-base+0,+2,+4, peers on +1,+3,+5, API server https on port-base+2n; DIR/kubeconfig)')
    .requiredOption('--data-dir <dir>', 'cluster directory: m1/, m2/, m3/, logs/, etcdctl.env')
    .option('--members <n>', 'number of members', intOption('--members', 1, 49), 3)
    .option('--port-base <port>', 'first port; members use [port-base, port-base+2n-1], the API server port-base+2n', intOption('--port-base', 1024, 65000), 2379)
    .option('--nodes <n>', 'simulated nodes the controllers run', intOption('--nodes', 0, 5000), 3)
    .option('--no-controllers', 'start the members and the API server only (no scheduler, controller manager or nodes)')
    .action(async (opts: { dataDir: string; members: number; portBase: number; nodes: number; controllers: boolean }) => {
      const cliPath = fileURLToPath(import.meta.url);
      const { controllers, ...up } = opts;
      setExitCode(await runUpCommand(up, selfProgram(cliPath), apiServerProgram(cliPath), controllers ? controllersProgram(cliPath) : undefined));
    });

  registerSnapshotCommand(program, setExitCode);
  registerApiServerCommand(program, setExitCode);
  registerControllersCommand(program, setExitCode);
  registerExampleWebhookCommand(program, setExitCode);
  registerWebCommand(program, setExitCode, fileURLToPath(import.meta.url));

  return program;
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'etcd') return runEtcdCommand(argv.slice(1));
  let code = 0;
  await buildProgram((c) => (code = c)).parseAsync(argv, { from: 'user' });
  return code;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`pilothouse: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);

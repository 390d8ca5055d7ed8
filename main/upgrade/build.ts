// A built Pilothouse as an upgrade sees it: where its `pilothouse` command
// is, and what it says about itself (version, commit, the data format its
// members read, the flags each component takes). Everything is asked of the
// build's own program, so a plan judges the target by what it really runs.

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type ComponentKind = 'etcd' | 'apiserver' | 'controllers';
export const COMPONENT_KINDS: readonly ComponentKind[] = ['etcd', 'apiserver', 'controllers'];

export interface Build {
  /** The build's out/main/cli.js. */
  cliPath: string;
  version: string;
  /** Short commit as the build prints it ("1a2b3c4", "1a2b3c4-dirty"). */
  commit: string;
  /** The newest member data format it reads. */
  dataFormat: number;
}

/** DIR/out/main/cli.js of a checkout or unpacked build; throws when DIR holds none. */
export function buildCli(dir: string): string {
  const cli = join(resolve(dir), 'out', 'main', 'cli.js');
  if (!existsSync(cli)) throw new Error(`no built Pilothouse in ${dir} (want ${cli}; run npm run build there)`);
  return cli;
}

async function say(cliPath: string, args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [cliPath, ...args], { timeout: 20_000, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
  return stdout;
}

/** Asks the build for its version, commit and data format. */
export async function readBuild(cliPath: string): Promise<Build> {
  const [top, etcd] = await Promise.all([say(cliPath, ['--version']), say(cliPath, ['etcd', '--version'])]);
  // "0.2.0 (commit 1a2b3c4, built …)"; builds from before builds were reported print the version alone.
  const m = /^(\S+)(?: \(commit (\S+), built [^)]*\))?$/.exec(top.trim());
  if (!m) throw new Error(`${cliPath} --version printed ${JSON.stringify(top.trim())}: not a Pilothouse build this one understands`);
  // Builds from before data formats were recorded read format 1.
  const format = /^Data format: (\d+)$/m.exec(etcd);
  return { cliPath, version: m[1]!, commit: m[2] ?? 'unknown', dataFormat: format ? Number(format[1]) : 1 };
}

/** The long flags a component of the build accepts, from its --help. */
export async function componentFlags(cliPath: string, kind: ComponentKind): Promise<Set<string>> {
  const help = await say(cliPath, [kind, '--help']);
  return new Set([...help.matchAll(/^\s+(?:-[a-zA-Z], )?--([a-z0-9][a-z0-9-]*)/gm)].map((x) => x[1]!));
}

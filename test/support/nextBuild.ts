// A second build for the upgrade tests: this tree built as the next minor
// version into DIR/out, with the node_modules and resources it needs
// symlinked beside it, as `--to DIR` expects a built Pilothouse.

import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { parseSemver } from '../../main/upgrade/skew';
import { CLI_JS } from './cluster';

const repo = join(import.meta.dirname, '..', '..');

/** The version this checkout's build reports (`pilothouse --version`). */
export function currentVersion(): string {
  return /^(\S+) /.exec(execFileSync(process.execPath, [CLI_JS, '--version'], { encoding: 'utf8' }))![1]!;
}

/** Builds this tree as the next minor version into dir; returns that version. */
export function buildNextMinor(dir: string): string {
  const v = parseSemver(currentVersion())!;
  const next = `${v.major}.${v.minor + 1}.0`;
  execFileSync('npx', ['electron-vite', 'build', '--outDir', join(dir, 'out')], { cwd: repo, env: { ...process.env, PILOTHOUSE_BUILD_VERSION: next }, stdio: 'ignore', timeout: 120_000 });
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
  symlinkSync(join(repo, 'resources'), join(dir, 'resources'));
  return next;
}

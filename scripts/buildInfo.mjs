// What a build says about itself (main/common/version.ts reads it through
// the __PILOTHOUSE_BUILD__ define): the version from package.json, or
// PILOTHOUSE_BUILD_VERSION to build the same tree as another version; the
// commit and whether the tree had changes; when it was built. Outside a git
// checkout the commit is "unknown".

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function git(args) {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

export function buildInfo() {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const commit = git(['rev-parse', 'HEAD']);
  const status = commit === undefined ? undefined : git(['status', '--porcelain', '--untracked-files=no']);
  return {
    version: process.env.PILOTHOUSE_BUILD_VERSION || pkg.version,
    commit: commit ?? 'unknown',
    treeState: status === undefined ? 'unknown' : status === '' ? 'clean' : 'dirty',
    buildDate: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}

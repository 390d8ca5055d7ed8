// The program's version and build, kept in one place (package.json is not
// shipped next to out/main when the app is packaged). The build
// (electron.vite.config.ts, and vitest.config.ts for the sources) defines
// __PILOTHOUSE_BUILD__ from scripts/buildInfo.mjs.

declare const __PILOTHOUSE_BUILD__: BuildInfo | undefined;

export interface BuildInfo {
  /** Semantic version ("0.1.0"). */
  version: string;
  /** The git commit built, 40 hex digits, or "unknown". */
  commit: string;
  /** "clean", "dirty" (uncommitted changes were built) or "unknown". */
  treeState: string;
  /** RFC 3339, seconds. */
  buildDate: string;
}

export const BUILD_INFO: BuildInfo =
  typeof __PILOTHOUSE_BUILD__ !== 'undefined' ? __PILOTHOUSE_BUILD__ : { version: '0.0.0-dev', commit: 'unknown', treeState: 'unknown', buildDate: '1970-01-01T00:00:00Z' };

export const PILOTHOUSE_VERSION = BUILD_INFO.version;

/** The commit as people quote it: 7 digits, "-dirty" when uncommitted changes were built. */
export function shortCommit(info: BuildInfo = BUILD_INFO): string {
  const c = /^[0-9a-f]{40}$/.test(info.commit) ? info.commit.slice(0, 7) : info.commit;
  return info.treeState === 'dirty' ? `${c}-dirty` : c;
}

/** "0.1.0 (commit 1a2b3c4)", as `pilothouse --version` prints it. */
export function versionLine(info: BuildInfo = BUILD_INFO): string {
  return `${info.version} (commit ${shortCommit(info)}, built ${info.buildDate})`;
}

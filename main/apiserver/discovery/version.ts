// GET /version: kube's version.Info. kubectl parses gitVersion as a semantic
// version and fails the command if it cannot, so it is v1.32.0 with a
// pre-release tag naming Pilothouse's own version (valid semver; kubectl 1.32
// sees no minor skew).

import { BUILD_INFO, PILOTHOUSE_VERSION } from '../../common/version';

export const KUBE_MAJOR = '1';
export const KUBE_MINOR = '32';
export const GIT_VERSION = `v${KUBE_MAJOR}.${KUBE_MINOR}.0-pilothouse.${PILOTHOUSE_VERSION}`;

export function versionInfo(): Record<string, string> {
  return {
    major: KUBE_MAJOR,
    minor: KUBE_MINOR,
    gitVersion: GIT_VERSION,
    // The Pilothouse build's, as kube's are its own build's.
    gitCommit: BUILD_INFO.commit,
    gitTreeState: BUILD_INFO.treeState,
    buildDate: BUILD_INFO.buildDate,
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

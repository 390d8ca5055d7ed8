// What one Pod Security check is (k8s.io/pod-security-admission/policy
// checks.go): an ID, the level it belongs to, and one implementation per
// policy version it changed in. A restricted check may override baseline
// checks it makes redundant (restrictedVolumes replaces hostPathVolumes), so
// a restricted pod is not told the same thing twice.

import type { Version } from './api';
import type { PodMetadata, PodSpec } from './podSpec';

export interface CheckResult {
  allowed: boolean;
  /** Short and always shown: "host namespaces", "privileged". */
  forbiddenReason?: string;
  /** The specifics, shown in parentheses for a single pod: `container "a" must not set ...`. */
  forbiddenDetail?: string;
}

export type CheckPodFn = (meta: PodMetadata, spec: PodSpec) => CheckResult;

export interface VersionedCheck {
  /** The first policy version this implementation applies to. */
  minimumVersion: Version;
  checkPod: CheckPodFn;
  /** Baseline check IDs this restricted check replaces at this version. */
  overrideCheckIDs?: string[];
}

export interface Check {
  id: string;
  level: 'baseline' | 'restricted';
  /** Strictly increasing minimumVersion. */
  versions: VersionedCheck[];
}

export const ALLOWED: CheckResult = { allowed: true };

export function forbid(reason: string, detail: string): CheckResult {
  return { allowed: false, forbiddenReason: reason, forbiddenDetail: detail };
}

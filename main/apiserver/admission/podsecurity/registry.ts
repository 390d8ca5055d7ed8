// The evaluator (pod-security-admission/policy/registry.go): which checks run
// for a level at a policy version, in which order, and how their findings
// join into one message. Per version: baseline runs the baseline checks;
// restricted runs the restricted checks plus every baseline check none of
// them overrides. Order is by check ID, baseline first, so messages are
// stable ("privileged (...), allowPrivilegeEscalation != false (...)").
// Versions newer than the newest check (v1.33, latest) evaluate as that
// newest version (1.32: the sysctls list).

import { older, type LevelVersion, type Version } from './api';
import type { Check, CheckPodFn, CheckResult, VersionedCheck } from './check';
import { BASELINE_CHECKS } from './checksBaseline';
import { RESTRICTED_CHECKS } from './checksRestricted';
import { byteOrder, type PodMetadata, type PodSpec } from './podSpec';

export interface Evaluator {
  evaluatePod(lv: LevelVersion, meta: PodMetadata, spec: PodSpec): CheckResult[];
}

/** The versioned implementation of a check in force at version v, if the check exists then. */
function versionAt(check: Check, v: Version): VersionedCheck | undefined {
  let found: VersionedCheck | undefined;
  for (const vc of check.versions) if (!older(v, vc.minimumVersion)) found = vc;
  return found;
}

function maxMinimumVersion(checks: Check[]): Version {
  let max: Version = { latest: false, major: 1, minor: 0 };
  for (const c of checks) {
    const last = c.versions[c.versions.length - 1].minimumVersion;
    if (older(max, last)) max = last;
  }
  return max;
}

export function newEvaluator(checks: Check[] = [...BASELINE_CHECKS, ...RESTRICTED_CHECKS]): Evaluator {
  const ids = new Set<string>();
  for (const c of checks) {
    if (ids.has(c.id)) throw new Error(`multiple checks registered for ID ${c.id}`);
    ids.add(c.id);
  }
  const baseline = checks.filter((c) => c.level === 'baseline').sort((a, b) => byteOrder(a.id, b.id));
  const restricted = checks.filter((c) => c.level === 'restricted').sort((a, b) => byteOrder(a.id, b.id));
  const maxVersion = maxMinimumVersion(checks);
  const cache = new Map<string, CheckPodFn[]>();

  const checksFor = (level: 'baseline' | 'restricted', v: Version): CheckPodFn[] => {
    const key = `${level}:${v.latest ? 'latest' : v.minor}`;
    const hit = cache.get(key);
    if (hit) return hit;
    const restrictedAt = level === 'restricted' ? restricted.map((c) => versionAt(c, v)).filter((vc): vc is VersionedCheck => !!vc) : [];
    const overridden = new Set(restrictedAt.flatMap((vc) => vc.overrideCheckIDs ?? []));
    const fns = [
      ...baseline.filter((c) => !overridden.has(c.id)).map((c) => versionAt(c, v)?.checkPod),
      ...restrictedAt.map((vc) => vc.checkPod),
    ].filter((f): f is CheckPodFn => !!f);
    cache.set(key, fns);
    return fns;
  };

  return {
    evaluatePod(lv, meta, spec) {
      if (lv.level === 'privileged') return [];
      const v = older(maxVersion, lv.version) ? maxVersion : lv.version;
      return checksFor(lv.level, v).map((check) => check(meta, spec));
    },
  };
}

export interface AggregateCheckResult {
  allowed: boolean;
  forbiddenReasons: string[];
  forbiddenDetails: string[];
}

export function aggregateCheckResults(results: CheckResult[]): AggregateCheckResult {
  const reasons: string[] = [];
  const details: string[] = [];
  for (const r of results) {
    if (r.allowed) continue;
    reasons.push(r.forbiddenReason || 'unknown forbidden reason');
    details.push(r.forbiddenDetail ?? '');
  }
  return { allowed: reasons.length === 0, forbiddenReasons: reasons, forbiddenDetails: details };
}

/** "host ports, privileged" — the short form, used per pod when a namespace's level changes. */
export function forbiddenReason(a: AggregateCheckResult): string {
  return a.forbiddenReasons.join(', ');
}

/** "hostPort (container "a" uses hostPort 80), privileged (...)" — the form a single object's message uses. */
export function forbiddenDetail(a: AggregateCheckResult): string {
  return a.forbiddenReasons.map((r, i) => (a.forbiddenDetails[i] ? `${r} (${a.forbiddenDetails[i]})` : r)).join(', ');
}

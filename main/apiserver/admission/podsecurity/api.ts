// Pod Security levels, policy versions and the namespace labels that pick
// them (k8s.io/pod-security-admission/api): `pod-security.kubernetes.io/
// {enforce,audit,warn}` = privileged | baseline | restricted and the
// matching `-version` labels = latest | v1.N. A namespace always resolves to
// a usable policy, even with bad labels: the errors come back beside it
// (fail closed for enforce, open for audit and warn), so a pod in a
// mislabelled namespace is still judged and the label error is audited.

import type { FieldError } from '../../api/status';

export type Level = 'privileged' | 'baseline' | 'restricted';

export const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];

/** A policy version: v1.N, or latest (newer than every numbered version, even future ones). */
export type Version = { latest: true } | { latest: false; major: number; minor: number };

export const LATEST: Version = { latest: true };

export function majorMinor(major: number, minor: number): Version {
  return { latest: false, major, minor };
}

export function versionString(v: Version): string {
  return v.latest ? 'latest' : `v${v.major}.${v.minor}`;
}

/** True when a is older than b (latest is never older). */
export function older(a: Version, b: Version): boolean {
  if (a.latest) return false;
  if (b.latest) return true;
  return a.major !== b.major ? a.major < b.major : a.minor < b.minor;
}

export function sameVersion(a: Version, b: Version): boolean {
  return versionString(a) === versionString(b);
}

export interface LevelVersion {
  level: Level;
  version: Version;
}

/** "restricted:latest", "baseline:v1.29" — the form every message quotes. */
export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${versionString(lv.version)}`;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && sameVersion(a.version, b.version);
}

/** Both privileged (the version then means nothing), or equal level and version. */
export function equivalentLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return (a.level === 'privileged' && b.level === 'privileged') || sameLevelVersion(a, b);
}

export interface Policy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

export function fullyPrivileged(p: Policy): boolean {
  return p.enforce.level === 'privileged' && p.audit.level === 'privileged' && p.warn.level === 'privileged';
}

export function equivalentPolicy(a: Policy, b: Policy): boolean {
  return equivalentLevelVersion(a.enforce, b.enforce) && equivalentLevelVersion(a.audit, b.audit) && equivalentLevelVersion(a.warn, b.warn);
}

export const LABEL_PREFIX = 'pod-security.kubernetes.io/';
export const ENFORCE_LEVEL_LABEL = `${LABEL_PREFIX}enforce`;
export const ENFORCE_VERSION_LABEL = `${LABEL_PREFIX}enforce-version`;
export const AUDIT_LEVEL_LABEL = `${LABEL_PREFIX}audit`;
export const AUDIT_VERSION_LABEL = `${LABEL_PREFIX}audit-version`;
export const WARN_LEVEL_LABEL = `${LABEL_PREFIX}warn`;
export const WARN_VERSION_LABEL = `${LABEL_PREFIX}warn-version`;

/** Audit annotation keys; the plugin prefixes each with `pod-security.kubernetes.io/`. */
export const AUDIT_ANNOTATION_PREFIX = LABEL_PREFIX;
export const EXEMPTION_REASON_ANNOTATION = 'exempt';
export const AUDIT_VIOLATIONS_ANNOTATION = 'audit-violations';
export const ENFORCED_POLICY_ANNOTATION = 'enforce-policy';

export type Parsed<T> = { value: T; error?: string };

/** ParseLevel: an unknown level reads as restricted, with kube's error text. */
export function parseLevel(level: string): Parsed<Level> {
  if ((LEVELS as readonly string[]).includes(level)) return { value: level as Level };
  return { value: 'restricted', error: `must be one of ${LEVELS.join(', ')}` };
}

const VERSION_RE = /^v1\.([0-9]|[1-9][0-9]*)$/;

/** ParseVersion: "latest" or "v1.N"; anything else reads as latest, with kube's error text. */
export function parseVersion(version: string): Parsed<Version> {
  if (version === 'latest') return { value: LATEST };
  const m = VERSION_RE.exec(version);
  const minor = m ? Number(m[1]) : NaN;
  if (!m || !Number.isSafeInteger(minor)) return { value: LATEST, error: 'must be "latest" or "v1.x"' };
  return { value: majorMinor(1, minor) };
}

export const PRIVILEGED_LATEST: LevelVersion = { level: 'privileged', version: LATEST };

export const DEFAULT_POLICY: Policy = { enforce: PRIVILEGED_LATEST, audit: PRIVILEGED_LATEST, warn: PRIVILEGED_LATEST };

/**
 * PolicyToEvaluate: the namespace's labels over the configured defaults.
 * Errors are field errors on metadata.labels[<label>] (the namespace
 * validation message and the pods' `error` audit annotation quote them).
 */
export function policyToEvaluate(labels: Record<string, string> | undefined, defaults: Policy): { policy: Policy; errors: FieldError[] } {
  const p: Policy = { enforce: { ...defaults.enforce }, audit: { ...defaults.audit }, warn: { ...defaults.warn } };
  const errors: FieldError[] = [];
  if (!labels) return { policy: p, errors };
  const note = (label: string, value: string, error: string | undefined): void => {
    if (error) errors.push({ type: 'FieldValueInvalid', field: `metadata.labels[${label}]`, badValue: value, detail: error });
  };
  const modes = [
    { mode: 'enforce', level: ENFORCE_LEVEL_LABEL, version: ENFORCE_VERSION_LABEL, failOpen: false },
    { mode: 'audit', level: AUDIT_LEVEL_LABEL, version: AUDIT_VERSION_LABEL, failOpen: true },
    { mode: 'warn', level: WARN_LEVEL_LABEL, version: WARN_VERSION_LABEL, failOpen: true },
  ] as const;
  let hasEnforceLevel = false;
  for (const m of modes) {
    const lv = p[m.mode];
    const level = labels[m.level];
    if (typeof level === 'string') {
      const parsed = parseLevel(level);
      // Enforce fails closed (restricted); audit and warn fail open (privileged).
      lv.level = parsed.error && m.failOpen ? 'privileged' : parsed.value;
      if (m.mode === 'enforce') hasEnforceLevel = !parsed.error;
      note(m.level, level, parsed.error);
    }
    const version = labels[m.version];
    if (typeof version === 'string') {
      const parsed = parseVersion(version);
      lv.version = parsed.value;
      note(m.version, version, parsed.error);
    }
  }
  // An explicit enforce level stricter than warn also warns (so workloads,
  // which enforce never refuses, still hear about it): warn defaults to it.
  if (!(WARN_LEVEL_LABEL in labels) && hasEnforceLevel && compareLevels(p.enforce.level, p.warn.level) > 0) {
    p.warn.level = p.enforce.level;
    if (!(WARN_VERSION_LABEL in labels)) p.warn.version = p.enforce.version;
  }
  return { policy: p, errors };
}

/** CompareLevels: 0 when equal, -1 when a is less strict than b, +1 when stricter. */
export function compareLevels(a: Level, b: Level): number {
  return Math.sign(LEVELS.indexOf(a) - LEVELS.indexOf(b));
}

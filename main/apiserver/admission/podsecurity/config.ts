// The PodSecurity plugin's configuration (PodSecurityConfiguration,
// pod-security.admission.config.k8s.io/v1, also v1beta1 and v1alpha1 in
// 1.32), from --admission-control-config-file: the cluster-wide default
// levels for namespaces without labels, and exemptions by username,
// namespace and runtime class. Unset defaults are privileged:latest.
// Invalid configuration stops the server with kube's aggregate message.

import { parse as parseYaml } from 'yaml';
import { fieldErrorBody, type FieldError } from '../../api/status';
import { parseLevel, parseVersion, type Policy } from './api';

export const POD_SECURITY_CONFIG_GROUP = 'pod-security.admission.config.k8s.io';
const API_VERSIONS = ['v1', 'v1beta1', 'v1alpha1'].map((v) => `${POD_SECURITY_CONFIG_GROUP}/${v}`);

export interface PodSecurityConfiguration {
  defaults: { enforce: string; 'enforce-version': string; audit: string; 'audit-version': string; warn: string; 'warn-version': string };
  exemptions: { usernames: string[]; namespaces: string[]; runtimeClasses: string[] };
}

export interface LoadedConfig {
  config: PodSecurityConfiguration;
  defaultPolicy: Policy;
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function strings(v: unknown, path: string): string[] {
  if (v == null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new Error(`${path}: must be a list of strings`);
  return v as string[];
}

function str(v: unknown, fallback: string, path: string): string {
  if (v == null) return fallback;
  if (typeof v !== 'string') throw new Error(`${path}: must be a string`);
  return v;
}

/** ValidatePodSecurityConfiguration's field errors. */
export function validateConfig(c: PodSecurityConfiguration): FieldError[] {
  const errs: FieldError[] = [];
  for (const mode of ['enforce', 'warn', 'audit'] as const) {
    const level = c.defaults[mode];
    const l = parseLevel(level);
    if (l.error) errs.push({ type: 'FieldValueInvalid', field: `defaults.${mode}`, badValue: level, detail: l.error });
    const version = c.defaults[`${mode}-version`];
    const v = parseVersion(version);
    if (v.error) errs.push({ type: 'FieldValueInvalid', field: `defaults.${mode}-version`, badValue: version, detail: v.error });
  }
  const unique = (list: string[], path: string, check: (s: string) => FieldError | undefined): void => {
    const seen = new Set<string>();
    list.forEach((s, i) => {
      const bad = check(s);
      if (bad) errs.push({ ...bad, field: `${path}[${i}]` });
      else if (seen.has(s)) errs.push({ type: 'FieldValueDuplicate', field: `${path}[${i}]`, badValue: s });
      else seen.add(s);
    });
  };
  unique(c.exemptions.namespaces, 'exemptions.namespaces', (s) =>
    s.length > 63 || !DNS1123_LABEL.test(s)
      ? {
          type: 'FieldValueInvalid',
          field: '',
          badValue: s,
          detail:
            s.length > 63
              ? 'must be no more than 63 characters'
              : "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        }
      : undefined,
  );
  unique(c.exemptions.runtimeClasses, 'exemptions.runtimeClasses', (s) =>
    s.length > 253 || !DNS1123_SUBDOMAIN.test(s)
      ? {
          type: 'FieldValueInvalid',
          field: '',
          badValue: s,
          detail:
            s.length > 253
              ? 'must be no more than 253 characters'
              : "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        }
      : undefined,
  );
  unique(c.exemptions.usernames, 'exemptions.usernames', (s) => (s === '' ? { type: 'FieldValueRequired', field: '' } : undefined));
  return errs;
}

/**
 * The plugin's configuration: undefined (kube's built-in defaults), a
 * PodSecurityConfiguration object, or its YAML/JSON text. Throws with
 * kube's message when it does not load or validate.
 */
export function loadConfig(raw: unknown): LoadedConfig {
  let obj: Record<string, unknown> = {};
  if (typeof raw === 'string') obj = (parseYaml(raw) ?? {}) as Record<string, unknown>;
  else if (raw != null) {
    if (typeof raw !== 'object' || Array.isArray(raw)) throw new Error('PodSecurity configuration error: expected a PodSecurityConfiguration object');
    obj = raw as Record<string, unknown>;
  }
  if (raw != null) {
    const apiVersion = obj.apiVersion;
    const kind = obj.kind;
    if (kind !== 'PodSecurityConfiguration' || typeof apiVersion !== 'string' || !API_VERSIONS.includes(apiVersion)) {
      throw new Error(`PodSecurity configuration error: expected PodSecurityConfiguration, got ${String(apiVersion ?? '')}, Kind=${String(kind ?? '')}`);
    }
  }
  const d = (obj.defaults ?? {}) as Record<string, unknown>;
  const e = (obj.exemptions ?? {}) as Record<string, unknown>;
  const config: PodSecurityConfiguration = {
    defaults: {
      enforce: str(d.enforce, 'privileged', 'defaults.enforce'),
      'enforce-version': str(d['enforce-version'], 'latest', 'defaults.enforce-version'),
      audit: str(d.audit, 'privileged', 'defaults.audit'),
      'audit-version': str(d['audit-version'], 'latest', 'defaults.audit-version'),
      warn: str(d.warn, 'privileged', 'defaults.warn'),
      'warn-version': str(d['warn-version'], 'latest', 'defaults.warn-version'),
    },
    exemptions: {
      usernames: strings(e.usernames, 'exemptions.usernames'),
      namespaces: strings(e.namespaces, 'exemptions.namespaces'),
      runtimeClasses: strings(e.runtimeClasses, 'exemptions.runtimeClasses'),
    },
  };
  const errs = validateConfig(config);
  if (errs.length > 0) {
    const agg = errs.map((x) => `${x.field}: ${fieldErrorBody(x)}`);
    throw new Error(`PodSecurity invalid: ${agg.length === 1 ? agg[0] : `[${agg.join(', ')}]`}`);
  }
  const lv = (mode: 'enforce' | 'audit' | 'warn') => ({ level: parseLevel(config.defaults[mode]).value, version: parseVersion(config.defaults[`${mode}-version`]).value });
  return { config, defaultPolicy: { enforce: lv('enforce'), audit: lv('audit'), warn: lv('warn') } };
}

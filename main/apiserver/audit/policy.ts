// The audit policy (audit.k8s.io/v1 Policy): which requests are logged and at
// what level. Loading and validation follow k8s.io/apiserver
// pkg/audit/policy/reader.go and pkg/apis/audit/validation (same field paths
// and messages); evaluation is pkg/audit/policy/checker.go: the first rule
// that matches decides, no match is level None. A rule matches when every
// criterion it sets matches:
//   users          the user's name is listed
//   userGroups     one of the user's groups is listed
//   verbs          the request verb is listed
//   namespaces / resources   a resource request; namespace listed ("" =
//                  cluster scope); a resources entry of the request's group
//                  with no resources, or listing "<r>", "<r>/<sub>", "*",
//                  "*/<sub>" or "<r>/*" (each limited to resourceNames when set)
//   nonResourceURLs a non-resource request whose path equals one, or starts
//                  with one ending in "*", or "*"

import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { fieldErrorBody, type FieldError } from '../api/status';
import { invalid, notSupported, required } from '../api/validation/field';
import { isDNS1123Subdomain } from '../api/validation/names';

export type Level = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type Stage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export const LEVELS: Level[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
export const STAGES: Stage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

export interface GroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

export interface PolicyRule {
  level: Level;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

export interface Policy {
  rules: PolicyRule[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

/** What a request is audited with (kube's RequestAuditConfig). */
export interface AuditConfig {
  level: Level;
  omitStages: Stage[];
  omitManagedFields: boolean;
}

/** The request attributes rules look at (a subset of authorizer.Attributes). */
export interface PolicyAttributes {
  user?: { username: string; groups: string[] };
  verb: string;
  isResourceRequest: boolean;
  path: string;
  namespace: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  name: string;
}

const POLICY_VERSIONS = ['audit.k8s.io/v1', 'audit.k8s.io/v1beta1', 'audit.k8s.io/v1alpha1'];

/** LoadPolicyFromFile, wrapped as kube-apiserver reports it ("loading audit policy file: ..."). */
export function loadPolicyFile(path: string): Policy {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`loading audit policy file: failed to read file path ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
  try {
    return parsePolicy(text);
  } catch (err) {
    throw new Error(`loading audit policy file: ${(err as Error).message}: from file ${path}`);
  }
}

type Rec = Record<string, unknown>;
const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.map(String) : undefined);

/** LoadPolicyFromBytes: decode, check the group version, validate, require at least one rule. */
export function parsePolicy(text: string): Policy {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new Error(`failed decoding: error converting YAML to JSON: ${(err as Error).message}`);
  }
  const d = (typeof doc === 'object' && doc !== null ? doc : {}) as Rec;
  if (typeof d.kind !== 'string' || d.kind === '') throw new Error(`failed decoding: Object 'Kind' is missing in '${text.trim()}'`);
  if (!POLICY_VERSIONS.includes(String(d.apiVersion)) || d.kind !== 'Policy') {
    throw new Error(`failed decoding: no kind ${JSON.stringify(d.kind)} is registered for version ${JSON.stringify(d.apiVersion ?? '')} in scheme "k8s.io/apiserver/pkg/audit/scheme.go:30"`);
  }
  const policy: Policy = {
    rules: (Array.isArray(d.rules) ? d.rules : []).map((r) => {
      const rr = (r ?? {}) as Rec;
      return {
        level: String(rr.level ?? '') as Level,
        users: strings(rr.users),
        userGroups: strings(rr.userGroups),
        verbs: strings(rr.verbs),
        resources: Array.isArray(rr.resources)
          ? rr.resources.map((g) => {
              const gg = (g ?? {}) as Rec;
              return { group: gg.group === undefined ? '' : String(gg.group), resources: strings(gg.resources), resourceNames: strings(gg.resourceNames) };
            })
          : undefined,
        namespaces: strings(rr.namespaces),
        nonResourceURLs: strings(rr.nonResourceURLs),
        omitStages: strings(rr.omitStages) as Stage[] | undefined,
        omitManagedFields: typeof rr.omitManagedFields === 'boolean' ? rr.omitManagedFields : undefined,
      };
    }),
    omitStages: strings(d.omitStages) as Stage[] | undefined,
    omitManagedFields: d.omitManagedFields === true,
  };
  const errs = validatePolicy(policy);
  if (errs.length > 0) {
    const msgs = [...new Set(errs.map((e) => `${e.field}: ${fieldErrorBody(e)}`))];
    throw new Error(msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`);
  }
  if (policy.rules.length === 0) throw new Error('loaded illegal policy with 0 rules');
  return policy;
}

export function validatePolicy(p: Policy): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...validateOmitStages(p.omitStages, 'omitStages'));
  p.rules.forEach((r, i) => {
    const path = `rules[${i}]`;
    if (!r.level) errs.push(required(`${path}.level`, ''));
    else if (!LEVELS.includes(r.level)) errs.push(notSupported(`${path}.level`, r.level, LEVELS));
    (r.nonResourceURLs ?? []).forEach((url, j) => {
      if (url === '*') return;
      if (!url.startsWith('/')) errs.push(invalid(`${path}.nonResourceURLs[${j}]`, url, "non-resource URL rules must begin with a '/' character"));
      if (url !== '' && url.slice(0, -1).includes('*')) errs.push(invalid(`${path}.nonResourceURLs[${j}]`, url, "non-resource URL wildcards '*' must be the final character of the rule"));
    });
    for (const gr of r.resources ?? []) {
      if (gr.group) {
        const msgs = isDNS1123Subdomain(gr.group);
        if (msgs.length > 0) errs.push(invalid(`${path}.resources.group`, gr.group, msgs.join(',')));
      }
      if ((gr.resourceNames ?? []).length > 0 && (gr.resources ?? []).length === 0) {
        errs.push(invalid(`${path}.resources.resourceNames`, gr.resourceNames, 'using resourceNames requires at least one resource'));
      }
    }
    errs.push(...validateOmitStages(r.omitStages, `${path}.omitStages`));
    if ((r.nonResourceURLs ?? []).length > 0 && ((r.resources ?? []).length > 0 || (r.namespaces ?? []).length > 0)) {
      errs.push(invalid(`${path}.nonResourceURLs`, r.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
  });
  return errs;
}

function validateOmitStages(stages: string[] | undefined, path: string): FieldError[] {
  return (stages ?? []).flatMap((s, i) => (STAGES.includes(s as Stage) ? [] : [invalid(`${path}[${i}]`, s, `allowed stages are ${STAGES.join(',')}`)]));
}

/** NewChecker + EvaluatePolicyRule: each rule's omitStages joined with the policy's. */
export class PolicyChecker {
  constructor(private readonly policy: Policy) {}

  evaluate(a: PolicyAttributes): AuditConfig {
    const base = this.policy.omitStages ?? [];
    for (const r of this.policy.rules) {
      if (ruleMatches(r, a)) {
        return {
          level: r.level,
          omitStages: [...new Set([...base, ...(r.omitStages ?? [])])],
          omitManagedFields: r.omitManagedFields ?? this.policy.omitManagedFields ?? false,
        };
      }
    }
    return { level: 'None', omitStages: base, omitManagedFields: false };
  }
}

export function ruleMatches(r: PolicyRule, a: PolicyAttributes): boolean {
  if (r.users?.length && (!a.user || !r.users.includes(a.user.username))) return false;
  if (r.userGroups?.length && (!a.user || !a.user.groups.some((g) => r.userGroups!.includes(g)))) return false;
  if (r.verbs?.length && !r.verbs.includes(a.verb)) return false;
  if (r.namespaces?.length || r.resources?.length) return resourceMatches(r, a);
  if (r.nonResourceURLs?.length) return !a.isResourceRequest && r.nonResourceURLs.some((spec) => pathMatches(a.path, spec));
  return true;
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function resourceMatches(r: PolicyRule, a: PolicyAttributes): boolean {
  if (!a.isResourceRequest) return false;
  if (r.namespaces?.length && !r.namespaces.includes(a.namespace)) return false;
  if (!r.resources?.length) return true;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  for (const gr of r.resources) {
    if ((gr.group ?? '') !== a.apiGroup) continue;
    if (!gr.resources?.length) return true;
    for (const res of gr.resources) {
      if (gr.resourceNames?.length && !gr.resourceNames.includes(a.name)) continue;
      if (res === combined || res === '*') return true;
      if (a.subresource && res.startsWith('*/') && a.subresource === res.slice(2)) return true;
      if (res.endsWith('/*') && a.resource === res.slice(0, -2)) return true;
    }
  }
  return false;
}

export function levelAtLeast(l: Level, min: Level): boolean {
  return LEVELS.indexOf(l) >= LEVELS.indexOf(min);
}

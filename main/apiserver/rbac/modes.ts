// --authorization-mode: the authorizer chain in the order given, behind
// kube's unconditional first authorizer that allows the system:masters group
// (the admin kubeconfig and the server's own loopback identity). Also the
// union rule resolver behind SelfSubjectRulesReview.

import type { UserInfo } from '../authn/user';
import type { Authorizer } from '../authz/authorizer';
import { goQuotedList } from './policyRule';
import type { RuleResolvingAuthorizer, RulesInfo } from './rbacAuthorizer';

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export const SUPPORTED_MODES = ['AlwaysAllow', 'AlwaysDeny', 'RBAC', 'Node'] as const;
export type AuthorizationMode = (typeof SUPPORTED_MODES)[number];

export const SYSTEM_PRIVILEGED_GROUP = 'system:masters';

/** authorizerfactory.NewPrivilegedGroups(system:masters): allows members, no opinion otherwise. */
export const privilegedGroups: Authorizer = {
  name: 'system:masters',
  authorize: (a) => (a.user.groups.includes(SYSTEM_PRIVILEGED_GROUP) ? { decision: 'allow' } : { decision: 'noOpinion' }),
};

export const alwaysAllowAuthorizer: RuleResolvingAuthorizer = {
  name: 'AlwaysAllow',
  authorize: () => ({ decision: 'allow' }),
  rulesFor: () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
};

/** kube's alwaysDenyAuthorizer answers "no opinion" with this reason (so the 403 ends with it). */
export const alwaysDenyAuthorizer: RuleResolvingAuthorizer = {
  name: 'AlwaysDeny',
  authorize: () => ({ decision: 'noOpinion', reason: 'Everything is forbidden.' }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};

/**
 * Parses the flag's comma list as kube validates it: each mode known, none
 * repeated, at least one. Throws with kube's wording.
 */
export function parseAuthorizationModes(value: string): AuthorizationMode[] {
  const modes = value
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '');
  if (modes.length === 0) throw new Error('at least one authorization-mode must be passed');
  const seen = new Set<string>();
  for (const m of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(m)) throw new Error(`authorization-mode ${JSON.stringify(m)} is not a valid mode`);
    if (!(SUPPORTED_MODES as readonly string[]).includes(m)) throw new Error(`authorization-mode ${JSON.stringify(m)} is not supported by pilothouse (supported: ${SUPPORTED_MODES.join(', ')})`);
    seen.add(m);
  }
  if (seen.size !== modes.length) throw new Error(`authorization-mode ${goQuotedList(modes)} has mode specified more than once`);
  return modes as AuthorizationMode[];
}

/** kube's union RuleResolver: rules concatenated, incomplete if any says so, errors joined. */
export async function unionRulesFor(resolvers: RuleResolvingAuthorizer[], user: UserInfo, namespace: string): Promise<RulesInfo> {
  const out: RulesInfo = { resourceRules: [], nonResourceRules: [], incomplete: false };
  const errors: string[] = [];
  for (const r of resolvers) {
    const got = await r.rulesFor(user, namespace);
    out.resourceRules.push(...got.resourceRules);
    out.nonResourceRules.push(...got.nonResourceRules);
    out.incomplete ||= got.incomplete;
    if (got.error) errors.push(got.error);
  }
  if (errors.length === 1) out.error = errors[0];
  else if (errors.length > 1) out.error = `[${[...new Set(errors)].join(', ')}]`;
  return out;
}

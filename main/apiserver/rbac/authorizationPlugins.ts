// What --authorization-mode turns into: the authorizer chain (system:masters
// first, then the modes in order), the access-review resources answered by
// that chain, and — when RBAC is on — the escalation checks on the four RBAC
// resources and the rbac/bootstrap-roles post-start hook. One
// AuthorizationState per server env holds what these share (the RBAC policy
// mirror, the Node graph), so each is built once.

import type { Authorizer } from '../authz/authorizer';
import type { ServerEnv } from '../serverEnv';
import type { ServerPlugins } from '../serverPlugins';
import { accessReviewResources } from './accessReviews';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, privilegedGroups, unionRulesFor, type AuthorizationMode } from './modes';
import { PolicyCache } from './policyCache';
import { rbacAuthorizer, type RuleResolvingAuthorizer } from './rbacAuthorizer';

export interface AuthorizationState {
  authorizers: Authorizer[];
  resolvers: RuleResolvingAuthorizer[];
  policy?: PolicyCache;
}

/** Modes implemented outside this directory (Node), built here so this file stays the one place that orders the chain. */
export type ModeFactory = (env: ServerEnv, state: AuthorizationState) => RuleResolvingAuthorizer;

export function buildAuthorization(env: ServerEnv, modes: AuthorizationMode[], extra: Partial<Record<AuthorizationMode, ModeFactory>> = {}): AuthorizationState {
  const state: AuthorizationState = { authorizers: [privilegedGroups], resolvers: [] };
  for (const mode of modes) {
    let a: RuleResolvingAuthorizer;
    if (extra[mode]) a = extra[mode]!(env, state);
    else if (mode === 'AlwaysAllow') a = alwaysAllowAuthorizer;
    else if (mode === 'AlwaysDeny') a = alwaysDenyAuthorizer;
    else if (mode === 'RBAC') {
      state.policy ??= new PolicyCache(env);
      a = rbacAuthorizer(state.policy);
    } else throw new Error(`authorization mode ${mode} has no implementation`);
    state.authorizers.push(a);
    state.resolvers.push(a);
  }
  return state;
}

/**
 * The chain and the access reviews for the given modes; stateOf gives the
 * per-env shared state to the pieces added beside them (escalation checks).
 */
export function authorizationPlugins(
  modes: AuthorizationMode[],
  extra: Partial<Record<AuthorizationMode, ModeFactory>> = {},
): { plugins: Pick<ServerPlugins, 'authorizers' | 'extraResources'>; stateOf: (env: ServerEnv) => AuthorizationState } {
  const states = new WeakMap<ServerEnv, AuthorizationState>();
  const stateOf = (env: ServerEnv): AuthorizationState => {
    let s = states.get(env);
    if (!s) {
      s = buildAuthorization(env, modes, extra);
      states.set(env, s);
    }
    return s;
  };
  return {
    stateOf,
    plugins: {
      authorizers: (env) => stateOf(env).authorizers,
      extraResources: [(env) => accessReviewResources({ authorize: (attrs) => env.authorize(attrs), rulesFor: (user, ns) => unionRulesFor(stateOf(env).resolvers, user, ns) })],
    },
  };
}

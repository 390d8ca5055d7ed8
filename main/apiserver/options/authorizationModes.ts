// --authorization-mode applied to an ApiServerConfig: the chain (Node and
// RBAC included), the access reviews, and with RBAC the escalation checks
// and the rbac/bootstrap-roles hook. Kept apart from the flag (authorization.ts)
// so tests can configure a server without commander.

import type { ApiServerConfig } from '../config';
import { nodeMode } from '../nodeauthz/nodeMode';
import { authorizationPlugins } from '../rbac/authorizationPlugins';
import { bootstrapRolesHook } from '../rbac/bootstrap/bootstrapHook';
import { escalationChecks } from '../rbac/escalation';
import { parseAuthorizationModes } from '../rbac/modes';
import { PolicyCache } from '../rbac/policyCache';

export function applyAuthorizationModes(value: string, cfg: ApiServerConfig): void {
  const modes = parseAuthorizationModes(value);
  const { plugins, stateOf } = authorizationPlugins(modes, { Node: (env) => nodeMode(env) });
  cfg.plugins ??= {};
  cfg.plugins.authorizers = plugins.authorizers;
  cfg.plugins.extraResources = [...(cfg.plugins.extraResources ?? []), ...(plugins.extraResources ?? [])];
  if (modes.includes('RBAC')) {
    // kube installs the policybased RBAC storage and the bootstrap hook whenever RBAC is a mode.
    cfg.plugins.decorateResources = [
      ...(cfg.plugins.decorateResources ?? []),
      (env) => {
        const state = stateOf(env);
        state.policy ??= new PolicyCache(env);
        return escalationChecks({ lister: state.policy, authorize: (attrs) => env.authorize(attrs) });
      },
    ];
    cfg.plugins.postStartHooks = [...(cfg.plugins.postStartHooks ?? []), bootstrapRolesHook()];
  }
}

// --authorization-mode applied to an ApiServerConfig: the chain, the access
// reviews, and with RBAC the escalation checks and the bootstrap hook; with
// Node the node authorizer. Kept apart from options/ so tests can build a
// configured server without commander.

import type { ApiServerConfig } from '../apiserver';
import { authorizationPlugins, type ModeFactory } from './authorizationPlugins';
import { parseAuthorizationModes, type AuthorizationMode } from './modes';

/** Sibling features (Node authorizer, escalation checks, bootstrap hook) hook in here. */
export const modeFactories: Partial<Record<AuthorizationMode, ModeFactory>> = {};

export function applyAuthorizationModes(value: string, cfg: ApiServerConfig): void {
  const modes = parseAuthorizationModes(value);
  const { plugins } = authorizationPlugins(modes, modeFactories);
  cfg.plugins ??= {};
  cfg.plugins.authorizers = plugins.authorizers;
  cfg.plugins.extraResources = [...(cfg.plugins.extraResources ?? []), ...(plugins.extraResources ?? [])];
}

// kube-apiserver's authorization flags: --authorization-mode (comma list of
// AlwaysAllow, AlwaysDeny, RBAC, Node; default AlwaysAllow). RBAC brings the
// escalation checks on roles and bindings and the rbac/bootstrap-roles hook.

import type { ApiServerOptionGroup } from './optionGroup';
import { applyAuthorizationModes } from './authorizationModes';

export const authorizationOptions: ApiServerOptionGroup = {
  name: 'authorization',
  register(cmd) {
    cmd.option('--authorization-mode <modes>', 'ordered list of plug-ins to do authorization on secure port: AlwaysAllow, AlwaysDeny, RBAC, Node', 'AlwaysAllow');
  },
  apply(flags, cfg) {
    const value = String(flags.authorizationMode ?? 'AlwaysAllow');
    try {
      applyAuthorizationModes(value, cfg);
    } catch (err) {
      throw new Error(`--authorization-mode: ${(err as Error).message}`);
    }
  },
};

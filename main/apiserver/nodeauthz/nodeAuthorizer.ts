// kube's Node authorizer (plugin/pkg/auth/authorizer/node): requests from
// kubelets (user system:node:<name> in group system:nodes) may read only the
// secrets, configmaps and claims of pods bound to their node, create tokens
// only for those pods' service accounts, and touch only their own lease;
// everything else is checked against the static system:node rules. Anyone
// else: no opinion. Reasons are kube's texts (a 403 quotes them).
//
// Not modelled: the AuthorizeNodeWithSelectors refinements (list/watch of
// pods and nodes restricted by field selector), persistent volumes, volume
// attachments, CSINodes and ResourceSlices beyond their static rules —
// Pilothouse serves none of those resources or selectors to kubelets.

import type { AuthorizationAttributes, Decision } from '../authz/authorizer';
import type { RuleResolvingAuthorizer, RulesInfo } from '../rbac/rbacAuthorizer';
import { rulesAllow, type PolicyRule } from '../rbac/policyRule';
import type { NodeGraph, RefType } from './nodeGraph';

type Result = { decision: Decision; reason?: string };

const NODE_USER_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** nodeidentifier.NodeIdentity: the node name, or undefined when not a node. */
export function nodeIdentity(user: { username: string; groups: string[] }): string | undefined {
  if (!user.username.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  return user.username.slice(NODE_USER_PREFIX.length);
}

const noOpinion = (reason: string): Result => ({ decision: 'noOpinion', reason });
const allow: Result = { decision: 'allow' };

export interface NodeAuthorizerDeps {
  graph: () => Promise<NodeGraph>;
  nodeRules: PolicyRule[];
}

export function nodeAuthorizer(deps: NodeAuthorizerDeps): RuleResolvingAuthorizer {
  const relationship = async (node: string, type: RefType, a: AuthorizationAttributes): Promise<Result> => {
    if (!a.name) return noOpinion('No Object name found');
    const g = await deps.graph();
    return g.hasPath(node, type, a.namespace, a.name) ? allow : noOpinion(`no relationship found between node '${node}' and this object`);
  };

  const readNamespaced = (node: string, type: RefType, a: AuthorizationAttributes): Promise<Result> | Result => {
    if (!['get', 'list', 'watch'].includes(a.verb)) return noOpinion('can only read resources of this type');
    if (a.subresource) return noOpinion('cannot read subresource');
    if (!a.namespace) return noOpinion('can only read namespaced object of this type');
    return relationship(node, type, a);
  };

  return {
    name: 'Node',
    async authorize(a): Promise<Result> {
      const node = nodeIdentity(a.user);
      if (node === undefined) return { decision: 'noOpinion' };
      if (node === '') return noOpinion(`unknown node for user ${JSON.stringify(a.user.username)}`);
      if (a.isResourceRequest && a.apiGroup === '') {
        switch (a.resource) {
          case 'secrets':
            return readNamespaced(node, 'secrets', a);
          case 'configmaps':
            return readNamespaced(node, 'configmaps', a);
          case 'persistentvolumeclaims':
            if (a.subresource === 'status') {
              if (a.verb !== 'update' && a.verb !== 'patch') return noOpinion('can only get/update/patch this type');
              return relationship(node, 'persistentvolumeclaims', a);
            }
            if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
            if (a.subresource) return noOpinion('cannot get subresource');
            return relationship(node, 'persistentvolumeclaims', a);
          case 'persistentvolumes':
            if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
            if (a.subresource) return noOpinion('cannot get subresource');
            return a.name ? noOpinion(`no relationship found between node '${node}' and this object`) : noOpinion('No Object name found');
          case 'serviceaccounts':
            if (a.verb !== 'create' || !a.name) return noOpinion('can only create tokens for individual service accounts');
            if (a.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
            return relationship(node, 'serviceaccounts', a);
        }
      }
      if (a.isResourceRequest && a.apiGroup === 'coordination.k8s.io' && a.resource === 'leases') {
        if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
        if (a.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the ${JSON.stringify(NODE_LEASE_NAMESPACE)} system namespace`);
        if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access node lease with the same name as the requesting node');
        return allow;
      }
      return rulesAllow(a, deps.nodeRules) ? allow : { decision: 'noOpinion' };
    },
    rulesFor(user): RulesInfo {
      if (nodeIdentity(user) !== undefined) return { resourceRules: [], nonResourceRules: [], incomplete: true, error: 'node authorizer does not support user rule resolution' };
      return { resourceRules: [], nonResourceRules: [], incomplete: false };
    },
  };
}

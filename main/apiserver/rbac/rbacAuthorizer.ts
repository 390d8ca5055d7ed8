// kube's RBACAuthorizer: allow when any rule that applies to the user (via a
// ClusterRoleBinding, or a RoleBinding in the request's namespace) allows the
// request; the reason names the binding. Otherwise no opinion — with no
// reason unless a binding's role could not be resolved
// (`RBAC: clusterrole.rbac.authorization.k8s.io "x" not found`), exactly
// what kube's 403 then quotes.

import type { UserInfo } from '../authn/user';
import type { AuthorizationAttributes, Authorizer, Decision } from '../authz/authorizer';
import { ruleAllows } from './policyRule';
import { aggregateMessage, rulesFor, visitRulesFor, type PolicyLister } from './ruleResolver';

export interface ResourceRuleInfo {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
}

export interface NonResourceRuleInfo {
  verbs: string[];
  nonResourceURLs: string[];
}

/** authorizer.RuleResolver's answer (SelfSubjectRulesReview). */
export interface RulesInfo {
  resourceRules: ResourceRuleInfo[];
  nonResourceRules: NonResourceRuleInfo[];
  incomplete: boolean;
  /** The resolution errors' text, when any. */
  error?: string;
}

/** An authorizer that can also list what a user may do (kube's authorizer.RuleResolver). */
export interface RuleResolvingAuthorizer extends Authorizer {
  rulesFor(user: UserInfo, namespace: string): Promise<RulesInfo> | RulesInfo;
}

export interface RbacSource extends PolicyLister {
  ready(): Promise<void>;
}

export function rbacAuthorizer(source: RbacSource): RuleResolvingAuthorizer {
  let synced = false;
  const sync = async (): Promise<void> => {
    if (synced) return;
    await source.ready();
    synced = true;
  };
  return {
    name: 'RBAC',
    async authorize(a: AuthorizationAttributes): Promise<{ decision: Decision; reason?: string }> {
      await sync();
      let reason: string | undefined;
      const errors: Error[] = [];
      visitRulesFor(source, a.user, a.namespace, (describe, rule, err) => {
        if (rule && ruleAllows(a, rule)) {
          reason = `RBAC: allowed by ${describe!()}`;
          return false;
        }
        if (err) errors.push(err);
        return true;
      });
      if (reason) return { decision: 'allow', reason };
      return errors.length ? { decision: 'noOpinion', reason: `RBAC: ${aggregateMessage(errors)}` } : { decision: 'noOpinion' };
    },
    async rulesFor(user, namespace) {
      await sync();
      const { rules, errors } = rulesFor(source, user, namespace);
      const out: RulesInfo = { resourceRules: [], nonResourceRules: [], incomplete: false };
      for (const r of rules) {
        if ((r.resources ?? []).length > 0) out.resourceRules.push({ verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources ?? [], resourceNames: r.resourceNames ?? [] });
        if ((r.nonResourceURLs ?? []).length > 0) out.nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs ?? [] });
      }
      if (errors.length) out.error = aggregateMessage(errors);
      return out;
    },
  };
}

// Which rules apply to a user in a namespace (kube's DefaultRuleResolver,
// pkg/registry/rbac/validation/rule.go): every ClusterRoleBinding naming the
// user, then — for a namespaced request — every RoleBinding in that
// namespace; each binding's Role/ClusterRole gives its rules. A binding
// whose role is missing yields an error instead of rules (rules only add,
// so what was found still counts). Sources are described exactly as kube
// describes them, because the RBAC authorizer's allow reason quotes them.

import type { UserInfo } from '../authn/user';
import type { PolicyRule } from './policyRule';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

export interface RoleRef {
  kind: string;
  name: string;
  apiGroup: string;
}

export interface RoleEntry {
  namespace: string;
  name: string;
  rules: PolicyRule[];
}

export interface BindingEntry {
  namespace: string;
  name: string;
  roleRef: RoleRef;
  subjects: Subject[];
}

/** The four listers the resolver reads (kube's RoleGetter, RoleBindingLister, ...). */
export interface PolicyLister {
  getRole(namespace: string, name: string): RoleEntry | undefined;
  getClusterRole(name: string): RoleEntry | undefined;
  roleBindings(namespace: string): Iterable<BindingEntry>;
  clusterRoleBindings(): Iterable<BindingEntry>;
}

/** A rule and where it came from, or (rule undefined) an error resolving a binding. */
export type RuleVisitor = (source: (() => string) | undefined, rule: PolicyRule | undefined, err: Error | undefined) => boolean;

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}

/** serviceaccount.MatchesUsername without building the string. */
function isServiceAccountUser(namespace: string, name: string, username: string): boolean {
  const prefix = 'system:serviceaccount:';
  return username.length === prefix.length + namespace.length + 1 + name.length && username.startsWith(prefix) && username.startsWith(namespace, prefix.length) && username[prefix.length + namespace.length] === ':' && username.endsWith(name);
}

export function appliesToUser(user: UserInfo, s: Subject, namespace: string): boolean {
  switch (s.kind) {
    case 'User':
      return user.username === s.name;
    case 'Group':
      return user.groups.includes(s.name);
    case 'ServiceAccount': {
      const ns = s.namespace || namespace;
      return ns !== '' && isServiceAccountUser(ns, s.name, user.username);
    }
    default:
      return false;
  }
}

/** The first subject of the binding that names the user, or -1. */
export function subjectIndex(user: UserInfo, subjects: readonly Subject[], namespace: string): number {
  return subjects.findIndex((s) => appliesToUser(user, s, namespace));
}

/** The NotFound a lister returns: `clusterrole.rbac.authorization.k8s.io "x" not found` (singular resource, as kube's listers). */
export class RoleNotFoundError extends Error {
  constructor(
    readonly kind: 'Role' | 'ClusterRole',
    readonly roleName: string,
  ) {
    super(`${kind.toLowerCase()}.${RBAC_GROUP} ${JSON.stringify(roleName)} not found`);
  }
}

export function roleReferenceRules(lister: PolicyLister, ref: RoleRef, bindingNamespace: string): PolicyRule[] {
  switch (ref.kind) {
    case 'Role': {
      const r = lister.getRole(bindingNamespace, ref.name);
      if (!r) throw new RoleNotFoundError('Role', ref.name);
      return r.rules;
    }
    case 'ClusterRole': {
      const r = lister.getClusterRole(ref.name);
      if (!r) throw new RoleNotFoundError('ClusterRole', ref.name);
      return r.rules;
    }
    default:
      throw new Error(`unsupported role reference kind: ${JSON.stringify(ref.kind)}`);
  }
}

export function visitRulesFor(lister: PolicyLister, user: UserInfo, namespace: string, visit: RuleVisitor): void {
  for (const b of lister.clusterRoleBindings()) {
    const i = subjectIndex(user, b.subjects, '');
    if (i < 0) continue;
    let rules: PolicyRule[];
    try {
      rules = roleReferenceRules(lister, b.roleRef, '');
    } catch (err) {
      if (!visit(undefined, undefined, err as Error)) return;
      continue;
    }
    const source = () => `ClusterRoleBinding ${JSON.stringify(b.name)} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(b.subjects[i]!, '')}`;
    for (const r of rules) if (!visit(source, r, undefined)) return;
  }
  if (!namespace) return;
  for (const b of lister.roleBindings(namespace)) {
    const i = subjectIndex(user, b.subjects, namespace);
    if (i < 0) continue;
    let rules: PolicyRule[];
    try {
      rules = roleReferenceRules(lister, b.roleRef, namespace);
    } catch (err) {
      if (!visit(undefined, undefined, err as Error)) return;
      continue;
    }
    const source = () => `RoleBinding ${JSON.stringify(`${b.name}/${b.namespace}`)} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(b.subjects[i]!, b.namespace)}`;
    for (const r of rules) if (!visit(source, r, undefined)) return;
  }
}

/** Every rule that applies, and the resolution errors (kube's RulesFor). */
export function rulesFor(lister: PolicyLister, user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: Error[] } {
  const rules: PolicyRule[] = [];
  const errors: Error[] = [];
  visitRulesFor(lister, user, namespace, (_s, rule, err) => {
    if (rule) rules.push(rule);
    if (err) errors.push(err);
    return true;
  });
  return { rules, errors };
}

/** utilerrors.NewAggregate(errs).Error(): one message alone, several (deduplicated) as "[a, b]". */
export function aggregateMessage(errors: readonly Error[]): string {
  const seen: string[] = [];
  for (const e of errors) if (!seen.includes(e.message)) seen.push(e.message);
  if (errors.length === 1 || seen.length === 1) return seen[0] ?? '';
  return `[${seen.join(', ')}]`;
}

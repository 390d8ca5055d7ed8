// RBAC escalation prevention (kube's pkg/registry/rbac/{role,clusterrole,
// rolebinding,clusterrolebinding}/policybased and escalation_check.go):
// a user may create or update a Role/ClusterRole only with rules they already
// hold (or with the `escalate` verb on it), and a binding only to a role
// whose rules they hold (or with the `bind` verb on it). system:masters is
// exempt. The check wraps the four resources' beginCreate/beginUpdate, which
// run after mutating admission and before validation — where kube's
// policybased storage runs it.

import type { KObject } from '../../kube/object';
import { failure, forbidden, type StatusError } from '../api/status';
import { deepEqual } from '../api/validation/field';
import type { FinishFunc, ResourceDef, Strategy, StrategyContext } from '../registry/rest/resourceDef';
import type { UserInfo } from '../authn/user';
import type { AuthorizationAttributes, Decision } from '../authz/authorizer';
import { SYSTEM_PRIVILEGED_GROUP } from './modes';
import { compactRules, compactString, covers, goQuotedList, normalizeRule, type PolicyRule } from './policyRule';
import { RBAC_GROUP, RoleNotFoundError, roleReferenceRules, rulesFor, type PolicyLister, type RoleRef } from './ruleResolver';

export interface EscalationDeps {
  lister: PolicyLister & { ready(): Promise<void> };
  authorize(attrs: AuthorizationAttributes): Promise<{ decision: Decision; reason?: string }>;
}

const ROLE_RESOURCES = new Set(['roles', 'clusterroles']);
const BINDING_RESOURCES = new Set(['rolebindings', 'clusterrolebindings']);

/** The rules that can do anything: setting an aggregationRule requires them. */
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

const escalationAllowed = (u: UserInfo): boolean => u.groups.includes(SYSTEM_PRIVILEGED_GROUP);

function resourceAttrs(user: UserInfo, verb: string, resource: string, namespace: string, name: string, apiGroup = RBAC_GROUP): AuthorizationAttributes {
  return { user, verb, isResourceRequest: true, path: '', namespace, apiGroup, apiVersion: '*', resource, subresource: '', name };
}

/** ConfirmNoEscalation: the user's rules in the namespace must cover these; else kube's message. */
export function confirmNoEscalation(lister: PolicyLister, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const owned = rulesFor(lister, user, namespace);
  const { covered, missing } = covers(owned.rules, rules);
  if (covered) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(user.username)} (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (owned.errors.length) msg += `; resolution errors: [${owned.errors.map((e) => e.message).join(' ')}]`;
  return msg;
}

const rulesOf = (obj: KObject): PolicyRule[] => (Array.isArray(obj.rules) ? (obj.rules as unknown[]).map(normalizeRule) : []);

function roleRefOf(obj: KObject): RoleRef {
  const r = (obj.roleRef ?? {}) as Record<string, unknown>;
  return { kind: String(r.kind ?? ''), name: String(r.name ?? ''), apiGroup: String(r.apiGroup ?? '') };
}

/** Only ownerReferences/finalizers (what the garbage collector touches) changed. */
function onlyGCFieldsChanged(obj: KObject, old: KObject): boolean {
  const strip = (o: KObject) => {
    const { ownerReferences: _o, finalizers: _f, resourceVersion: _r, managedFields: _m, generation: _g, ...meta } = o.metadata;
    return { ...o, metadata: meta };
  };
  return deepEqual(strip(obj), strip(old));
}

export function escalationChecks(deps: EscalationDeps): (def: ResourceDef) => ResourceDef {
  return (def) => {
    if (def.group !== RBAC_GROUP || !(ROLE_RESOURCES.has(def.resource) || BINDING_RESOURCES.has(def.resource))) return def;
    const qr = { group: def.group, resource: def.resource };
    const isRole = ROLE_RESOURCES.has(def.resource);

    const checkRole = async (obj: KObject, old: KObject | undefined, ctx: StrategyContext): Promise<void> => {
      const ns = def.namespaced ? (ctx.namespace ?? '') : '';
      const name = obj.metadata.name ?? '';
      // RoleEscalationAuthorized: the request's own name (none on create).
      const escalate = await deps.authorize(resourceAttrs(ctx.user, 'escalate', def.resource, ns, old ? name : ''));
      if (escalate.decision === 'allow') return;
      if (old && onlyGCFieldsChanged(obj, old)) return;
      await deps.lister.ready();
      const why = confirmNoEscalation(deps.lister, ctx.user, ns, rulesOf(obj));
      if (why) throw forbidden(qr, name, why);
      const agg = obj.aggregationRule;
      if (def.resource === 'clusterroles' && agg && (!old || !deepEqual(agg, old.aggregationRule))) {
        if (confirmNoEscalation(deps.lister, ctx.user, ns, FULL_AUTHORITY)) throw forbidden(qr, name, 'must have cluster-admin privileges to use the aggregationRule');
      }
    };

    const checkBinding = async (obj: KObject, old: KObject | undefined, ctx: StrategyContext): Promise<void> => {
      const ns = def.namespaced ? (ctx.namespace ?? '') : '';
      if (def.namespaced && !ns) throw failure(400, 'BadRequest', 'namespace is required');
      if (old && onlyGCFieldsChanged(obj, old)) return;
      const ref = roleRefOf(obj);
      if (ref.kind === 'ClusterRole' || ref.kind === 'Role') {
        const bind = await deps.authorize(resourceAttrs(ctx.user, 'bind', ref.kind === 'Role' ? 'roles' : 'clusterroles', ns, ref.name, ref.apiGroup));
        if (bind.decision === 'allow') return;
      }
      await deps.lister.ready();
      let rules: PolicyRule[];
      try {
        rules = roleReferenceRules(deps.lister, ref, ns);
      } catch (err) {
        // The registry's NotFound (plural resource), as kube's policybased storage returns it.
        if (err instanceof RoleNotFoundError) throw notFoundRole(err);
        throw failure(500, 'InternalError', (err as Error).message);
      }
      const why = confirmNoEscalation(deps.lister, ctx.user, ns, rules);
      if (why) throw forbidden(qr, obj.metadata.name ?? '', why);
    };

    const check = isRole ? checkRole : checkBinding;
    const wrapped: Strategy = {
      ...def.strategy,
      async beginCreate(obj, ctx): Promise<FinishFunc> {
        if (!escalationAllowed(ctx.user)) await check(obj, undefined, ctx);
        return def.strategy.beginCreate ? def.strategy.beginCreate(obj, ctx) : async () => {};
      },
      async beginUpdate(obj, old, ctx): Promise<FinishFunc> {
        if (!escalationAllowed(ctx.user)) await check(obj, old, ctx);
        return def.strategy.beginUpdate ? def.strategy.beginUpdate(obj, old, ctx) : async () => {};
      },
    };
    return { ...def, strategy: wrapped };
  };
}

function notFoundRole(err: RoleNotFoundError): StatusError {
  const resource = err.kind === 'Role' ? 'roles' : 'clusterroles';
  return failure(404, 'NotFound', `${resource}.${RBAC_GROUP} ${JSON.stringify(err.roleName)} not found`, { name: err.roleName, group: RBAC_GROUP, kind: resource });
}

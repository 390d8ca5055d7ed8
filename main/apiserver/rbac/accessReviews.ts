// authorization.k8s.io/v1 access reviews (kube's pkg/registry/authorization):
// create-only, computed, never stored. SelfSubjectAccessReview asks the
// server's authorizer chain about the caller; SubjectAccessReview and
// LocalSubjectAccessReview about the user in the spec; SelfSubjectRulesReview
// lists the caller's rules in a namespace from the rule resolvers (RBAC,
// plus AlwaysAllow/AlwaysDeny/Node, which say "incomplete" for nodes).
// `kubectl auth can-i` (SSAR) and `kubectl auth can-i --list` (SSRR) use them.

import type { KObject } from '../../kube/object';
import { badRequest, GoLiteral, invalid, type FieldError } from '../api/status';
import type { ComputedRequest, ResourceDef } from '../registry/rest/resourceDef';
import type { UserInfo } from '../authn/user';
import type { AuthorizationAttributes, Decision } from '../authz/authorizer';
import { ageColumn, nameColumn } from '../registry/tables/columns';
import type { RulesInfo } from './rbacAuthorizer';

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

export interface ReviewDeps {
  authorize(attrs: AuthorizationAttributes): Promise<{ decision: Decision; reason?: string }>;
  rulesFor(user: UserInfo, namespace: string): Promise<RulesInfo>;
}

/** authorizationutil.ResourceAttributesFrom / NonResourceAttributesFrom. */
export function attributesFromSpec(user: UserInfo, spec: Rec): AuthorizationAttributes {
  const ra = rec(spec.resourceAttributes);
  if (ra) {
    return {
      user,
      verb: str(ra.verb),
      isResourceRequest: true,
      path: '',
      namespace: str(ra.namespace),
      apiGroup: str(ra.group),
      apiVersion: str(ra.version),
      resource: str(ra.resource),
      subresource: str(ra.subresource),
      name: str(ra.name),
    };
  }
  const nra = rec(spec.nonResourceAttributes) ?? {};
  return { user, verb: str(nra.verb), isResourceRequest: false, path: str(nra.path), namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };
}

/** ValidateSelfSubjectAccessReviewSpec: exactly one of the two attribute kinds. */
function validateAttributes(spec: Rec): FieldError[] {
  const errs: FieldError[] = [];
  const hasR = rec(spec.resourceAttributes) !== undefined;
  const hasN = rec(spec.nonResourceAttributes) !== undefined;
  if (hasR && hasN) errs.push({ type: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', badValue: new GoLiteral(goStruct(spec.nonResourceAttributes)), detail: 'cannot be specified in combination with resourceAttributes' });
  if (!hasR && !hasN) errs.push({ type: 'FieldValueInvalid', field: 'spec.resourceAttributes', badValue: 'null', detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified' });
  return errs;
}

/** How field.Invalid prints a non-nil *NonResourceAttributes (dereferenced, then %#v of kube's internal type). */
function goStruct(v: unknown): string {
  const r = rec(v) ?? {};
  return `authorization.NonResourceAttributes{Path:${JSON.stringify(str(r.path))}, Verb:${JSON.stringify(str(r.verb))}}`;
}

async function decide(deps: ReviewDeps, obj: KObject, attrs: AuthorizationAttributes): Promise<KObject> {
  const { decision, reason } = await deps.authorize(attrs);
  const status: Rec = { allowed: decision === 'allow' };
  if (decision === 'deny') status.denied = true;
  if (reason) status.reason = reason;
  return { ...obj, status };
}

function sarUser(spec: Rec): UserInfo {
  const extra = rec(spec.extra);
  return {
    username: str(spec.user),
    uid: str(spec.uid) || undefined,
    groups: strs(spec.groups),
    extra: extra ? Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, strs(v)])) : undefined,
  };
}

function reviewDef(kind: string, resource: string, namespaced: boolean, create: (obj: KObject, req: ComputedRequest) => Promise<KObject>): ResourceDef {
  return {
    group: AUTHORIZATION_GROUP,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    resource,
    singular: resource.replace(/s$/, ''),
    namespaced,
    shortNames: [],
    categories: [],
    verbs: ['create'],
    storagePrefix: resource,
    protoType: `k8s.io.api.authorization.v1.${kind}`,
    subresources: [],
    strategy: {
      defaults: () => {},
      prepareForCreate: () => {},
      prepareForUpdate: () => {},
      validate: () => [],
      validateUpdate: () => [],
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: false,
    },
    table: { columns: [nameColumn, ageColumn], cells: (o) => [o.metadata?.name ?? '', '<unknown>'] },
    selectableFields: (o) => ({ 'metadata.name': o.metadata?.name ?? '' }),
    virtualCreate: create,
  };
}

export function accessReviewResources(deps: ReviewDeps): ResourceDef[] {
  const gk = (kind: string) => ({ group: AUTHORIZATION_GROUP, kind });
  return [
    reviewDef('SelfSubjectAccessReview', 'selfsubjectaccessreviews', false, async (obj, req) => {
      const spec = rec(obj.spec) ?? {};
      const errs = validateAttributes(spec);
      if (errs.length) throw invalid(gk('SelfSubjectAccessReview'), '', errs);
      return decide(deps, obj, attributesFromSpec(req.user, spec));
    }),
    reviewDef('SubjectAccessReview', 'subjectaccessreviews', false, async (obj) => {
      const spec = rec(obj.spec) ?? {};
      const errs = validateAttributes(spec);
      if (!str(spec.user) && strs(spec.groups).length === 0) errs.push({ type: 'FieldValueInvalid', field: 'spec.user', badValue: '', detail: 'at least one of user or group must be specified' });
      if (errs.length) throw invalid(gk('SubjectAccessReview'), '', errs);
      return decide(deps, obj, attributesFromSpec(sarUser(spec), spec));
    }),
    reviewDef('LocalSubjectAccessReview', 'localsubjectaccessreviews', true, async (obj, req) => {
      if (!req.namespace) throw badRequest(`namespace is required on this type: ${req.namespace}`);
      const ns = obj.metadata?.namespace || req.namespace;
      if (ns !== req.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      const spec = rec(obj.spec) ?? {};
      const errs = validateAttributes(spec);
      if (!str(spec.user) && strs(spec.groups).length === 0) errs.push({ type: 'FieldValueInvalid', field: 'spec.user', badValue: '', detail: 'at least one of user or group must be specified' });
      const ra = rec(spec.resourceAttributes);
      if (ra && str(ra.namespace) !== ns) errs.push({ type: 'FieldValueInvalid', field: 'spec.resourceAttributes.namespace', badValue: str(ra.namespace), detail: 'must match metadata.namespace' });
      if (rec(spec.nonResourceAttributes)) errs.push({ type: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', badValue: new GoLiteral(goStruct(spec.nonResourceAttributes)), detail: 'disallowed on this kind of request' });
      if (errs.length) throw invalid(gk('LocalSubjectAccessReview'), '', errs);
      return decide(deps, { ...obj, metadata: { ...obj.metadata, namespace: ns } }, attributesFromSpec(sarUser(spec), spec));
    }),
    reviewDef('SelfSubjectRulesReview', 'selfsubjectrulesreviews', false, async (obj, req) => {
      const spec = rec(obj.spec) ?? {};
      const namespace = str(spec.namespace);
      if (!namespace) throw badRequest('no namespace on request');
      const info = await deps.rulesFor(req.user, namespace);
      const status: Rec = {
        resourceRules: info.resourceRules.map((r) => ({ verbs: r.verbs, apiGroups: r.apiGroups, resources: r.resources, ...(r.resourceNames.length ? { resourceNames: r.resourceNames } : {}) })),
        nonResourceRules: info.nonResourceRules.map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs })),
        incomplete: info.incomplete,
      };
      if (info.error) status.evaluationError = info.error;
      return { ...obj, status };
    }),
  ];
}

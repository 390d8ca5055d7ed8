// The computed review resources of authentication.k8s.io/v1 (create only,
// never stored). TokenReview (cluster-scoped): "who is this bearer token?",
// answered by the same token authenticators requests go through, for the
// audiences the review names (default: the API audiences) — kube's
// tokenreview REST. SelfSubjectReview: "who am I?" — the requesting user as
// the server sees it after authentication and impersonation, which is what
// `kubectl auth whoami` prints.

import type { KObject } from '../../../kube/object';
import { badRequest, internalError } from '../../api/status';
import type { ComputedRequest, ResourceDef, Strategy, TableConvertor } from '../rest/resourceDef';
import type { UserInfo } from '../../authn/user';
import { col, nameColumn } from '../tables/columns';
import { authenticateToken, intersect, type TokenAuthenticator } from '../../authn/tokenAuthenticator';

const GROUP = 'authentication.k8s.io';

/** Reviews are decoded, defaulted and computed; nothing here is stored, so the lifecycle hooks never run. */
const reviewStrategy: Strategy = {
  defaults: () => {},
  prepareForCreate: () => {},
  prepareForUpdate: () => {},
  validate: () => [],
  validateUpdate: () => [],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
};

/** kube's default table convertor (Name, Created At); reviews are never listed, but every def has one. */
const reviewTable: TableConvertor = {
  columns: [nameColumn, col('Created At', 'date', 'CreationTimestamp is a timestamp representing the server time when this object was created.')],
  cells: (obj) => [obj.metadata.name ?? '', obj.metadata.creationTimestamp ?? ''],
};

function reviewDef(kind: string, resource: string, create: (obj: KObject, req: ComputedRequest) => Promise<KObject>): ResourceDef {
  return {
    group: GROUP,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    resource,
    singular: resource.replace(/s$/, ''),
    namespaced: false,
    shortNames: [],
    categories: [],
    verbs: ['create'],
    storagePrefix: resource,
    protoType: `k8s.io.api.authentication.v1.${kind}`,
    subresources: [],
    strategy: reviewStrategy,
    table: reviewTable,
    selectableFields: (obj) => ({ 'metadata.name': obj.metadata.name ?? '' }),
    virtualCreate: create,
  };
}

/** authentication/v1 UserInfo as Go marshals it (uid, groups and extra omitted when empty). */
export function userInfoJson(u: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: u.username };
  if (u.uid) out.uid = u.uid;
  if (u.groups.length) out.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length) out.extra = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]]));
  return out;
}

export interface TokenReviewOptions {
  tokenAuthenticators: TokenAuthenticator[];
  apiAudiences: string[];
}

export function tokenReviewDef(o: TokenReviewOptions): ResourceDef {
  return reviewDef('TokenReview', 'tokenreviews', async (obj, req) => {
    if (req.namespace) throw badRequest(`namespace is not allowed on this type: ${req.namespace}`);
    const spec = (obj.spec ?? {}) as { token?: string; audiences?: string[] | null };
    if (!spec.token) throw badRequest('token is required for TokenReview in authentication');
    const auds = spec.audiences && spec.audiences.length ? spec.audiences : o.apiAudiences;
    const target = auds.length ? auds : undefined;
    const status: Record<string, unknown> = {};
    let accepted;
    try {
      accepted = await authenticateToken(o.tokenAuthenticators, spec.token, target, o.apiAudiences);
    } catch (err) {
      status.error = err instanceof Error ? err.message : String(err);
    }
    if (accepted) {
      if (auds.length && intersect(auds, accepted.audiences).length === 0) throw internalError(new Error('error validating audiences'));
      status.authenticated = true;
      const groups = accepted.user.groups.includes('system:authenticated') ? accepted.user.groups : [...accepted.user.groups, 'system:authenticated'];
      status.user = userInfoJson({ ...accepted.user, groups });
      if (accepted.audiences.length) status.audiences = accepted.audiences;
    } else {
      status.user = {};
    }
    const metadata = { ...obj.metadata, creationTimestamp: obj.metadata.creationTimestamp ?? null };
    return { ...obj, metadata, spec: obj.spec ?? {}, status };
  });
}

export function selfSubjectReviewDef(now: () => Date): ResourceDef {
  return reviewDef('SelfSubjectReview', 'selfsubjectreviews', async (_obj, req) => ({
    metadata: { creationTimestamp: now().toISOString().replace(/\.\d{3}Z$/, 'Z') },
    status: { userInfo: userInfoJson(req.user) },
  }));
}

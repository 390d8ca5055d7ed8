// Authorization: an Authorizer answers allow / deny / no opinion for a
// request's attributes (kube's authorizer.Attributes); the first non
// "no opinion" answer wins, no answer at all is a deny. The implementations
// are AlwaysAllow (here), Node (nodeauthz/) and RBAC (rbac/). A deny is
// kube's 403 with its exact wording.

import { failure, qualifiedName, type StatusError } from '../api/status';
import type { UserInfo } from '../authn/user';

export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  namespace: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
}

export type Decision = 'allow' | 'deny' | 'noOpinion';

export interface Authorizer {
  name: string;
  authorize(attrs: AuthorizationAttributes): Promise<{ decision: Decision; reason?: string }> | { decision: Decision; reason?: string };
}

export const alwaysAllow: Authorizer = { name: 'AlwaysAllow', authorize: () => ({ decision: 'allow' }) };

/** responsewriters.ForbiddenStatusError: `deployments.apps "x" is forbidden: User "u" cannot get resource ...[: reason]`. */
export function forbiddenFor(a: AuthorizationAttributes, reason?: string): StatusError {
  let msg: string;
  if (!a.isResourceRequest) {
    msg = `User ${JSON.stringify(a.user.username)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  } else {
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    const where = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
    msg = `User ${JSON.stringify(a.user.username)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} ${where}`;
  }
  if (reason) msg = `${msg}: ${reason}`;
  const qr = { group: a.apiGroup, resource: a.resource };
  let message: string;
  if (!a.isResourceRequest || a.resource === '') message = `forbidden: ${msg}`;
  else if (a.name === '') message = `${qualifiedName(qr)} is forbidden: ${msg}`;
  else message = `${qualifiedName(qr)} ${JSON.stringify(a.name)} is forbidden: ${msg}`;
  const details = a.isResourceRequest && a.resource ? { name: a.name || undefined, group: a.apiGroup || undefined, kind: a.resource } : undefined;
  return failure(403, 'Forbidden', message, details);
}

export async function authorize(authorizers: Authorizer[], attrs: AuthorizationAttributes): Promise<{ decision: Decision; reason?: string; by?: string }> {
  // kube's union authorizer: the reasons of the "no opinion" answers are joined with newlines (the 403 quotes them).
  const reasons: string[] = [];
  for (const a of authorizers) {
    const r = await a.authorize(attrs);
    if (r.decision !== 'noOpinion') return { ...r, by: a.name };
    if (r.reason) reasons.push(r.reason);
  }
  return reasons.length ? { decision: 'noOpinion', reason: reasons.join('\n') } : { decision: 'noOpinion' };
}

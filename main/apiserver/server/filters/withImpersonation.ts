// Impersonation (kube's filters/impersonation.go): `Impersonate-User`,
// `Impersonate-Group` (repeatable), `Impersonate-Uid` and
// `Impersonate-Extra-<key>` headers let an authenticated user act as someone
// else — if the authorizer lets them `impersonate` each thing asked for:
// users, groups and uids (core group / authentication.k8s.io), service
// accounts (system:serviceaccount:<ns>:<name> → serviceaccounts in <ns>),
// and userextras/<key>. One denial is kube's 403 naming what could not be
// impersonated. The request then continues as the impersonated user (with
// system:authenticated added by kube's rules); the original user is kept in
// ctx.impersonatedBy for audit, and both are named in the trace.

import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../../authn/user';
import { isDNS1123Label, isDNS1123Subdomain } from '../../api/validation/names';
import { forbiddenFor, type AuthorizationAttributes } from '../../authz/authorizer';
import type { NamedFilter, RequestContext } from '../context';
import type { ServerEnv } from '../../serverEnv';
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP } from '../../authn/anonymous';
import { makeGroupNames, makeUsername, splitUsernameParts } from '../../authn/serviceAccountClaims';

export const IMPERSONATE_USER = 'impersonate-user';
export const IMPERSONATE_GROUP = 'impersonate-group';
export const IMPERSONATE_UID = 'impersonate-uid';
export const IMPERSONATE_EXTRA_PREFIX = 'impersonate-extra-';

/** One thing asked for, as kube's v1.ObjectReference (FieldPath carries the extra key). */
export interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  namespace: string;
  name: string;
  apiVersion: string;
  fieldPath: string;
}

/** serviceaccount.SplitUsername: a valid namespace and service-account name, or undefined. */
export function splitServiceAccountUsername(username: string): [string, string] | undefined {
  const parts = splitUsernameParts(username);
  if (!parts) return undefined;
  const [ns, name] = parts;
  if (isDNS1123Label(ns).length || isDNS1123Subdomain(name).length) return undefined;
  return parts;
}

function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    // Malformed escapes: kube records the key as sent.
    return encoded;
  }
}

/** Go's %v of a v1.ObjectReference: its seven string fields between braces. */
function goRef(r: ImpersonationRequest): string {
  return `{${[r.kind, r.namespace, r.name, '', r.apiVersion, '', r.fieldPath].join(' ')}}`;
}

export class ImpersonationHeaderError extends Error {}

/** buildImpersonationRequests; throws when groups, extras or a uid come without a user. */
export function buildImpersonationRequests(req: Pick<IncomingMessage, 'headersDistinct'>): ImpersonationRequest[] {
  const headers = req.headersDistinct;
  const out: ImpersonationRequest[] = [];
  const ref = (kind: ImpersonationRequest['kind'], name: string, extra: Partial<ImpersonationRequest> = {}): ImpersonationRequest => ({ kind, namespace: '', name, apiVersion: '', fieldPath: '', ...extra });
  const requestedUser = headers[IMPERSONATE_USER]?.[0] ?? '';
  if (requestedUser) {
    const sa = splitServiceAccountUsername(requestedUser);
    out.push(sa ? ref('ServiceAccount', sa[1], { namespace: sa[0] }) : ref('User', requestedUser));
  }
  const groups = headers[IMPERSONATE_GROUP] ?? [];
  for (const g of groups) out.push(ref('Group', g));
  let hasExtra = false;
  for (const [name, values] of Object.entries(headers)) {
    if (!name.startsWith(IMPERSONATE_EXTRA_PREFIX) || !values) continue;
    hasExtra = true;
    const key = unescapeExtraKey(name.slice(IMPERSONATE_EXTRA_PREFIX.length).toLowerCase());
    for (const v of values) out.push(ref('UserExtra', v, { apiVersion: 'authentication.k8s.io/v1', fieldPath: key }));
  }
  const uid = headers[IMPERSONATE_UID]?.[0] ?? '';
  if (uid) out.push(ref('UID', uid, { apiVersion: 'authentication.k8s.io/v1' }));
  if ((groups.length || hasExtra || uid) && !requestedUser) {
    throw new ImpersonationHeaderError(`requested [${out.map(goRef).join(' ')}] without impersonating a user`);
  }
  return out;
}

/** The authorization check for one impersonation request. */
export function impersonationAttributes(requestor: UserInfo, r: ImpersonationRequest): AuthorizationAttributes {
  const [group, version] = r.apiVersion ? r.apiVersion.split('/') : ['', ''];
  const resource = { User: 'users', ServiceAccount: 'serviceaccounts', Group: 'groups', UserExtra: 'userextras', UID: 'uids' }[r.kind];
  return {
    user: requestor,
    verb: 'impersonate',
    isResourceRequest: true,
    path: '',
    namespace: r.namespace,
    apiGroup: group ?? '',
    apiVersion: version ?? '',
    resource,
    subresource: r.kind === 'UserExtra' ? r.fieldPath : '',
    name: r.name,
  };
}

/** The user the request continues as, with kube's system:authenticated / system:unauthenticated rules. */
export function impersonatedUser(requests: ImpersonationRequest[]): UserInfo {
  const groupsSpecified = requests.some((r) => r.kind === 'Group');
  let username = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    if (r.kind === 'ServiceAccount') {
      username = makeUsername(r.namespace, r.name);
      if (!groupsSpecified) groups = makeGroupNames(r.namespace);
    } else if (r.kind === 'User') username = r.name;
    else if (r.kind === 'Group') groups.push(r.name);
    else if (r.kind === 'UserExtra') (extra[r.fieldPath] ??= []).push(r.name);
    else uid = r.name;
  }
  if (username !== ANONYMOUS_USER) {
    if (!groups.some((g) => g === AUTHENTICATED_GROUP || g === UNAUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
  } else if (!groups.includes(UNAUTHENTICATED_GROUP)) groups.push(UNAUTHENTICATED_GROUP);
  const user: UserInfo = { username, groups };
  if (uid) user.uid = uid;
  if (Object.keys(extra).length) user.extra = extra;
  return user;
}

function describe(u: UserInfo): string {
  return `${u.username} (groups ${JSON.stringify(u.groups)})`;
}

/** kube's responsewriters.InternalError: plain text, not a Status. */
function internalErrorText(ctx: RequestContext, err: Error): void {
  const text = `Internal Server Error: ${JSON.stringify(ctx.req.url ?? '')}: ${err.message}`.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  ctx.trace.respond(500);
  ctx.res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  ctx.res.end(`${text}\n`);
}

/** Whether any header name starts with "impersonate-" (rawHeaders: name, value, name, value, ...). */
function mentionsImpersonation(rawHeaders: string[]): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length >= 12 && name.slice(0, 12).toLowerCase() === 'impersonate-') return true;
  }
  return false;
}

export function withImpersonation(env: Pick<ServerEnv, 'authorize'>): NamedFilter {
  return {
    name: 'impersonation',
    run: async (ctx, next) => {
      // Most requests impersonate nobody: rawHeaders answers that without
      // building headersDistinct (a fresh object of every header).
      if (!mentionsImpersonation(ctx.req.rawHeaders)) return next();
      const t0 = performance.now();
      let requests: ImpersonationRequest[];
      try {
        requests = buildImpersonationRequests(ctx.req);
      } catch (err) {
        if (!(err instanceof ImpersonationHeaderError)) throw err;
        ctx.trace.add({ stage: 'impersonation', verdict: 'error', reason: err.message, latencyMs: performance.now() - t0 });
        return internalErrorText(ctx, err);
      }
      if (requests.length === 0) return next();
      const requestor = ctx.user!;
      for (const r of requests) {
        const attrs = impersonationAttributes(requestor, r);
        const decision = await env.authorize(attrs);
        if (decision.decision !== 'allow') {
          const denied = forbiddenFor(attrs, decision.reason);
          ctx.trace.add({ stage: 'impersonation', verdict: 'deny', reason: denied.message, latencyMs: performance.now() - t0 });
          throw denied;
        }
      }
      const user = impersonatedUser(requests);
      for (const name of Object.keys(ctx.req.headers)) {
        if (name === IMPERSONATE_USER || name === IMPERSONATE_GROUP || name === IMPERSONATE_UID || name.startsWith(IMPERSONATE_EXTRA_PREFIX)) delete ctx.req.headers[name];
      }
      ctx.impersonatedBy = requestor;
      ctx.user = user;
      ctx.trace.trace.user = { username: user.username, groups: user.groups };
      ctx.trace.add({ stage: 'impersonation', verdict: 'allow', reason: `${describe(requestor)} is impersonating ${describe(user)}`, latencyMs: performance.now() - t0 });
      await next();
    },
  };
}

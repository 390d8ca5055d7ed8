// kube's CEL authorizer library (k8s.io/apiserver pkg/cel/library/authz.go):
//
//   authorizer.group('apps').resource('deployments').namespace('ns').name('x').check('delete').allowed()
//   authorizer.path('/healthz').check('get').reason()
//   authorizer.serviceAccount('ns', 'sa').group('')...   authorizer.requestResource.check('update')
//
// Evaluation is synchronous and the server's authorizer chain is not, so a
// check() answers from the decisions already known for this request and
// records the ones it lacks; the caller resolves those (resolvePendingChecks)
// and evaluates again — expressions are pure, so the second run takes the
// same path with real decisions (see AUTHZ_ROUNDS). The values are maps
// tagged with their kind and the id of the request's context.

import { CelScalar, celMethod, isCelMap, mapType, type CelFunc, type CelMap, type CelValue } from '@bufbuild/cel';
import type { UserInfo } from '../authn/user';
import type { AuthorizationAttributes, Decision } from '../authz/authorizer';
import { BOOL, STRING, objectOf, type CelStaticType } from './types';
import type { Overload } from './check';

/** How many times an expression set may be evaluated to learn all of its checks' decisions. */
export const AUTHZ_ROUNDS = 4;

interface Known {
  decision: Decision;
  reason: string;
  error: string;
}

export interface AuthzContext {
  user: UserInfo;
  readonly decisions: Map<string, Known>;
  readonly pending: Map<string, AuthorizationAttributes>;
}

const contexts = new Map<string, AuthzContext>();
let nextId = 0;

const MAP = mapType(CelScalar.STRING, CelScalar.DYN);

/** The attributes a resource check of a request carries (`authorizer.requestResource`). */
export interface RequestResource {
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

/**
 * The `authorizer` variable for one request, and a release() to call when
 * the request's evaluations are done (the context registry is per process).
 */
export function authorizerValue(ctx: AuthzContext, request: RequestResource): { value: Map<string, unknown>; release(): void } {
  const id = String(++nextId);
  contexts.set(id, ctx);
  const requestResource = new Map<string, unknown>([
    ['@kind', 'resource'],
    ['@ctx', id],
    ['@sa', ''],
    ['group', request.group],
    ['version', request.version],
    ['resource', request.resource],
    ['subresource', request.subresource],
    ['namespace', request.namespace],
    ['name', request.name],
  ]);
  const value = new Map<string, unknown>([
    ['@kind', 'authorizer'],
    ['@ctx', id],
    ['@sa', ''],
    ['requestResource', requestResource],
  ]);
  return { value, release: () => contexts.delete(id) };
}

export function newAuthzContext(user: UserInfo): AuthzContext {
  return { user, decisions: new Map(), pending: new Map() };
}

/** Asks the authorizer chain about every check the last evaluation could not answer. */
export async function resolvePendingChecks(ctx: AuthzContext, authorize: (a: AuthorizationAttributes) => Promise<{ decision: Decision; reason?: string }>): Promise<void> {
  const pending = [...ctx.pending.entries()];
  ctx.pending.clear();
  await Promise.all(
    pending.map(async ([key, attrs]) => {
      try {
        const r = await authorize(attrs);
        ctx.decisions.set(key, { decision: r.decision, reason: r.reason ?? '', error: '' });
      } catch (e) {
        ctx.decisions.set(key, { decision: 'noOpinion', reason: '', error: e instanceof Error ? e.message : String(e) });
      }
    }),
  );
}

function field(m: CelMap, k: string): string {
  const v = m.get(k);
  return typeof v === 'string' ? v : '';
}

function kindOf(m: CelValue, want: string): CelMap {
  if (!isCelMap(m) || m.get('@kind') !== want) throw new Error('no such overload');
  return m;
}

function derive(m: CelMap, kind: string, set: Record<string, string>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [k, v] of m.entries()) if (typeof k === 'string' && typeof v === 'string') out.set(k, v);
  out.set('@kind', kind);
  for (const [k, v] of Object.entries(set)) out.set(k, v);
  return out;
}

function userFor(ctx: AuthzContext, sa: string): UserInfo {
  if (!sa) return ctx.user;
  const [ns, name] = sa.split('/');
  // serviceaccount.UserInfo: the account's user and its groups.
  return { username: `system:serviceaccount:${ns}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`] };
}

function check(m: CelMap, verb: string, resourceRequest: boolean): Map<string, unknown> {
  const ctx = contexts.get(field(m, '@ctx'));
  if (!ctx) throw new Error('authorizer is not available');
  const user = userFor(ctx, field(m, '@sa'));
  const attrs: AuthorizationAttributes = resourceRequest
    ? {
        user,
        verb,
        isResourceRequest: true,
        path: '',
        namespace: field(m, 'namespace'),
        apiGroup: field(m, 'group'),
        apiVersion: field(m, 'version') || '*',
        resource: field(m, 'resource'),
        subresource: field(m, 'subresource'),
        name: field(m, 'name'),
      }
    : { user, verb, isResourceRequest: false, path: field(m, 'path'), namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };
  const key = JSON.stringify(attrs);
  const known = ctx.decisions.get(key);
  if (!known) ctx.pending.set(key, attrs);
  const d = known ?? { decision: 'noOpinion' as Decision, reason: '', error: '' };
  return new Map<string, unknown>([
    ['@kind', 'decision'],
    ['allowed', d.decision === 'allow'],
    ['reason', d.reason],
    ['error', d.error],
  ]);
}

/** The library's functions; their values are maps, so they are declared on map targets. */
export const authzLibrary: CelFunc[] = [
  celMethod('group', MAP, [CelScalar.STRING], MAP, function (g) {
    return derive(kindOf(this, 'authorizer'), 'group', { group: g }) as never;
  }),
  celMethod('path', MAP, [CelScalar.STRING], MAP, function (p) {
    return derive(kindOf(this, 'authorizer'), 'path', { path: p }) as never;
  }),
  celMethod('serviceAccount', MAP, [CelScalar.STRING, CelScalar.STRING], MAP, function (ns, name) {
    return derive(kindOf(this, 'authorizer'), 'authorizer', { '@sa': `${ns}/${name}` }) as never;
  }),
  celMethod('resource', MAP, [CelScalar.STRING], MAP, function (r) {
    return derive(kindOf(this, 'group'), 'resource', { resource: r }) as never;
  }),
  celMethod('subresource', MAP, [CelScalar.STRING], MAP, function (s) {
    return derive(kindOf(this, 'resource'), 'resource', { subresource: s }) as never;
  }),
  celMethod('namespace', MAP, [CelScalar.STRING], MAP, function (n) {
    return derive(kindOf(this, 'resource'), 'resource', { namespace: n }) as never;
  }),
  celMethod('name', MAP, [CelScalar.STRING], MAP, function (n) {
    return derive(kindOf(this, 'resource'), 'resource', { name: n }) as never;
  }),
  celMethod('check', MAP, [CelScalar.STRING], MAP, function (verb) {
    if (isCelMap(this) && this.get('@kind') === 'path') return check(this, verb, false) as never;
    return check(kindOf(this, 'resource'), verb, true) as never;
  }),
  celMethod('allowed', MAP, [], CelScalar.BOOL, function () {
    return kindOf(this, 'decision').get('allowed') === true;
  }),
  celMethod('reason', MAP, [], CelScalar.STRING, function () {
    return field(kindOf(this, 'decision'), 'reason');
  }),
  celMethod('errored', MAP, [], CelScalar.BOOL, function () {
    return field(kindOf(this, 'decision'), 'error') !== '';
  }),
  celMethod('error', MAP, [], CelScalar.STRING, function () {
    return field(kindOf(this, 'decision'), 'error');
  }),
];

const GROUP_CHECK = objectOf('kubernetes.authorization.GroupCheck', {});
export const RESOURCE_CHECK = objectOf('kubernetes.authorization.ResourceCheck', {});
const PATH_CHECK = objectOf('kubernetes.authorization.PathCheck', {});
const DECISION = objectOf('kubernetes.authorization.Decision', {});
export const AUTHORIZER_TYPE: CelStaticType = objectOf('kubernetes.authorization.Authorizer', {});

/** The typed signatures the checker uses for the library (the evaluator only sees maps). */
export const authzSignatures: [string, Overload[]][] = [
  ['group', [{ target: AUTHORIZER_TYPE, args: [STRING], result: GROUP_CHECK }]],
  ['path', [{ target: AUTHORIZER_TYPE, args: [STRING], result: PATH_CHECK }]],
  ['serviceAccount', [{ target: AUTHORIZER_TYPE, args: [STRING, STRING], result: AUTHORIZER_TYPE }]],
  ['resource', [{ target: GROUP_CHECK, args: [STRING], result: RESOURCE_CHECK }]],
  ['subresource', [{ target: RESOURCE_CHECK, args: [STRING], result: RESOURCE_CHECK }]],
  ['namespace', [{ target: RESOURCE_CHECK, args: [STRING], result: RESOURCE_CHECK }]],
  ['name', [{ target: RESOURCE_CHECK, args: [STRING], result: RESOURCE_CHECK }]],
  [
    'check',
    [
      { target: RESOURCE_CHECK, args: [STRING], result: DECISION },
      { target: PATH_CHECK, args: [STRING], result: DECISION },
    ],
  ],
  ['allowed', [{ target: DECISION, args: [], result: BOOL }]],
  ['reason', [{ target: DECISION, args: [], result: STRING }]],
  ['errored', [{ target: DECISION, args: [], result: BOOL }]],
  ['error', [{ target: DECISION, args: [], result: STRING }]],
];

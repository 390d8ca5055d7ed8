// The claims of a bound service-account token (kube's pkg/serviceaccount
// claims.go): iss, sub = system:serviceaccount:<ns>:<name>, aud, iat, nbf,
// exp, jti and the private `kubernetes.io` claim naming the namespace, the
// service account and the object the token is bound to (pod, secret or
// node). Also the time checks with go-jose's one-minute leeway and kube's
// error texts, and the user a validated token stands for.

import type { UserInfo } from './user';

export interface ObjectRef {
  name: string;
  uid: string;
}

export interface KubernetesClaim {
  namespace?: string;
  serviceaccount?: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
  warnafter?: number;
}

export interface TokenClaims {
  aud?: string | string[];
  exp?: number;
  iat?: number;
  iss?: string;
  jti?: string;
  'kubernetes.io'?: KubernetesClaim;
  nbf?: number;
  sub?: string;
  [claim: string]: unknown;
}

export const SERVICE_ACCOUNT_USERNAME_PREFIX = 'system:serviceaccount:';
export const ALL_SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
export const EXTRA_POD_NAME = 'authentication.kubernetes.io/pod-name';
export const EXTRA_POD_UID = 'authentication.kubernetes.io/pod-uid';
export const EXTRA_NODE_NAME = 'authentication.kubernetes.io/node-name';
export const EXTRA_NODE_UID = 'authentication.kubernetes.io/node-uid';
export const EXTRA_CREDENTIAL_ID = 'authentication.kubernetes.io/credential-id';
/** go-jose's jwt.DefaultLeeway. */
export const LEEWAY_SECONDS = 60;

export function makeUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USERNAME_PREFIX}${namespace}:${name}`;
}

export function makeGroupNames(namespace: string): string[] {
  return [ALL_SERVICE_ACCOUNTS_GROUP, `${ALL_SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

export interface ClaimsInput {
  issuer: string;
  serviceAccount: { namespace: string; name: string; uid: string };
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
  expirationSeconds: number;
  /** Seconds after which a (time-extended) token only warns; 0 = none. */
  warnAfterSeconds: number;
  audiences: string[];
  now: Date;
  jti: string;
}

/** token.Claims + the issuer the generator adds; keys in the order go-jose writes them (sorted). */
export function makeClaims(c: ClaimsInput): TokenClaims {
  if (c.pod && c.secret) throw new Error('internal error, token can only be bound to one object type');
  const now = Math.floor(c.now.getTime() / 1000);
  const k: KubernetesClaim = { namespace: c.serviceAccount.namespace };
  if (c.node) k.node = { name: c.node.name, uid: c.node.uid };
  if (c.pod) k.pod = { name: c.pod.name, uid: c.pod.uid };
  if (c.secret) k.secret = { name: c.secret.name, uid: c.secret.uid };
  k.serviceaccount = { name: c.serviceAccount.name, uid: c.serviceAccount.uid };
  if (c.warnAfterSeconds) k.warnafter = now + c.warnAfterSeconds;
  return {
    aud: c.audiences,
    exp: now + c.expirationSeconds,
    iat: now,
    iss: c.issuer,
    jti: c.jti,
    'kubernetes.io': k,
    nbf: now,
    sub: makeUsername(c.serviceAccount.namespace, c.serviceAccount.name),
  };
}

/** jwt.Audience: a string or a list of strings. */
export function audiencesOf(claims: TokenClaims): string[] {
  const aud = claims.aud;
  if (aud === undefined || aud === null) return [];
  return Array.isArray(aud) ? aud.map(String) : [String(aud)];
}

/**
 * go-jose's Claims.ValidateWithLeeway(Expected{Time: now}, 1m) as kube's
 * validator reports it: undefined when valid, else kube's message.
 */
export function timeError(claims: TokenClaims, now: Date): string | undefined {
  const t = now.getTime() / 1000;
  if (typeof claims.nbf === 'number' && t + LEEWAY_SECONDS < claims.nbf) return 'service account token is not valid yet';
  if (typeof claims.exp === 'number' && t - LEEWAY_SECONDS > claims.exp) return 'service account token has expired';
  if (typeof claims.iat === 'number' && t + LEEWAY_SECONDS < claims.iat) return 'service account token is issued in the future';
  return undefined;
}

/** apiserverserviceaccount.ServiceAccountInfo. */
export interface ServiceAccountInfo {
  namespace: string;
  name: string;
  uid: string;
  podName?: string;
  podUID?: string;
  nodeName?: string;
  nodeUID?: string;
  credentialId?: string;
}

/** ServiceAccountInfo.UserInfo(). */
export function serviceAccountUser(sa: ServiceAccountInfo): UserInfo {
  const extra: Record<string, string[]> = {};
  if (sa.podName && sa.podUID) {
    extra[EXTRA_POD_NAME] = [sa.podName];
    extra[EXTRA_POD_UID] = [sa.podUID];
  }
  if (sa.credentialId) extra[EXTRA_CREDENTIAL_ID] = [sa.credentialId];
  if (sa.nodeName) {
    extra[EXTRA_NODE_NAME] = [sa.nodeName];
    if (sa.nodeUID) extra[EXTRA_NODE_UID] = [sa.nodeUID];
  }
  const user: UserInfo = { username: makeUsername(sa.namespace, sa.name), uid: sa.uid, groups: makeGroupNames(sa.namespace) };
  if (Object.keys(extra).length) user.extra = extra;
  return user;
}

/** CredentialIDForJTI. */
export function credentialIdForJti(jti: string | undefined): string | undefined {
  return jti ? `JTI=${jti}` : undefined;
}

/** serviceaccount.SplitUsername without the name checks: [namespace, name] or undefined. */
export function splitUsernameParts(username: string): [string, string] | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_USERNAME_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_USERNAME_PREFIX.length).split(':');
  return parts.length === 2 ? [parts[0]!, parts[1]!] : undefined;
}

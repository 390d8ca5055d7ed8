// Service-account JWTs as a token authenticator (kube's
// jwtTokenAuthenticator): a token is ours only when its (unverified) `iss`
// is one of our issuers; then the signature must verify with one of the
// --service-account-key-file keys, its audiences must meet the requested
// ones, its times must hold, and — the part that makes tokens revocable —
// the live objects it names must still exist with the same UIDs: the
// ServiceAccount, and the Pod, Secret or Node it is bound to. Objects are
// read from the API server's watch caches, falling back to a live read when
// the cache does not have them (kube reads its informers the same way).
// Legacy secret-based tokens (issuer kubernetes/serviceaccount) verify too:
// their Secret must still hold exactly this token.

import { compactVerify, decodeProtectedHeader } from 'jose';
import type { KObject } from '../../kube/object';
import { notFound } from '../api/status';
import { StorageError } from '../storage/interface';
import type { ServerEnv } from '../serverEnv';
import { intersect, type TokenAuthenticator, type TokenResult } from './tokenAuthenticator';
import type { VerifyingKey } from './serviceAccountKeys';
import {
  audiencesOf,
  credentialIdForJti,
  LEEWAY_SECONDS,
  serviceAccountUser,
  splitUsernameParts,
  timeError,
  type ServiceAccountInfo,
  type TokenClaims,
} from './serviceAccountClaims';

export const LEGACY_ISSUER = 'kubernetes/serviceaccount';
const CRYPTO_FAILURE = 'go-jose/go-jose: error in cryptographic primitive';

/** Reads the live objects a token names; throws kube's NotFound StatusError when one is missing. */
export interface ObjectGetter {
  get(resource: 'serviceaccounts' | 'pods' | 'secrets' | 'nodes', namespace: string, name: string): Promise<KObject>;
}

export interface ServiceAccountAuthenticatorOptions {
  issuers: string[];
  keys: VerifyingKey[];
  /** --api-audiences: what a token without audiences counts for, and the default target. */
  apiAudiences: string[];
  getter: ObjectGetter;
  now: () => Date;
  /** Also accept legacy secret-based tokens (issuer kubernetes/serviceaccount). */
  legacy?: boolean;
}

export function serviceAccountAuthenticator(o: ServiceAccountAuthenticatorOptions): TokenAuthenticator {
  const issuers = new Set(o.legacy ? [...o.issuers, LEGACY_ISSUER] : o.issuers);
  return {
    name: 'serviceaccount',
    async authenticateToken(token, target): Promise<TokenResult | undefined> {
      const claims = unverifiedClaims(token);
      if (!claims || typeof claims.iss !== 'string' || !issuers.has(claims.iss)) return undefined;
      let header;
      try {
        header = decodeProtectedHeader(token);
      } catch {
        return undefined;
      }
      await verifySignature(token, String(header.alg ?? ''), o.keys);
      let tokenAudiences = audiencesOf(claims);
      if (tokenAudiences.length === 0) tokenAudiences = o.apiAudiences;
      const requested = target ?? o.apiAudiences;
      const auds = intersect(tokenAudiences, requested);
      if (auds.length === 0 && o.apiAudiences.length !== 0) {
        throw new Error(`token audiences ${goQuotedList(tokenAudiences)} is invalid for the target audiences ${goQuotedList(requested)}`);
      }
      const info = claims.iss === LEGACY_ISSUER ? await validateLegacy(token, claims, o.getter) : await validateBound(claims, o.getter, o.now());
      return { user: serviceAccountUser(info), audiences: auds };
    },
  };
}

/** The payload without checking anything (kube's hasCorrectIssuer peeks the same way); undefined if it is not a JWT. */
export function unverifiedClaims(token: string): TokenClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as unknown;
    return claims && typeof claims === 'object' && !Array.isArray(claims) ? (claims as TokenClaims) : undefined;
  } catch {
    return undefined;
  }
}

/** Tries every key, as kube does (a key of the wrong type or curve just fails). */
async function verifySignature(token: string, alg: string, keys: VerifyingKey[]): Promise<void> {
  const errors: string[] = [];
  for (const k of keys) {
    if (k.alg !== alg) {
      errors.push(CRYPTO_FAILURE);
      continue;
    }
    try {
      await compactVerify(token, k.key, { algorithms: [k.alg] });
      return;
    } catch {
      errors.push(CRYPTO_FAILURE);
    }
  }
  throw new Error(errors.length ? [...new Set(errors)].join(', ') : CRYPTO_FAILURE);
}

/** Go's %q of a []string: ["a" "b"]. */
function goQuotedList(items: string[]): string {
  return `[${items.map((s) => JSON.stringify(s)).join(' ')}]`;
}

function deletedBefore(obj: KObject, limit: Date): boolean {
  const ts = obj.metadata.deletionTimestamp;
  return ts !== undefined && new Date(ts).getTime() < limit.getTime();
}

/** kube's bound-token validator (claims.go Validate), with its messages. */
export async function validateBound(claims: TokenClaims, getter: ObjectGetter, now: Date): Promise<ServiceAccountInfo> {
  const timeErr = timeError(claims, now);
  if (timeErr) throw new Error(timeErr);
  // Things deleted before now - leeway no longer vouch for the token.
  const invalidIfDeletedBefore = new Date(now.getTime() - LEEWAY_SECONDS * 1000);
  const k = claims['kubernetes.io'] ?? {};
  const namespace = k.namespace ?? '';
  const saRef = k.serviceaccount ?? { name: '', uid: '' };
  const sa = await getter.get('serviceaccounts', namespace, saRef.name);
  if ((sa.metadata.uid ?? '') !== saRef.uid) throw new Error(`service account UID (${sa.metadata.uid ?? ''}) does not match claim (${saRef.uid})`);
  if (deletedBefore(sa, invalidIfDeletedBefore)) throw new Error(`service account ${namespace}/${saRef.name} has been deleted`);
  if (k.secret) {
    const secret = await getter.get('secrets', namespace, k.secret.name).catch(() => {
      throw new Error('service account token has been invalidated');
    });
    if (k.secret.uid !== (secret.metadata.uid ?? '')) throw new Error(`secret UID (${secret.metadata.uid ?? ''}) does not match service account secret ref claim (${k.secret.uid})`);
    if (deletedBefore(secret, invalidIfDeletedBefore)) throw new Error('service account token has been invalidated');
  }
  let podName: string | undefined;
  let podUID: string | undefined;
  if (k.pod) {
    const pod = await getter.get('pods', namespace, k.pod.name).catch(() => {
      throw new Error('service account token has been invalidated');
    });
    if (k.pod.uid !== (pod.metadata.uid ?? '')) throw new Error(`pod UID (${pod.metadata.uid ?? ''}) does not match service account pod ref claim (${k.pod.uid})`);
    if (deletedBefore(pod, invalidIfDeletedBefore)) throw new Error('service account token has been invalidated');
    podName = k.pod.name;
    podUID = k.pod.uid;
  }
  let nodeName: string | undefined;
  let nodeUID: string | undefined;
  if (k.node) {
    if (!k.pod) {
      const node = await getter.get('nodes', '', k.node.name).catch(() => {
        throw new Error('service account token has been invalidated');
      });
      if (k.node.uid !== (node.metadata.uid ?? '')) throw new Error(`node UID (${node.metadata.uid ?? ''}) does not match service account node ref claim (${k.node.uid})`);
      if (deletedBefore(node, invalidIfDeletedBefore)) throw new Error('service account token has been invalidated');
    }
    nodeName = k.node.name;
    nodeUID = k.node.uid;
  }
  return { namespace, name: saRef.name, uid: saRef.uid, podName, podUID, nodeName, nodeUID, credentialId: credentialIdForJti(claims.jti) };
}

/** kube's legacyValidator: flat claims; the Secret must still hold this very token. */
export async function validateLegacy(token: string, claims: TokenClaims, getter: ObjectGetter): Promise<ServiceAccountInfo> {
  const str = (key: string): string => (typeof claims[key] === 'string' ? (claims[key] as string) : '');
  if (!claims.sub) throw new Error('sub claim is missing');
  const namespace = str('kubernetes.io/serviceaccount/namespace');
  if (!namespace) throw new Error('namespace claim is missing');
  const secretName = str('kubernetes.io/serviceaccount/secret.name');
  if (!secretName) throw new Error('secretName claim is missing');
  const saName = str('kubernetes.io/serviceaccount/service-account.name');
  if (!saName) throw new Error('serviceAccountName claim is missing');
  const saUID = str('kubernetes.io/serviceaccount/service-account.uid');
  if (!saUID) throw new Error('serviceAccountUID claim is missing');
  const parts = splitUsernameParts(claims.sub);
  if (!parts || parts[0] !== namespace || parts[1] !== saName) throw new Error('sub claim is invalid');
  const secret = await getter.get('secrets', namespace, secretName).catch(() => {
    throw new Error('token has been invalidated');
  });
  if (secret.metadata.deletionTimestamp) throw new Error('token has been invalidated');
  const data = (secret.data ?? {}) as Record<string, string>;
  if (Buffer.from(data.token ?? '', 'base64').toString('utf8') !== token) throw new Error("token does not match server's copy");
  const sa = await getter.get('serviceaccounts', namespace, saName);
  if (sa.metadata.deletionTimestamp) throw new Error(`ServiceAccount ${namespace}/${saName} has been deleted`);
  if ((sa.metadata.uid ?? '') !== saUID) throw new Error(`ServiceAccount UID (${sa.metadata.uid ?? ''}) does not match claim (${saUID})`);
  return { namespace, name: saName, uid: saUID };
}

/** The getter over the API server's watch caches: cached first, then a live read (a just-created object). */
export function storageGetter(env: ServerEnv): ObjectGetter {
  return {
    async get(resource, namespace, name) {
      if (!name) throw notFound({ group: '', resource }, name);
      const storage = env.storageFor(resource);
      const key = env.keyFor(resource, '', namespace, name);
      try {
        return await storage.get(key, { resourceVersion: '0' });
      } catch (err) {
        if (!(err instanceof StorageError && err.code === 'KeyNotFound')) throw err;
      }
      try {
        return await storage.get(key);
      } catch (err) {
        if (err instanceof StorageError && err.code === 'KeyNotFound') throw notFound({ group: '', resource }, name);
        throw err;
      }
    },
  };
}

// POST /api/v1/namespaces/NS/serviceaccounts/NAME/token: a TokenRequest
// (authentication.k8s.io/v1) answered with a freshly signed token, as kube's
// TokenREST.Create: the body's name/namespace must match the URL, the
// audiences default to the API audiences, expirationSeconds defaults to one
// hour and must lie in [10 minutes, 2^32 s] (422), a boundObjectRef names a
// Pod (running as this service account), Secret or Node that must exist
// (404) with the given UID (409), --service-account-max-token-expiration
// shortens longer requests with a warning, and a pod-bound token asked for
// exactly 3607 s lives a year but warns after the hour (kube's projected
// token transition, --service-account-extend-token-expiration).

import { randomUUID } from 'node:crypto';
import type { KObject } from '../../../kube/object';
import { badRequest, conflict, invalid, type FieldError } from '../../api/status';
import { invalid as invalidField } from '../../api/validation/field';
import type { ComputedRequest, ResourceDef } from '../rest/resourceDef';
import { credentialIdForJti, makeClaims, type ObjectRef } from '../../authn/serviceAccountClaims';
import type { ObjectGetter } from '../../authn/serviceAccountAuthenticator';
import type { TokenGenerator } from '../../authn/tokenGenerator';

export const MIN_TOKEN_SECONDS = 10 * 60;
export const MAX_TOKEN_SECONDS = 2 ** 32;
export const DEFAULT_TOKEN_SECONDS = 60 * 60;
/** token.WarnOnlyBoundTokenExpirationSeconds: what kubelets ask for projected tokens. */
export const WARN_ONLY_BOUND_TOKEN_SECONDS = 60 * 60 + 7;
/** serviceaccount.ExpirationExtensionSeconds: one year. */
export const EXTENDED_TOKEN_SECONDS = 24 * 365 * 60 * 60;

/** The audit annotation naming the credential a TokenRequest issued (JTI=<jti>). */
export const ISSUED_CREDENTIAL_ID_ANNOTATION = 'authentication.kubernetes.io/issued-credential-id';

const TOKEN_REQUEST_GK = { group: 'authentication.k8s.io', kind: 'TokenRequest' };

export interface TokenRequestOptions {
  generator: TokenGenerator;
  apiAudiences: string[];
  getter: ObjectGetter;
  /** --service-account-max-token-expiration in seconds; 0 = no limit. */
  maxExpirationSeconds: number;
  /** --service-account-extend-token-expiration. */
  extendExpiration: boolean;
  now: () => Date;
}

interface TokenRequestSpec {
  audiences?: string[] | null;
  expirationSeconds?: number;
  boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string } | null;
}

/** metav1.Time: RFC 3339 in whole seconds. */
function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** schema.FromAPIVersionAndKind: the group of "apps/v1", "" for "v1" or nothing. */
function groupVersionOf(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

export function validateTokenRequestSpec(spec: TokenRequestSpec): FieldError[] {
  const errs: FieldError[] = [];
  const exp = spec.expirationSeconds ?? 0;
  if (exp < MIN_TOKEN_SECONDS) errs.push(invalidField('spec.expirationSeconds', exp, 'may not specify a duration less than 10 minutes'));
  if (exp > MAX_TOKEN_SECONDS) errs.push(invalidField('spec.expirationSeconds', exp, 'may not specify a duration larger than 2^32 seconds'));
  return errs;
}

export function createTokenRequest(o: TokenRequestOptions) {
  const audSet = new Set(o.apiAudiences);
  return async (sa: KObject, body: KObject, req: ComputedRequest): Promise<KObject> => {
    const name = req.name;
    const namespace = req.namespace;
    if (body.metadata.name && body.metadata.name !== name) {
      throw invalid(TOKEN_REQUEST_GK, name, [invalidField('metadata.name', body.metadata.name, 'must match the service account name if specified')]);
    }
    if (body.metadata.namespace && body.metadata.namespace !== namespace) {
      throw invalid(TOKEN_REQUEST_GK, name, [invalidField('metadata.namespace', body.metadata.namespace, 'must match the service account namespace if specified')]);
    }
    const spec: TokenRequestSpec = { ...((body.spec as TokenRequestSpec | undefined) ?? {}) };
    spec.expirationSeconds ??= DEFAULT_TOKEN_SECONDS;
    if (!spec.audiences || spec.audiences.length === 0) spec.audiences = [...o.apiAudiences];
    const now = o.now();
    const errs = validateTokenRequestSpec(spec);
    if (errs.length) throw invalid(TOKEN_REQUEST_GK, '', errs);

    let pod: ObjectRef | undefined;
    let secret: ObjectRef | undefined;
    let node: ObjectRef | undefined;
    const ref = spec.boundObjectRef;
    if (ref) {
      const gv = groupVersionOf(ref.apiVersion ?? '');
      const kind = ref.kind ?? '';
      const refName = ref.name ?? '';
      let uid: string;
      if (gv.group === '' && kind === 'Pod') {
        const p = await o.getter.get('pods', namespace, refName);
        const podSpec = (p.spec ?? {}) as { serviceAccountName?: string; nodeName?: string };
        if (name !== (podSpec.serviceAccountName ?? '')) {
          throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(name)} to pod running with different serviceaccount name.`);
        }
        uid = p.metadata.uid ?? '';
        pod = { name: p.metadata.name ?? refName, uid };
        if (podSpec.nodeName) {
          // A missing Node still leaves its name in the claims (kube does the same), just without a UID.
          const n = await o.getter.get('nodes', '', podSpec.nodeName).catch(() => undefined);
          node = { name: podSpec.nodeName, uid: n?.metadata.uid ?? '' };
        }
      } else if (gv.group === '' && kind === 'Node') {
        const n = await o.getter.get('nodes', '', refName);
        uid = n.metadata.uid ?? '';
        node = { name: n.metadata.name ?? refName, uid };
      } else if (gv.group === '' && kind === 'Secret') {
        const s = await o.getter.get('secrets', namespace, refName);
        uid = s.metadata.uid ?? '';
        secret = { name: s.metadata.name ?? refName, uid };
      } else {
        throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(name)} to object of type ${gv.group}/${gv.version}, Kind=${kind}.`);
      }
      if (ref.uid && ref.uid !== uid) {
        throw conflict(
          { group: gv.group, resource: kind },
          refName,
          `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
        );
      }
    }

    if (o.maxExpirationSeconds > 0 && spec.expirationSeconds > o.maxExpirationSeconds) {
      req.warnings.push(`requested expiration of ${spec.expirationSeconds} seconds shortened to ${o.maxExpirationSeconds} seconds`);
      spec.expirationSeconds = o.maxExpirationSeconds;
    }
    let warnAfter = 0;
    let exp = spec.expirationSeconds;
    const kubeAudiences = spec.audiences.every((a) => audSet.has(a));
    if (o.extendExpiration && pod && exp === WARN_ONLY_BOUND_TOKEN_SECONDS && kubeAudiences) {
      warnAfter = exp;
      exp = EXTENDED_TOKEN_SECONDS;
    }
    const claims = makeClaims({
      issuer: o.generator.issuer,
      serviceAccount: { namespace: sa.metadata.namespace ?? namespace, name: sa.metadata.name ?? name, uid: sa.metadata.uid ?? '' },
      pod,
      secret,
      node,
      expirationSeconds: exp,
      warnAfterSeconds: warnAfter,
      audiences: spec.audiences,
      now,
      jti: randomUUID(),
    });
    const token = await o.generator.generate(claims);
    if (req.auditAnnotations) req.auditAnnotations[ISSUED_CREDENTIAL_ID_ANNOTATION] = credentialIdForJti(claims.jti)!;
    const outSpec: Record<string, unknown> = { audiences: spec.audiences, expirationSeconds: spec.expirationSeconds };
    if (ref) outSpec.boundObjectRef = ref;
    return {
      metadata: { name: body.metadata.name || (sa.metadata.name ?? name), namespace: body.metadata.namespace || (sa.metadata.namespace ?? namespace), creationTimestamp: rfc3339(now) },
      spec: outSpec,
      status: { token, expirationTimestamp: rfc3339(new Date(now.getTime() + spec.expirationSeconds * 1000)) },
    };
  };
}

/** Adds serviceaccounts/token (create) to the serviceaccounts def; every other def passes through. */
export function withTokenSubresource(o: TokenRequestOptions): (def: ResourceDef) => ResourceDef {
  const handler = createTokenRequest(o);
  return (def) => {
    if (def.group !== '' || def.resource !== 'serviceaccounts') return def;
    return {
      ...def,
      subresources: [...def.subresources.filter((s) => s.name !== 'token'), { name: 'token', kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }, verbs: ['create'] }],
      subresourceCreate: { ...def.subresourceCreate, token: handler },
    };
  };
}

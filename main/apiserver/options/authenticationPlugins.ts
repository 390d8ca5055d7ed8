// Authentication's part of the server, assembled from its configuration:
// the request authenticators after x509 (static tokens, service-account
// JWTs, an unrecognised bearer token's refusal, anonymous last), the
// impersonation filter, serviceaccounts/NAME/token, and the TokenReview and
// SelfSubjectReview resources. Files are read here, once, so a bad key or
// token file stops the server at start with a message naming it.

import type { ApiServerConfig } from '../config';
import type { Authenticator } from '../authn/authenticator';
import type { ServerPlugins } from '../serverPlugins';
import { anonymousAuthenticator } from '../authn/anonymous';
import { withImpersonation } from '../server/filters/withImpersonation';
import { selfSubjectReviewDef, tokenReviewDef } from '../registry/authentication/reviews';
import { serviceAccountAuthenticator, storageGetter } from '../authn/serviceAccountAuthenticator';
import { readPublicKeysFile, readSigningKeyFile, type SigningKey, type VerifyingKey } from '../authn/serviceAccountKeys';
import { bearerAuthenticator, unrecognisedBearerToken, type TokenAuthenticator } from '../authn/tokenAuthenticator';
import { readTokenFile, tokenFileAuthenticator, type TokenFile } from '../authn/tokenFile';
import { jwtTokenGenerator } from '../authn/tokenGenerator';
import { withTokenSubresource } from '../registry/core/serviceAccountToken';

export interface AuthenticationConfig {
  tokenAuthFile?: string;
  serviceAccountKeyFiles: string[];
  serviceAccountSigningKeyFile?: string;
  serviceAccountIssuers: string[];
  /** --api-audiences; empty = the issuers. */
  apiAudiences: string[];
  maxTokenExpirationSeconds: number;
  extendTokenExpiration: boolean;
  anonymous: boolean;
}

interface Loaded {
  tokenFile?: TokenFile;
  keys: VerifyingKey[];
  signingKey?: SigningKey;
  apiAudiences: string[];
}

function load(c: AuthenticationConfig, log: (l: string) => void): Loaded {
  const tokenFile = c.tokenAuthFile ? readTokenFile(c.tokenAuthFile) : undefined;
  for (const w of tokenFile?.warnings ?? []) log(`authentication: ${w}`);
  const keys = c.serviceAccountKeyFiles.flatMap((f) => readPublicKeysFile(f));
  const signingKey = c.serviceAccountSigningKeyFile ? readSigningKeyFile(c.serviceAccountSigningKeyFile) : undefined;
  // kube: without --api-audiences the issuers are the audiences.
  const apiAudiences = c.apiAudiences.length ? c.apiAudiences : [...c.serviceAccountIssuers];
  return { tokenFile, keys, signingKey, apiAudiences };
}

/** Adds authentication to cfg.plugins, after (and composed with) whatever other groups put there. */
export function applyAuthentication(c: AuthenticationConfig, cfg: ApiServerConfig, log: (l: string) => void = (l) => process.stderr.write(`${l}\n`)): void {
  const loaded = load(c, log);
  const plugins: ServerPlugins = (cfg.plugins ??= {});
  const tokenAuthenticators = (env: Parameters<NonNullable<ServerPlugins['authenticators']>>[0]): TokenAuthenticator[] => {
    const out: TokenAuthenticator[] = [];
    if (loaded.tokenFile) out.push(tokenFileAuthenticator(loaded.tokenFile));
    if (loaded.keys.length && c.serviceAccountIssuers.length) {
      out.push(serviceAccountAuthenticator({ issuers: c.serviceAccountIssuers, keys: loaded.keys, apiAudiences: loaded.apiAudiences, getter: storageGetter(env), now: () => env.now(), legacy: true }));
    }
    return out;
  };
  // Built once per env: the request authenticators and TokenReview share them.
  const perEnv = new WeakMap<object, TokenAuthenticator[]>();
  const tokensFor = (env: Parameters<NonNullable<ServerPlugins['authenticators']>>[0]): TokenAuthenticator[] => {
    let t = perEnv.get(env);
    if (!t) perEnv.set(env, (t = tokenAuthenticators(env)));
    return t;
  };

  const previousAuthenticators = plugins.authenticators;
  plugins.authenticators = (env) => {
    const list: Authenticator[] = [...(previousAuthenticators?.(env) ?? [])];
    list.push(...tokensFor(env).map((t) => bearerAuthenticator(t, loaded.apiAudiences)));
    list.push(unrecognisedBearerToken());
    if (c.anonymous) list.push(anonymousAuthenticator());
    return list;
  };

  // Impersonation runs first among the request filters: right after audit, before authorization (kube's order).
  const previousFilters = plugins.requestFilters;
  plugins.requestFilters = (env) => [withImpersonation(env), ...(previousFilters?.(env) ?? [])];

  plugins.extraResources ??= [];
  plugins.extraResources.push((env) => [tokenReviewDef({ tokenAuthenticators: tokensFor(env), apiAudiences: loaded.apiAudiences }), selfSubjectReviewDef(() => env.now())]);

  if (loaded.signingKey && c.serviceAccountIssuers.length) {
    const generator = jwtTokenGenerator(c.serviceAccountIssuers[0]!, loaded.signingKey);
    plugins.decorateResources ??= [];
    plugins.decorateResources.push((env) =>
      withTokenSubresource({
        generator,
        apiAudiences: loaded.apiAudiences,
        getter: storageGetter(env),
        maxExpirationSeconds: c.maxTokenExpirationSeconds,
        extendExpiration: c.extendTokenExpiration,
        now: () => env.now(),
      }),
    );
  }
}

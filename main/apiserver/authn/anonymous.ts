// --anonymous-auth: a request that carries no credential at all becomes
// system:anonymous in group system:unauthenticated (and never
// system:authenticated). It is a fallback authenticator: it runs only when
// no other authenticator recognised the request and none refused a
// credential, so a bad token or certificate stays a 401 (kube wraps its
// union in NewFailOnError for the same reason). kube-apiserver turns it off
// when the AlwaysAllow authorizer is configured, since that would let
// anyone who can reach the port do anything; options/authentication.ts
// applies that rule with kube's warning.

import type { Authenticator } from './authenticator';

export const ANONYMOUS_USER = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
export const AUTHENTICATED_GROUP = 'system:authenticated';

export function anonymousAuthenticator(): Authenticator {
  return {
    name: 'anonymous',
    fallback: true,
    authenticate: () => ({ username: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] }),
  };
}

/** kube's ApplyAuthorization warning, printed when AlwaysAllow switches anonymous auth off. */
export const ANONYMOUS_WITH_ALWAYS_ALLOW_WARNING =
  'AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer';

// Signs service-account tokens (kube's JWTTokenGenerator): a compact JWS with
// the protected header {"alg", "kid"} — no "typ", as kube's tokens have
// none — over the claims, with the --service-account-signing-key-file key;
// the issuer is the first --service-account-issuer.

import { CompactSign } from 'jose';
import type { SigningKey } from './serviceAccountKeys';
import type { TokenClaims } from './serviceAccountClaims';

export interface TokenGenerator {
  issuer: string;
  generate(claims: TokenClaims): Promise<string>;
}

export function jwtTokenGenerator(issuer: string, key: SigningKey): TokenGenerator {
  return {
    issuer,
    generate: (claims) =>
      new CompactSign(new TextEncoder().encode(JSON.stringify(claims))).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey),
  };
}

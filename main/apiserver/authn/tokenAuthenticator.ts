// Bearer tokens: `Authorization: Bearer <token>` (kube's bearertoken
// authenticator) handed to token authenticators — static tokens, service
// account JWTs — each of which recognises a token, refuses it with a reason,
// or says it is not theirs. Audiences travel with the check: a request to
// this server targets the API audiences (--api-audiences), a TokenReview the
// audiences it names; audience-agnostic authenticators (static tokens) count
// only for the API audiences, as kube's WrapAudienceAgnosticToken.

import type { IncomingMessage } from 'node:http';
import { AuthenticationError, type Authenticator } from './authenticator';
import type { UserInfo } from './user';

export interface TokenResult {
  user: UserInfo;
  /** The audiences the token was accepted for (the intersection with the requested ones). */
  audiences: string[];
}

export interface TokenAuthenticator {
  /** 'token' (static tokens), 'serviceaccount': what the trace names. */
  name: string;
  /** The token carries no audience: valid only where the API audiences are asked for. */
  audienceAgnostic?: boolean;
  /**
   * undefined: not this authenticator's token; a throw: its token, refused
   * (the message says why); a result: the user.
   */
  authenticateToken(token: string, audiences: string[] | undefined): Promise<TokenResult | undefined> | TokenResult | undefined;
}

/** The bearer token of a request, exactly as kube reads it (`bearer` in any case, a non-empty second word). */
export function bearerToken(req: Pick<IncomingMessage, 'headers'>): string | undefined {
  const auth = (req.headers.authorization ?? '').trim();
  if (auth === '') return undefined;
  const parts = splitN(auth, ' ', 3);
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  const token = parts[1]!;
  return token === '' ? undefined : token;
}

/** Go's strings.SplitN. */
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

export function intersect(a: string[], b: string[]): string[] {
  const set = new Set(b);
  return a.filter((x) => set.has(x));
}

/**
 * One token authenticator, with the audience rule applied: an
 * audience-agnostic one answers only when the targeted audiences meet the
 * API audiences, and its result carries that intersection.
 */
export async function runTokenAuthenticator(a: TokenAuthenticator, token: string, target: string[] | undefined, apiAudiences: string[]): Promise<TokenResult | undefined> {
  if (!a.audienceAgnostic || target === undefined) return a.authenticateToken(token, target);
  const auds = intersect(apiAudiences, target);
  if (auds.length === 0) return undefined;
  const r = await a.authenticateToken(token, target);
  return r ? { ...r, audiences: auds } : undefined;
}

/**
 * The union of token authenticators for one token: the first result wins;
 * refusals are collected; nothing recognised and nothing refused is kube's
 * `invalid bearer token`. Throws an AuthenticationError with Go's aggregate text.
 */
export async function authenticateToken(auths: TokenAuthenticator[], token: string, target: string[] | undefined, apiAudiences: string[]): Promise<TokenResult & { by: string }> {
  const errors: string[] = [];
  for (const a of auths) {
    try {
      const r = await runTokenAuthenticator(a, token, target, apiAudiences);
      if (r) return { ...r, by: a.name };
    } catch (err) {
      errors.push(err instanceof Error ? err.message : String(err));
    }
  }
  throw new AuthenticationError(errors.length ? aggregateMessage(errors) : INVALID_BEARER_TOKEN);
}

export const INVALID_BEARER_TOKEN = 'invalid bearer token';

/** utilerrors.Aggregate's Error(): one message alone, several deduplicated in brackets. */
export function aggregateMessage(messages: string[]): string {
  const seen = [...new Set(messages)];
  if (seen.length === 1) return seen[0]!;
  return `[${seen.join(', ')}]`;
}

/**
 * A request authenticator for one token authenticator: reads the bearer
 * token and targets the API audiences (when there are any), as kube's
 * authentication filter does for every request.
 */
export function bearerAuthenticator(a: TokenAuthenticator, apiAudiences: string[]): Authenticator {
  const target = apiAudiences.length ? apiAudiences : undefined;
  return {
    name: a.name,
    async authenticate(req) {
      const token = bearerToken(req);
      if (token === undefined) return undefined;
      const r = await runTokenAuthenticator(a, token, target, apiAudiences);
      return r?.user;
    },
  };
}

/**
 * Runs after every other authenticator: a bearer token nobody recognised
 * (and nobody refused) is refused here, so it never falls through to
 * anonymous — kube's bearer authenticator turns "not mine" into this error.
 */
export function unrecognisedBearerToken(): Authenticator {
  return {
    name: 'token',
    fallback: true,
    authenticate(req) {
      if (bearerToken(req) !== undefined) throw new AuthenticationError(INVALID_BEARER_TOKEN);
      return undefined;
    },
  };
}

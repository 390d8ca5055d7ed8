// The web host's access token. Anyone on this machine can reach a port on
// 127.0.0.1 (other users, other programs, a web page's fetch through the
// browser), and the console can kill cluster members and open shells, so
// every request must prove it came from the person who started the host: a
// random token from the printed URL, or the cookie the host set when that
// URL was first opened (so assets and reloads work without the query).

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, base64url (43 characters, URL and cookie safe). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Constant-time comparison. Both sides are hashed first so timingSafeEqual
 * always sees equal lengths and the comparison leaks neither content nor length.
 */
export function tokenEquals(given: string | undefined, expected: string): boolean {
  if (given === undefined || given === '') return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * The cookie's name includes the port: cookies are not isolated by port, and
 * two hosts on different ports must not overwrite each other's token.
 */
export function tokenCookieName(port: number): string {
  return `pilothouse_token_${port}`;
}

/** Set-Cookie value: script cannot read it, other sites cannot send it. */
export function tokenCookie(port: number, token: string): string {
  return `${tokenCookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`;
}

/** Parse a Cookie header into name → value (first occurrence wins). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (name && !out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

export interface PresentedToken {
  /** From ?token= in the request URL. */
  query?: string;
  /** From the host's cookie. */
  cookie?: string;
}

/** Where the request carries a token, if anywhere. */
export function presentedToken(url: URL, cookieHeader: string | undefined, port: number): PresentedToken {
  return {
    query: url.searchParams.get('token') ?? undefined,
    cookie: parseCookies(cookieHeader).get(tokenCookieName(port)),
  };
}

// One decision for every HTTP request and WebSocket upgrade, before anything
// is served: wrong Host/Origin → 403 (DNS rebinding, cross-site sockets), no
// valid token → 401, otherwise allowed — and whether to set the token cookie
// (the request proved itself with ?token= and has no valid cookie yet).

import { hostAllowed, originAllowed } from './hostCheck';
import { presentedToken, tokenEquals } from './token';

export type GuardVerdict =
  | { status: 403; reason: string }
  | { status: 401; reason: string }
  | { status: 200; url: URL; setCookie: boolean };

export interface GuardedRequest {
  url?: string;
  headers: { host?: string; origin?: string; cookie?: string };
}

export function guardRequest(req: GuardedRequest, port: number, token: string): GuardVerdict {
  const host = req.headers.host;
  if (!hostAllowed(host, port)) return { status: 403, reason: `host ${JSON.stringify(host ?? '')} is not this console (use 127.0.0.1:${port})` };
  if (!originAllowed(req.headers.origin, port)) return { status: 403, reason: `origin ${JSON.stringify(req.headers.origin)} may not use this console` };
  let url: URL;
  try {
    url = new URL(req.url ?? '/', `http://${host}`);
  } catch {
    return { status: 401, reason: 'unauthorized' };
  }
  const presented = presentedToken(url, req.headers.cookie, port);
  const queryOk = tokenEquals(presented.query, token);
  const cookieOk = tokenEquals(presented.cookie, token);
  if (!queryOk && !cookieOk) {
    return { status: 401, reason: 'unauthorized: open the URL `pilothouse web` printed (also in DATA_DIR/console.url); it carries the access token' };
  }
  return { status: 200, url, setCookie: queryOk && !cookieOk };
}

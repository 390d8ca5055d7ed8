// One decision for every HTTP request and WebSocket upgrade, before anything
// is served. Every request: wrong Host/Origin → 403 (DNS rebinding,
// cross-site sockets), an unparsable target → 400. The static renderer needs nothing more (it holds no
// secrets); the bridge upgrade must also offer the bridge subprotocol and the
// access token (token.ts) → else 401.

import { hostAllowed, originAllowed } from './hostCheck';
import { offeredProtocols, tokenEquals } from './token';

export type GuardVerdict = { status: 400 | 401 | 403; reason: string } | { status: 200; url: URL };

export interface GuardedRequest {
  url?: string;
  headers: { host?: string; origin?: string; 'sec-websocket-protocol'?: string };
}

export const UNAUTHORIZED =
  'unauthorized: open the URL `pilothouse web` printed (also in DATA_DIR/console.url); its #token= fragment carries the access token';

/** Host and Origin: any request to this console. */
export function guardRequest(req: GuardedRequest, port: number): GuardVerdict {
  const host = req.headers.host;
  if (!hostAllowed(host, port)) return { status: 403, reason: `host ${JSON.stringify(host ?? '')} is not this console (use 127.0.0.1:${port})` };
  if (!originAllowed(req.headers.origin, port)) return { status: 403, reason: `origin ${JSON.stringify(req.headers.origin)} may not use this console` };
  try {
    return { status: 200, url: new URL(req.url ?? '/', `http://${host}`) };
  } catch {
    return { status: 400, reason: 'unparsable request target' };
  }
}

/** A bridge upgrade: the request guard, then the bridge subprotocol with the token. */
export function guardBridgeUpgrade(req: GuardedRequest, port: number, token: string): GuardVerdict {
  const verdict = guardRequest(req, port);
  if (verdict.status !== 200) return verdict;
  const offered = offeredProtocols(req.headers['sec-websocket-protocol']);
  if (!offered.bridge || !tokenEquals(offered.token, token)) return { status: 401, reason: UNAUTHORIZED };
  return verdict;
}

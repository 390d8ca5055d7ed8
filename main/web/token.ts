// The web host's access token. Anyone on this machine can reach a port on
// 127.0.0.1 (other users, other programs, a web page's fetch through the
// browser), and the console can kill cluster members and open shells, so
// every bridge connection must prove it came from the person who started the
// host: a random token the page got from the printed URL's fragment.
//
// The token travels only in the WebSocket handshake's Sec-WebSocket-Protocol
// header (as kube-apiserver's `base64url.bearer.authorization.k8s.io.` does
// for browser WebSockets): never in a request URL (server logs, history, a
// process list), never in a cookie (cookies ignore ports, so every other
// service on 127.0.0.1 would receive it).

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { BRIDGE_SUBPROTOCOL, TOKEN_SUBPROTOCOL_PREFIX } from '../../preload/contract';

/** 32 random bytes, base64url (43 characters: URL safe, and every character is legal in a subprotocol name). */
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

/** What a Sec-WebSocket-Protocol header offers: the bridge protocol, and the token if any. */
export interface OfferedProtocols {
  bridge: boolean;
  token?: string;
}

export function offeredProtocols(header: string | undefined): OfferedProtocols {
  const offered: OfferedProtocols = { bridge: false };
  for (const raw of (header ?? '').split(',')) {
    const p = raw.trim();
    if (p === BRIDGE_SUBPROTOCOL) offered.bridge = true;
    else if (p.startsWith(TOKEN_SUBPROTOCOL_PREFIX) && offered.token === undefined) offered.token = p.slice(TOKEN_SUBPROTOCOL_PREFIX.length);
  }
  return offered;
}

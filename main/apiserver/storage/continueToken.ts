// kube's list continue token (k8s.io/apiserver pkg/storage/continue.go):
// base64url (no padding) of JSON {"v":"meta.k8s.io/v1","rv":N,"start":"<key after the list prefix>"}.
// Clients treat it as opaque; another apiserver (or real kube) can resume a
// list we started, so the format and the error texts are kube's.

import { posix } from 'node:path';

const VERSION = 'meta.k8s.io/v1';

export function encodeContinue(key: string, keyPrefix: string, rv: bigint): string {
  if (!key.startsWith(keyPrefix) || key === keyPrefix) throw new Error('unable to encode next field: the key and key prefix do not match');
  const json = JSON.stringify({ v: VERSION, rv: Number(rv), start: key.slice(keyPrefix.length) });
  return Buffer.from(json).toString('base64url');
}

/** Returns the full start key and the list revision; throws Error with kube's "continue key is not valid..." text. */
export function decodeContinue(token: string, keyPrefix: string): { fromKey: string; rv: bigint } {
  if (!/^[A-Za-z0-9_-]*$/.test(token) || token.length % 4 === 1) {
    throw new Error(`continue key is not valid: illegal base64 data at input byte ${firstBadByte(token)}`);
  }
  let c: { v?: unknown; rv?: unknown; start?: unknown };
  try {
    c = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch (e) {
    throw new Error(`continue key is not valid: ${(e as Error).message}`);
  }
  if (c === null || typeof c !== 'object') throw new Error('continue key is not valid: json: cannot unmarshal into Go value of type storage.continueToken');
  if (c.v !== VERSION) throw new Error(`continue key is not valid: server does not recognize this encoded version ${String(c.v ?? '')}`);
  const rv = typeof c.rv === 'number' && Number.isInteger(c.rv) ? BigInt(c.rv) : 0n;
  if (rv === 0n) throw new Error('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  const start = typeof c.start === 'string' ? c.start : '';
  if (start === '') throw new Error('continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  // A start key may not climb above the list prefix ("../secrets/x").
  const key = start.startsWith('/') ? start : `/${start}`;
  const cleaned = posix.normalize(key).replace(/(.)\/$/, '$1');
  if (cleaned !== key) throw new Error(`continue key is not valid: ${start}`);
  return { fromKey: keyPrefix + cleaned.slice(1), rv };
}

function firstBadByte(token: string): number {
  const i = token.search(/[^A-Za-z0-9_-]/);
  return i >= 0 ? i : token.length - 1;
}

// The pod-template-hash label: kube's controller.ComputeHash — FNV-32a over
// the pod template, then the collision count as 8 little-endian bytes (only
// the low 4 set), printed in decimal and passed through rand.SafeEncodeString,
// which maps each digit onto an alphabet without vowels (no accidental words)
// and without 0/1/3 (no look-alikes).
//
// One deliberate difference: kube feeds the hasher spew's dump of the Go
// struct; we feed it the template's canonical JSON (keys sorted, recursively).
// Same properties — deterministic, changes whenever the template changes —
// but the values differ from a real cluster's for the same template.

const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** rand.SafeEncodeString: each byte indexes the alphabet modulo its length. */
export function safeEncodeString(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) out += SAFE_ALPHABET[b % SAFE_ALPHABET.length];
  return out;
}

export function fnv32a(bytes: Uint8Array, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** JSON with object keys sorted at every level; undefined members dropped, as JSON does. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : canonicalJson(x))).join(',')}]`;
  const rec = v as Record<string, unknown>;
  const keys = Object.keys(rec)
    .filter((k) => rec[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(rec[k])}`).join(',')}}`;
}

export function computeHash(template: unknown, collisionCount?: number): string {
  let h = fnv32a(Buffer.from(canonicalJson(template), 'utf8'));
  if (collisionCount !== undefined && collisionCount !== null) {
    const extra = Buffer.alloc(8);
    extra.writeUInt32LE(collisionCount >>> 0, 0);
    h = fnv32a(extra, h);
  }
  return safeEncodeString(String(h));
}

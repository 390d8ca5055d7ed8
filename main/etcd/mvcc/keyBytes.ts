// Keys inside the store are "binary strings": one UTF-16 code unit per byte
// (latin1). JavaScript compares such strings code unit by code unit, which is
// exactly etcd's bytes.Compare order, and they hash and compare far faster
// than Uint8Arrays in the B-tree. Conversion happens once at the store's edge.

/** Bytes → binary string (one char per byte, 0..255). */
export function toKeyString(bytes: Uint8Array): string {
  // Short keys are the norm; a plain loop avoids Buffer allocation for them.
  if (bytes.length <= 64) {
    let s = '';
    for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]!);
    return s;
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/** Binary string → fresh bytes. */
export function fromKeyString(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s, 'latin1'));
}

/** bytes.Compare: negative, zero or positive. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** A private copy, so the store never pins a caller's (e.g. a decoded Raft entry's) larger buffer. */
export function copyBytes(b: Uint8Array): Uint8Array {
  return b.slice();
}

/**
 * The end of a key range as etcd's mvcc sees it, after apply.go's mkGteRange:
 * `undefined` = the single key, `null` = every key ≥ key (rangeEnd "\0"),
 * otherwise [key, end).
 */
export type RangeEnd = string | null | undefined;

export function toRangeEnd(rangeEnd: Uint8Array): RangeEnd {
  if (rangeEnd.length === 0) return undefined;
  if (rangeEnd.length === 1 && rangeEnd[0] === 0) return null;
  return toKeyString(rangeEnd);
}

// CRC-32C (Castagnoli), the checksum etcd's WAL uses. Node 20 has no built-in
// crc32 of either kind, so this is the classic table-driven "slicing-by-8"
// form: eight 256-entry tables let the loop consume eight bytes per step,
// which matters because every WAL byte passes through here on the hot path.

const POLY = 0x82f63b78; // reversed Castagnoli polynomial

const TABLES = buildTables();

function buildTables(): Uint32Array {
  const t = new Uint32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
    t[n] = c >>> 0;
  }
  // Table k advances a byte's contribution by k further zero bytes.
  for (let n = 0; n < 256; n++) {
    let c = t[n];
    for (let k = 1; k < 8; k++) {
      c = t[c & 0xff] ^ (c >>> 8);
      t[k * 256 + n] = c >>> 0;
    }
  }
  return t;
}

/**
 * Continues `crc` (the value returned for the bytes so far; 0 to start) over
 * bytes[start, end). Because the input and output are both the finalized
 * value, chaining calls gives the same result as one call over the whole
 * range — which is what makes a rolling checksum across records possible.
 */
export function crc32c(crc: number, bytes: Uint8Array, start = 0, end = bytes.length): number {
  const t = TABLES;
  let c = ~crc >>> 0;
  let i = start;
  for (const stop = end - 8; i <= stop; i += 8) {
    c ^= bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    const hi = bytes[i + 4] | (bytes[i + 5] << 8) | (bytes[i + 6] << 16) | (bytes[i + 7] << 24);
    c =
      t[1792 + (c & 0xff)] ^
      t[1536 + ((c >>> 8) & 0xff)] ^
      t[1280 + ((c >>> 16) & 0xff)] ^
      t[1024 + (c >>> 24)] ^
      t[768 + (hi & 0xff)] ^
      t[512 + ((hi >>> 8) & 0xff)] ^
      t[256 + ((hi >>> 16) & 0xff)] ^
      t[hi >>> 24];
  }
  for (; i < end; i++) c = t[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

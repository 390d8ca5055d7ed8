// The HPACK Huffman code (RFC 7541 §5.2, Appendix B). The code is canonical:
// ordered by (length, symbol), each code is the previous one plus one,
// shifted left when the length grows. So the table below holds only the bit
// length of each symbol (0..255, then EOS = 256) and the codes are derived;
// the tests compare derived codes with Appendix B and decode its examples.

/** Code length in bits of each symbol; index 256 is EOS. */
const CODE_LENGTHS: readonly number[] = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, // 0-15
  28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28, // 16-31
  6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, // ' ' - '/'
  5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10, // '0' - '?'
  13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, // '@' - 'O'
  7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6, // 'P' - '_'
  15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, // '`' - 'o'
  6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28, // 'p' - 127
  20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, // 128-143
  24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, // 144-159
  22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, // 160-175
  21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, // 176-191
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, // 192-207
  19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, // 208-223
  20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, // 224-239
  26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, // 240-255
  30, // EOS
];

export const EOS = 256;

/** Each symbol's code, assigned in canonical order. */
const canonical = (() => {
  const symbols = CODE_LENGTHS.map((_, s) => s).sort((a, b) => CODE_LENGTHS[a]! - CODE_LENGTHS[b]! || a - b);
  const codes = new Uint32Array(CODE_LENGTHS.length);
  let code = 0;
  let len = CODE_LENGTHS[symbols[0]!]!;
  for (const s of symbols) {
    const l = CODE_LENGTHS[s]!;
    code *= 2 ** (l - len);
    len = l;
    codes[s] = code++;
  }
  return { codes };
})();

/** The code of `symbol`, right-aligned, and its length (for tests and the encoder). */
export function huffmanCode(symbol: number): { code: number; bits: number } {
  return { code: canonical.codes[symbol]!, bits: CODE_LENGTHS[symbol]! };
}

export class HuffmanError extends Error {}

/**
 * A decoding state machine read four bits at a time (as nghttp2 does): the
 * states are the internal nodes of the code tree; for each state and nibble
 * the table gives the next state and the symbol completed on the way, if any.
 * A nibble completes at most one symbol, since no code is shorter than 5 bits.
 */
const decodeTable = (() => {
  // The code tree: children[2 * node + bit]; a leaf is stored as ~symbol.
  const children: number[] = [0, 0];
  let nodes = 1;
  for (let s = 0; s <= EOS; s++) {
    const { code, bits } = huffmanCode(s);
    let node = 0;
    for (let b = bits - 1; b >= 0; b--) {
      const slot = 2 * node + (Math.floor(code / 2 ** b) & 1);
      if (b === 0) children[slot] = ~s;
      else {
        if (children[slot] === 0) {
          children[slot] = nodes++;
          children.push(0, 0);
        }
        node = children[slot]!;
      }
    }
  }
  const next = new Uint8Array(nodes * 16);
  const emit = new Int16Array(nodes * 16).fill(-1);
  const fail = new Uint8Array(nodes * 16);
  // A state may end a string if the path to it is at most 7 one-bits (a prefix of EOS).
  const accepting = new Uint8Array(nodes);
  for (let node = 0, depth = 0; depth <= 7; depth++, node = children[2 * node + 1]!) accepting[node] = 1;
  for (let state = 0; state < nodes; state++) {
    for (let nibble = 0; nibble < 16; nibble++) {
      const i = state * 16 + nibble;
      let node = state;
      for (let b = 3; b >= 0; b--) {
        const child = children[2 * node + ((nibble >> b) & 1)]!;
        if (child >= 0) {
          node = child;
          continue;
        }
        if (~child === EOS) fail[i] = 1;
        emit[i] = ~child;
        node = 0;
      }
      next[i] = node;
    }
  }
  return { next, emit, fail, accepting };
})();

/**
 * Decodes a Huffman-coded string. Rejects, as §5.2 requires, an EOS symbol in
 * the data, padding longer than 7 bits and padding that is not all ones.
 */
export function huffmanDecode(data: Buffer): Buffer {
  // Decoded text is at most 8/5 as long as the code (5 bits is the shortest code).
  const out = Buffer.allocUnsafe(Math.ceil((data.length * 8) / 5));
  const { next, emit, fail, accepting } = decodeTable;
  let n = 0;
  let state = 0;
  for (let i = 0; i < data.length; i++) {
    const byte = data[i]!;
    for (let shift = 4; shift >= 0; shift -= 4) {
      const t = state * 16 + ((byte >> shift) & 0xf);
      if (fail[t] === 1) throw new HuffmanError('EOS symbol in Huffman-coded string');
      const s = emit[t]!;
      if (s >= 0) out[n++] = s;
      state = next[t]!;
    }
  }
  if (accepting[state] !== 1) throw new HuffmanError('Huffman padding is longer than 7 bits or not a prefix of EOS');
  return out.subarray(0, n);
}

/** Length in bytes of the Huffman coding of `s` (latin1: one octet per char). */
export function huffmanEncodedLength(s: string): number {
  let bits = 0;
  for (let i = 0; i < s.length; i++) bits += CODE_LENGTHS[s.charCodeAt(i) & 0xff]!;
  return (bits + 7) >> 3;
}

/** Writes the Huffman coding of `s` (latin1) into `out` at `pos`, padded with ones; returns the end position. */
export function huffmanEncodeInto(s: string, out: Buffer, pos: number): number {
  const { codes } = canonical;
  // acc keeps fewer than 8 pending bits between steps; codes longer than 24
  // bits go in two steps, so acc never exceeds 31 bits and int ops are exact.
  let acc = 0;
  let pending = 0;
  for (let i = 0; i < s.length; i++) {
    const sym = s.charCodeAt(i) & 0xff;
    let bits = CODE_LENGTHS[sym]!;
    const code = codes[sym]!;
    if (bits > 24) {
      const low = bits - 16;
      acc = (acc << low) | (code >>> 16);
      pending += low;
      while (pending >= 8) {
        pending -= 8;
        out[pos++] = acc >>> pending;
      }
      acc &= (1 << pending) - 1;
      bits = 16;
    }
    acc = (acc << bits) | (code & ((1 << bits) - 1));
    pending += bits;
    while (pending >= 8) {
      pending -= 8;
      out[pos++] = acc >>> pending;
    }
    acc &= (1 << pending) - 1;
  }
  if (pending > 0) out[pos++] = (acc << (8 - pending)) | (0xff >> pending);
  return pos;
}

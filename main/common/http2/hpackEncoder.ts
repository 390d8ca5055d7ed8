// An HPACK encoder that never touches the receiver's dynamic table: every
// field goes out as a literal without indexing (or never indexed, when it
// arrived that way), naming the static table entry when there is one. So the
// encoder has no state, and a decoder on the other side keeps whatever table
// it had. Strings are Huffman-coded when that is shorter.

import type { HeaderField } from './hpackDecoder';
import { huffmanEncodedLength, huffmanEncodeInto } from './huffman';
import { STATIC_NAME_INDEX } from './staticTable';

/**
 * Encodes `fields`, preceded by `tableSizeUpdates` (§6.3), which must be
 * passed through when the peer's encoder sent them: the receiver may be
 * waiting for one after lowering its SETTINGS_HEADER_TABLE_SIZE.
 */
export function encodeHeaderBlock(fields: readonly HeaderField[], tableSizeUpdates: readonly number[] = []): Buffer {
  // Sized first, written second; Huffman lengths are computed once and kept.
  const indices = new Array<number>(fields.length);
  const huffLengths: number[] = [];
  let size = 0;
  for (const u of tableSizeUpdates) size += integerLength(u, 5);
  fields.forEach((f, i) => {
    const index = STATIC_NAME_INDEX.get(f.name) ?? 0;
    indices[i] = index;
    size += integerLength(index, 4);
    if (index === 0) size += stringLength(f.name, huffLengths);
    size += stringLength(f.value, huffLengths);
  });
  const out = Buffer.allocUnsafe(size);
  let pos = 0;
  let h = 0;
  for (const u of tableSizeUpdates) pos = writeInteger(out, pos, 0x20, 5, u);
  fields.forEach((f, i) => {
    pos = writeInteger(out, pos, f.sensitive ? 0x10 : 0x00, 4, indices[i]!);
    if (indices[i] === 0) pos = writeString(out, pos, f.name, huffLengths[h++]!);
    pos = writeString(out, pos, f.value, huffLengths[h++]!);
  });
  return out;
}

function integerLength(value: number, prefixBits: number): number {
  const max = (1 << prefixBits) - 1;
  if (value < max) return 1;
  let n = 1;
  for (let v = value - max; ; v = Math.floor(v / 128)) {
    n++;
    if (v < 128) return n;
  }
}

/** §5.1: `flags` are the bits above the prefix in the first byte. */
function writeInteger(out: Buffer, pos: number, flags: number, prefixBits: number, value: number): number {
  const max = (1 << prefixBits) - 1;
  if (value < max) {
    out[pos++] = flags | value;
    return pos;
  }
  out[pos++] = flags | max;
  let v = value - max;
  while (v >= 128) {
    out[pos++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  out[pos++] = v;
  return pos;
}

/** Encoded size of a string literal (§5.2); records its Huffman length in `huffLengths`. */
function stringLength(s: string, huffLengths: number[]): number {
  const huffLen = huffmanEncodedLength(s);
  huffLengths.push(huffLen);
  const len = Math.min(huffLen, s.length);
  return integerLength(len, 7) + len;
}

/** `s` is latin1: one octet per char. */
function writeString(out: Buffer, pos: number, s: string, huffLen: number): number {
  if (huffLen < s.length) {
    pos = writeInteger(out, pos, 0x80, 7, huffLen);
    return huffmanEncodeInto(s, out, pos);
  }
  pos = writeInteger(out, pos, 0x00, 7, s.length);
  return pos + out.write(s, pos, 'latin1');
}

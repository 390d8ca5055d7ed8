// An HPACK decoder (RFC 7541) that mirrors one peer's encoder: it keeps the
// dynamic table exactly as the peer's encoder does, so every later block of
// the connection decodes. It reports, besides the fields, what a re-encoder
// must keep: which fields were "never indexed" (§6.2.3: an intermediary must
// re-encode them the same way) and the table size updates at the block start.

import { huffmanDecode } from './huffman';
import { STATIC_TABLE, type HeaderEntry } from './staticTable';

export interface HeaderField extends HeaderEntry {
  /** Sent as a never-indexed literal (sensitive, e.g. a credential). */
  readonly sensitive: boolean;
}

export interface DecodedBlock {
  fields: HeaderField[];
  /** Dynamic table size updates found at the start of the block, in order. */
  tableSizeUpdates: number[];
}

export class HpackError extends Error {}

/**
 * The decoded header list grew past `maxHeaderListSize`. Decoding stops
 * there, so the dynamic table no longer mirrors the peer's: the connection
 * cannot go on being decoded (RFC 7541 §2.3.2 needs every block).
 */
export class HeaderListTooLargeError extends HpackError {}

export interface HpackDecoderOptions {
  /**
   * Largest decoded header list, counted as SETTINGS_MAX_HEADER_LIST_SIZE
   * counts it (RFC 7540 §6.5.2: name and value octets plus 32 per field).
   * It bounds what one block can expand to: a one-byte indexed field can
   * stand for a table entry of thousands of octets (an HPACK bomb).
   * Unlimited by default.
   */
  maxHeaderListSize?: number;
}

/** RFC 7541 §4.1: an entry's size is its name and value octets plus 32. */
const ENTRY_OVERHEAD = 32;
/** Larger integers than this are not legitimate in any field of a header block we accept. */
const MAX_INTEGER = 2 ** 31 - 1;

export class HpackDecoder {
  /** Newest entry last; dynamic index 1 is entries[entries.length - 1]. */
  private readonly entries: HeaderEntry[] = [];
  private size = 0;
  private maxSize: number;
  private readonly maxHeaderListSize: number;

  /**
   * @param maxSize the initial table size (SETTINGS_HEADER_TABLE_SIZE default 4096)
   * @param sizeLimit the largest size a table size update may ask for; the real
   *   bound is the receiver's own setting, which the receiver checks itself.
   *   A larger update is a decoding error (§4.2), which HTTP/2 answers with a
   *   COMPRESSION_ERROR.
   */
  constructor(
    maxSize = 4096,
    private readonly sizeLimit = 65536,
    opts: HpackDecoderOptions = {},
  ) {
    this.maxSize = maxSize;
    this.maxHeaderListSize = opts.maxHeaderListSize ?? Infinity;
  }

  /** The dynamic table, newest first, and its size: for tests and debugging. */
  get table(): { entries: HeaderEntry[]; size: number; maxSize: number } {
    return { entries: [...this.entries].reverse(), size: this.size, maxSize: this.maxSize };
  }

  /** Decodes one complete header block; throws HpackError on malformed input. */
  decode(block: Buffer): DecodedBlock {
    const fields: HeaderField[] = [];
    const tableSizeUpdates: number[] = [];
    const r = { pos: 0 };
    let listSize = 0;
    const push = (f: HeaderField) => {
      listSize += f.name.length + f.value.length + ENTRY_OVERHEAD;
      if (listSize > this.maxHeaderListSize) throw new HeaderListTooLargeError(`header list larger than ${this.maxHeaderListSize} octets`);
      fields.push(f);
    };
    while (r.pos < block.length) {
      const b = block[r.pos]!;
      if (b & 0x80) {
        // §6.1 indexed field
        const e = this.lookup(readInteger(block, r, 7));
        push({ name: e.name, value: e.value, sensitive: false });
      } else if (b & 0x40) {
        // §6.2.1 literal with incremental indexing
        const f = this.readLiteral(block, r, 6, false);
        this.add(f);
        push(f);
      } else if (b & 0x20) {
        // §6.3 dynamic table size update: only before the first field (§4.2)
        if (fields.length > 0) throw new HpackError('table size update after a header field');
        const size = readInteger(block, r, 5);
        if (size > this.sizeLimit) throw new HpackError(`table size update to ${size} exceeds ${this.sizeLimit}`);
        this.maxSize = size;
        this.evictTo(size);
        tableSizeUpdates.push(size);
      } else {
        // §6.2.2 without indexing (0000), §6.2.3 never indexed (0001)
        push(this.readLiteral(block, r, 4, (b & 0x10) !== 0));
      }
    }
    return { fields, tableSizeUpdates };
  }

  private lookup(index: number): HeaderEntry {
    if (index === 0) throw new HpackError('index 0');
    if (index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1]!;
    const d = index - STATIC_TABLE.length;
    if (d > this.entries.length) throw new HpackError(`index ${index} beyond the dynamic table`);
    return this.entries[this.entries.length - d]!;
  }

  private readLiteral(block: Buffer, r: { pos: number }, prefixBits: number, sensitive: boolean): HeaderField {
    const nameIndex = readInteger(block, r, prefixBits);
    const name = nameIndex === 0 ? readString(block, r) : this.lookup(nameIndex).name;
    const value = readString(block, r);
    return { name, value, sensitive };
  }

  /** §4.4: evict oldest entries to make room; an entry larger than the table empties it. */
  private add(e: HeaderEntry): void {
    const size = e.name.length + e.value.length + ENTRY_OVERHEAD;
    this.evictTo(this.maxSize - size);
    if (size <= this.maxSize) {
      this.entries.push({ name: e.name, value: e.value });
      this.size += size;
    }
  }

  private evictTo(limit: number): void {
    let drop = 0;
    while (this.size > Math.max(limit, 0) && drop < this.entries.length) {
      const e = this.entries[drop++]!;
      this.size -= e.name.length + e.value.length + ENTRY_OVERHEAD;
    }
    if (drop > 0) this.entries.splice(0, drop);
  }
}

/** §5.1 integer with an N-bit prefix, starting at r.pos (the prefix byte). */
function readInteger(block: Buffer, r: { pos: number }, prefixBits: number): number {
  const max = (1 << prefixBits) - 1;
  let value = block[r.pos++]! & max;
  if (value < max) return value;
  let shift = 0;
  for (;;) {
    if (r.pos >= block.length) throw new HpackError('truncated integer');
    const b = block[r.pos++]!;
    value += (b & 0x7f) * 2 ** shift;
    if (value > MAX_INTEGER) throw new HpackError('integer overflow');
    if ((b & 0x80) === 0) return value;
    shift += 7;
    if (shift > 28) throw new HpackError('integer too long');
  }
}

/** §5.2 string literal: H bit, 7-bit-prefix length, octets (Huffman-coded when H). */
function readString(block: Buffer, r: { pos: number }): string {
  if (r.pos >= block.length) throw new HpackError('truncated string');
  const huffman = (block[r.pos]! & 0x80) !== 0;
  const len = readInteger(block, r, 7);
  if (r.pos + len > block.length) throw new HpackError('truncated string');
  const raw = block.subarray(r.pos, r.pos + len);
  r.pos += len;
  try {
    return (huffman ? huffmanDecode(raw) : raw).toString('latin1');
  } catch (err) {
    throw new HpackError((err as Error).message);
  }
}

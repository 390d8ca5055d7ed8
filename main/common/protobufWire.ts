// The protobuf wire format, by hand: varints, tags and length-delimited
// fields. Small on purpose — toProto.ts and fromProto.ts decide what gets
// written (gogo's rules), this only knows how.

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

export class WireWriter {
  private buf: Uint8Array;
  private len = 0;

  /** scratch: a buffer to write into (grown by copying when too small; finish() copies the result out). */
  constructor(scratch?: Uint8Array) {
    this.buf = scratch ?? new Uint8Array(512);
  }

  /** The buffer written into: the scratch given, or a larger one it outgrew into (worth keeping for the next writer). */
  get buffer(): Uint8Array {
    return this.buf;
  }

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  /** Unsigned varint of a non-negative safe integer, or any int64 as a bigint/negative number (two's complement, 10 bytes). */
  varint(value: number | bigint): this {
    if (typeof value === 'number' && value >= 0 && value <= Number.MAX_SAFE_INTEGER) {
      this.ensure(8);
      let v = value;
      while (v > 0x7f) {
        this.buf[this.len++] = (v % 128) | 0x80;
        v = Math.floor(v / 128);
      }
      this.buf[this.len++] = v;
      return this;
    }
    let v = BigInt.asUintN(64, BigInt(value));
    this.ensure(10);
    while (v > 0x7fn) {
      this.buf[this.len++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.len++] = Number(v);
    return this;
  }

  tag(id: number, wireType: number): this {
    return this.varint(id * 8 + wireType);
  }

  bytes(data: Uint8Array): this {
    this.varint(data.length);
    return this.raw(data);
  }

  string(s: string): this {
    // ASCII, the common case, without an intermediate buffer.
    const n = s.length;
    if (n < 128) {
      let ascii = true;
      for (let i = 0; i < n; i++) {
        if (s.charCodeAt(i) > 0x7f) {
          ascii = false;
          break;
        }
      }
      if (ascii) {
        this.ensure(n + 1);
        this.buf[this.len++] = n;
        for (let i = 0; i < n; i++) this.buf[this.len++] = s.charCodeAt(i);
        return this;
      }
    }
    return this.bytes(utf8.encode(s));
  }

  raw(data: Uint8Array): this {
    this.ensure(data.length);
    this.buf.set(data, this.len);
    this.len += data.length;
    return this;
  }

  /** Starts a length-delimited field written in place; pass the result to ldelim() when its content is written. */
  fork(): number {
    this.ensure(1);
    this.len++; // one byte for the length, moved right if the content needs a longer varint
    return this.len;
  }

  ldelim(start: number): this {
    const size = this.len - start;
    if (size < 128) {
      this.buf[start - 1] = size;
      return this;
    }
    let extra = 0;
    for (let v = size; v >= 128; v = Math.floor(v / 128)) extra++;
    this.ensure(extra);
    this.buf.copyWithin(start + extra, start, this.len);
    this.len += extra;
    let pos = start - 1;
    let v = size;
    while (v > 0x7f) {
      this.buf[pos++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[pos] = v;
    return this;
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

export class WireReader {
  pos = 0;
  constructor(private readonly buf: Uint8Array) {}

  eof(): boolean {
    return this.pos >= this.buf.length;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.buf.length) throw new Error('proto: truncated varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return result;
      shift += 7n;
    }
    throw new Error('proto: varint too long');
  }

  /** A varint known to fit 32 bits unsigned (tags, lengths). */
  uint32(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 5; i++) {
      if (this.pos >= this.buf.length) throw new Error('proto: truncated varint');
      const b = this.buf[this.pos++];
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
    // Longer (a negative int32 written as 10 bytes): skip the rest, keep the low bits.
    while (this.pos < this.buf.length && this.buf[this.pos++] >= 0x80);
    return result % 2 ** 32;
  }

  tag(): { id: number; wireType: number } {
    const t = this.uint32();
    return { id: Math.floor(t / 8), wireType: t & 7 };
  }

  bytes(): Uint8Array {
    const n = this.uint32();
    if (this.pos + n > this.buf.length) throw new Error('proto: truncated length-delimited field');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  string(): string {
    return utf8String(this.bytes());
  }

  /** A varint as a JS number when it fits 53 bits (sizes, counts, times), else via bigint. */
  number64(): number {
    let result = 0;
    let mul = 1;
    const start = this.pos;
    for (let i = 0; i < 8; i++) {
      if (this.pos >= this.buf.length) throw new Error('proto: truncated varint');
      const b = this.buf[this.pos++];
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
    this.pos = start;
    return Number(BigInt.asIntN(64, this.varint()));
  }

  skip(wireType: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_FIXED64:
        this.pos += 8;
        return;
      case WIRE_BYTES:
        this.bytes();
        return;
      case WIRE_FIXED32:
        this.pos += 4;
        return;
      default:
        throw new Error(`proto: unsupported wire type ${wireType}`);
    }
  }
}

export function utf8Bytes(s: string): Uint8Array {
  return utf8.encode(s);
}

export function utf8String(b: Uint8Array): string {
  const n = b.length;
  if (n < 64) {
    let out = '';
    for (let i = 0; i < n; i++) {
      const c = b[i];
      if (c > 0x7f) return utf8Decoder.decode(b);
      out += String.fromCharCode(c);
    }
    return out;
  }
  return utf8Decoder.decode(b);
}

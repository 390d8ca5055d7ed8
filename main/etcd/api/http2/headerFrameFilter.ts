// A filter over the client-to-server bytes of one HTTP/2 connection that can
// rewrite request header fields and leaves everything else byte for byte.
//
// The stream is the 24-byte client preface, then frames (RFC 7540 §4.1):
//
//   +-----------------------------------------------+
//   |                 Length (24)                   |
//   +---------------+---------------+---------------+
//   |   Type (8)    |   Flags (8)   |
//   +-+-------------+---------------+-------------------------------+
//   |R|                 Stream Identifier (31)                      |
//   +=+=============================================================+
//   |                   Frame Payload (Length)                      |
//
// Only header blocks (a HEADERS frame and its CONTINUATIONs, §6.2, §6.10) are
// held back: each is HPACK-decoded with a decoder that mirrors the client's
// encoder, and handed to `rewrite`.
//
// Invariants:
//  1. Until `rewrite` first changes a block, blocks go out as received, so the
//     server's HPACK table is the client's and untouched clients see no change.
//  2. From then on every block is re-encoded with literals that do not index
//     (hpackEncoder.ts): the server's table stops changing, and references
//     into the client's table are resolved here. Table size updates pass on.
//  3. All other frames, and the bytes of a chunk between header blocks, go
//     out as views of the input chunk; a chunk without a header block comes
//     out as itself.
//  4. Input this filter cannot follow (a malformed block, a frame where a
//     CONTINUATION must be, a block past the limits below) is handed on
//     unchanged and the filter steps aside (transparent), so the server
//     reports the error as it would have. After a rewrite that is no longer
//     possible, and `push` throws a HeaderFilterError carrying the HTTP/2
//     error code the server gives for it; the socket answers it with GOAWAY.
//
// Limits, so that what a peer sends is never held or expanded without bound.
// They are those of the server behind the filter, Node's nghttp2, which
// advertises no SETTINGS of its own (so the defaults hold):
//  - at most MAX_CONTINUATIONS CONTINUATION frames per block (nghttp2 1.61's
//    max_continuations; it ends the connection past that), so an endless
//    run of empty CONTINUATIONs is not held here;
//  - a block of at most (1 + MAX_CONTINUATIONS) frames of the default
//    SETTINGS_MAX_FRAME_SIZE, the most nghttp2 takes;
//  - table size updates up to the default SETTINGS_HEADER_TABLE_SIZE, 4096
//    (RFC 7541 §4.2: a larger one is a COMPRESSION_ERROR);
//  - a decoded header list no larger than the block limit. Re-encoded
//    literals are never larger than the decoded list (§4.1 counts 32 octets
//    per field, a literal costs at most a few), so a rewritten block always
//    fits in the frames nghttp2 takes, and a small block whose indexed
//    fields all name one large table entry (an HPACK bomb) cannot expand
//    into megabytes here. grpc-go, etcd's server, caps the list at 16 MiB
//    (defaultServerMaxHeaderListSize; etcd sets no MaxHeaderListSize), which
//    nghttp2's limits keep out of reach.

import { encodeHeaderBlock } from '../../../common/http2/hpackEncoder';
import { HeaderListTooLargeError, HpackDecoder, HpackError, type HeaderField } from '../../../common/http2/hpackDecoder';

const PREFACE_LENGTH = 24;
const FRAME_HEADER_LENGTH = 9;
const TYPE_HEADERS = 0x1;
const TYPE_CONTINUATION = 0x9;
const FLAG_END_STREAM = 0x1;
const FLAG_END_HEADERS = 0x4;
const FLAG_PADDED = 0x8;
const FLAG_PRIORITY = 0x20;
/** SETTINGS_MAX_FRAME_SIZE's initial value: a frame this size is always allowed (§6.5.2). */
const DEFAULT_MAX_FRAME_SIZE = 16384;
/** nghttp2's max_continuations default: more CONTINUATIONs in one block end the connection. */
export const MAX_CONTINUATIONS = 8;
/** Compressed header blocks larger than this are not held back; the filter steps aside. */
const DEFAULT_MAX_BLOCK_SIZE = (1 + MAX_CONTINUATIONS) * DEFAULT_MAX_FRAME_SIZE;
/** SETTINGS_HEADER_TABLE_SIZE's initial value, which the server behind never changes. */
const HEADER_TABLE_SIZE = 4096;

/** RFC 7540 §7 error codes this filter answers with. */
export const ErrorCode = { PROTOCOL_ERROR: 0x1, COMPRESSION_ERROR: 0x9, ENHANCE_YOUR_CALM: 0xb } as const;

/** Returns the new fields for a block, or null to leave it as it is. */
export type HeaderRewrite = (fields: HeaderField[]) => HeaderField[] | null;

/** Input the filter cannot hand on after a rewrite: a connection error (RFC 7540 §5.4.1). */
export class HeaderFilterError extends Error {
  constructor(
    message: string,
    /** The HTTP/2 error code for the GOAWAY. */
    readonly code: number,
    /** The last stream whose header block was passed on. */
    readonly lastStreamId: number,
  ) {
    super(message);
  }
}

export interface HeaderFrameFilterOptions {
  /** Largest frame payload written for a re-encoded block. */
  maxFrameSize?: number;
  maxBlockSize?: number;
}

interface FrameInProgress {
  type: number;
  flags: number;
  header: Buffer;
  parts: Buffer[];
  left: number;
}

interface PendingBlock {
  streamId: number;
  /** Flags of the HEADERS frame. */
  flags: number;
  /** Stream dependency and weight (5 bytes) when the PRIORITY flag is set. */
  priority: Buffer | null;
  fragments: Buffer[];
  size: number;
  continuations: number;
  /** Every byte of the block's frames as received, for passing it on unchanged. */
  raw: Buffer[];
}

export class HeaderFrameFilter {
  private transparent = false;
  private rewriting = false;
  private prefaceLeft = PREFACE_LENGTH;
  /** Payload bytes of a passed-through frame still to come. */
  private skipLeft = 0;
  /** A frame header split across chunks. */
  private readonly head = Buffer.alloc(FRAME_HEADER_LENGTH);
  private headFill = 0;
  private frame: FrameInProgress | null = null;
  private block: PendingBlock | null = null;
  private readonly decoder: HpackDecoder;
  private readonly maxFrameSize: number;
  private readonly maxBlockSize: number;
  /** The highest stream id whose header block was passed on. */
  private lastStreamId = 0;

  constructor(
    private readonly rewrite: HeaderRewrite,
    opts: HeaderFrameFilterOptions = {},
  ) {
    this.maxFrameSize = opts.maxFrameSize ?? DEFAULT_MAX_FRAME_SIZE;
    this.maxBlockSize = opts.maxBlockSize ?? DEFAULT_MAX_BLOCK_SIZE;
    this.decoder = new HpackDecoder(HEADER_TABLE_SIZE, HEADER_TABLE_SIZE, { maxHeaderListSize: this.maxBlockSize });
  }

  /** True once a block has been rewritten on this connection. */
  get hasRewritten(): boolean {
    return this.rewriting;
  }

  /** Consumes one chunk; returns the bytes to forward now, in order. */
  push(chunk: Buffer): Buffer[] {
    if (this.transparent) return [chunk];
    const out = new Output();
    const n = chunk.length;
    let i = 0;
    /** Start of the bytes of this chunk that pass through and are not yet in `out`. */
    let pass = 0;
    while (i < n && !this.transparent) {
      if (this.prefaceLeft > 0) {
        const k = Math.min(this.prefaceLeft, n - i);
        this.prefaceLeft -= k;
        i += k;
        continue;
      }
      if (this.skipLeft > 0) {
        const k = Math.min(this.skipLeft, n - i);
        this.skipLeft -= k;
        i += k;
        continue;
      }
      if (this.frame !== null) {
        const f = this.frame;
        const k = Math.min(f.left, n - i);
        f.parts.push(chunk.subarray(i, i + k));
        f.left -= k;
        i += k;
        pass = i;
        if (f.left === 0) this.endFrame(out);
        continue;
      }

      // At a frame header.
      let header: Buffer;
      let headerInPass: boolean;
      if (this.headFill === 0 && n - i >= FRAME_HEADER_LENGTH) {
        header = chunk.subarray(i, i + FRAME_HEADER_LENGTH);
        headerInPass = true;
      } else {
        out.push(chunk.subarray(pass, i));
        const k = Math.min(FRAME_HEADER_LENGTH - this.headFill, n - i);
        chunk.copy(this.head, this.headFill, i, i + k);
        this.headFill += k;
        i += k;
        pass = i;
        if (this.headFill < FRAME_HEADER_LENGTH) continue;
        this.headFill = 0;
        header = Buffer.from(this.head);
        headerInPass = false;
      }
      const length = header.readUIntBE(0, 3);
      const type = header[3]!;
      const flags = header[4]!;
      const streamId = header.readUInt32BE(5) & 0x7fffffff;

      if (this.block === null && type !== TYPE_HEADERS) {
        if (headerInPass) i += FRAME_HEADER_LENGTH;
        else out.push(header);
        this.skipLeft = length;
        continue;
      }
      if (headerInPass) {
        out.push(chunk.subarray(pass, i));
        i += FRAME_HEADER_LENGTH;
        pass = i;
      }
      if (this.block !== null && (type !== TYPE_CONTINUATION || streamId !== this.block.streamId)) {
        this.stepAside(out, 'expected CONTINUATION', [header], ErrorCode.PROTOCOL_ERROR);
        continue;
      }
      if (this.block !== null && this.block.continuations >= MAX_CONTINUATIONS) {
        this.stepAside(out, `more than ${MAX_CONTINUATIONS} CONTINUATION frames`, [header], ErrorCode.ENHANCE_YOUR_CALM);
        continue;
      }
      if ((this.block?.size ?? 0) + length > this.maxBlockSize) {
        this.stepAside(out, 'header block too large', [header], ErrorCode.ENHANCE_YOUR_CALM);
        continue;
      }
      this.frame = { type, flags, header, parts: [], left: length };
      if (length === 0) this.endFrame(out);
    }
    if (pass === 0 && out.pieces.length === 0) return [chunk];
    out.push(chunk.subarray(pass, n));
    return out.pieces;
  }

  /** A HEADERS or CONTINUATION frame is complete. */
  private endFrame(out: Output): void {
    const f = this.frame!;
    this.frame = null;
    const payload = f.parts.length === 1 ? f.parts[0]! : Buffer.concat(f.parts);
    const raw = [f.header, ...f.parts];
    if (f.type === TYPE_HEADERS) {
      let start = 0;
      let end = payload.length;
      if (f.flags & FLAG_PADDED) {
        if (payload.length < 1) return this.stepAside(out, 'HEADERS too short for its padding', raw, ErrorCode.PROTOCOL_ERROR);
        start = 1;
        end -= payload[0]!;
      }
      let priority: Buffer | null = null;
      if (f.flags & FLAG_PRIORITY) {
        priority = payload.subarray(start, start + 5);
        start += 5;
      }
      if (end < start) return this.stepAside(out, 'HEADERS padding exceeds the payload', raw, ErrorCode.PROTOCOL_ERROR);
      const fragment = payload.subarray(start, end);
      this.block = {
        streamId: f.header.readUInt32BE(5) & 0x7fffffff,
        flags: f.flags,
        priority,
        fragments: [fragment],
        size: payload.length,
        continuations: 0,
        raw,
      };
    } else {
      const b = this.block!;
      b.fragments.push(payload);
      b.size += payload.length;
      b.continuations++;
      b.raw.push(...raw);
    }
    if (f.flags & FLAG_END_HEADERS) this.endBlock(out);
  }

  private endBlock(out: Output): void {
    const b = this.block!;
    this.block = null;
    const data = b.fragments.length === 1 ? b.fragments[0]! : Buffer.concat(b.fragments);
    let decoded;
    try {
      decoded = this.decoder.decode(data);
    } catch (err) {
      if (!(err instanceof HpackError)) throw err;
      const code = err instanceof HeaderListTooLargeError ? ErrorCode.ENHANCE_YOUR_CALM : ErrorCode.COMPRESSION_ERROR;
      return this.stepAside(out, `HPACK: ${err.message}`, b.raw, code);
    }
    this.lastStreamId = Math.max(this.lastStreamId, b.streamId);
    const fields = this.rewrite(decoded.fields);
    if (fields === null && !this.rewriting) {
      for (const r of b.raw) out.push(r);
      return;
    }
    this.rewriting = true;
    const encoded = encodeHeaderBlock(fields ?? decoded.fields, decoded.tableSizeUpdates);
    out.push(headerFrames(b.streamId, b.flags, b.priority, encoded, this.maxFrameSize));
  }

  /** Invariant 4: hand on what is held, unchanged, and stop filtering. */
  private stepAside(out: Output, reason: string, current: Buffer[], code: number): void {
    if (this.rewriting) throw new HeaderFilterError(`${reason} after a rewritten header block`, code, this.lastStreamId);
    for (const r of this.block?.raw ?? []) out.push(r);
    for (const r of current) out.push(r);
    this.block = null;
    this.frame = null;
    this.transparent = true;
  }
}

/**
 * One header block as a HEADERS frame plus CONTINUATIONs, each payload at
 * most `maxFrameSize`. Padding is dropped; END_STREAM and the priority
 * fields are kept; END_HEADERS goes on the last frame.
 */
export function headerFrames(streamId: number, flags: number, priority: Buffer | null, block: Buffer, maxFrameSize: number): Buffer {
  const prefix = priority ? 5 : 0;
  const firstLen = Math.min(block.length, maxFrameSize - prefix);
  const rest = block.length - firstLen;
  const continuations = Math.ceil(rest / maxFrameSize);
  const out = Buffer.allocUnsafe(FRAME_HEADER_LENGTH * (1 + continuations) + prefix + block.length);
  const headersFlags = (flags & (FLAG_END_STREAM | FLAG_PRIORITY)) | (continuations === 0 ? FLAG_END_HEADERS : 0);
  let pos = writeFrameHeader(out, 0, prefix + firstLen, TYPE_HEADERS, headersFlags, streamId);
  if (priority) pos += priority.copy(out, pos);
  pos += block.copy(out, pos, 0, firstLen);
  for (let from = firstLen; from < block.length; from += maxFrameSize) {
    const len = Math.min(maxFrameSize, block.length - from);
    const last = from + len === block.length;
    pos = writeFrameHeader(out, pos, len, TYPE_CONTINUATION, last ? FLAG_END_HEADERS : 0, streamId);
    pos += block.copy(out, pos, from, from + len);
  }
  return out;
}

function writeFrameHeader(out: Buffer, pos: number, length: number, type: number, flags: number, streamId: number): number {
  out.writeUIntBE(length, pos, 3);
  out[pos + 3] = type;
  out[pos + 4] = flags;
  out.writeUInt32BE(streamId, pos + 5);
  return pos + FRAME_HEADER_LENGTH;
}

/** Output pieces; adjacent views of the same memory are merged into one. */
class Output {
  readonly pieces: Buffer[] = [];

  push(b: Buffer): void {
    if (b.length === 0) return;
    const last = this.pieces[this.pieces.length - 1];
    if (last !== undefined && last.buffer === b.buffer && last.byteOffset + last.length === b.byteOffset) {
      this.pieces[this.pieces.length - 1] = Buffer.from(last.buffer, last.byteOffset, last.length + b.length);
    } else {
      this.pieces.push(b);
    }
  }
}

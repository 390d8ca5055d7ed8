// Header blocks as http2Connection.ts receives them (RFC 9113 §4.3, §6.2,
// §6.10): a HEADERS frame (its padding and priority fields removed) and the
// CONTINUATIONs that follow it, assembled and decoded with an HPACK table that
// mirrors the server's. Two bounds, golang.org/x/net/http2's and grpc-go's:
//   - the fragments together may hold at most twice maxHeaderList bytes,
//     checked as each arrives, so a CONTINUATION flood is never held: past
//     that, a connection error PROTOCOL_ERROR (a block we stop reading leaves
//     the HPACK table behind, so the connection cannot go on);
//   - a decoded list above maxHeaderList (RFC 7541 sizes) is reported to the
//     caller, which resets that stream: the table took the block, so the
//     connection goes on.

import { HpackDecoder, type HeaderField } from '../../common/http2/hpackDecoder';
import { ErrorCode, Flag, unpad } from './http2Frames';

/** RFC 7541 §4.1: a field's size is its name and value octets plus 32. */
const FIELD_OVERHEAD = 32;

export interface ConnectionError {
  code: number;
  message: string;
}

/** A decoded block; withinLimit is false when its list is larger than maxHeaderList. */
export type OnHeaderBlock = (streamId: number, endStream: boolean, fields: HeaderField[], withinLimit: boolean) => void;

export class HeaderBlockReader {
  private readonly decoder = new HpackDecoder(4096, 4096);
  private streamId = 0;
  private endStream = false;
  private fragments: Buffer[] = [];
  private bytes = 0;
  /** A HEADERS frame without END_HEADERS came: only its CONTINUATIONs may follow. */
  open = false;

  constructor(private readonly maxHeaderList: number, private readonly onBlock: OnHeaderBlock) {}

  headers(streamId: number, flags: number, payload: Buffer): ConnectionError | undefined {
    let fragment = unpad(flags, payload);
    if (!fragment) return { code: ErrorCode.PROTOCOL_ERROR, message: 'bad padding' };
    if (flags & Flag.PRIORITY) fragment = fragment.subarray(5);
    this.open = true;
    this.streamId = streamId;
    this.endStream = (flags & Flag.END_STREAM) !== 0;
    this.fragments = [];
    this.bytes = 0;
    return this.fragment(flags, fragment);
  }

  continuation(streamId: number, flags: number, payload: Buffer): ConnectionError | undefined {
    if (!this.open || this.streamId !== streamId) return { code: ErrorCode.PROTOCOL_ERROR, message: 'unexpected CONTINUATION frame' };
    return this.fragment(flags, payload);
  }

  private fragment(flags: number, fragment: Buffer): ConnectionError | undefined {
    this.bytes += fragment.length;
    if (this.bytes > 2 * this.maxHeaderList) return { code: ErrorCode.PROTOCOL_ERROR, message: `header block of more than ${2 * this.maxHeaderList} bytes (SETTINGS_MAX_HEADER_LIST_SIZE ${this.maxHeaderList})` };
    this.fragments.push(fragment);
    if (!(flags & Flag.END_HEADERS)) return undefined;
    this.open = false;
    const fragments = this.fragments;
    this.fragments = [];
    let fields: HeaderField[];
    try {
      // Decoded even for a stream the caller no longer follows: the table must stay in step with the server's.
      fields = this.decoder.decode(fragments.length === 1 ? fragments[0] : Buffer.concat(fragments, this.bytes)).fields;
    } catch (e) {
      return { code: ErrorCode.COMPRESSION_ERROR, message: `bad header block: ${(e as Error).message}` };
    }
    let size = 0;
    for (let i = 0; i < fields.length; i++) size += fields[i].name.length + fields[i].value.length + FIELD_OVERHEAD;
    this.onBlock(this.streamId, this.endStream, fields, size <= this.maxHeaderList);
    return undefined;
  }
}

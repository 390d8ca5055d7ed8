// HTTP/2's framing (RFC 9113 §4, §6) for http2Connection.ts: the frame types,
// flags, settings and error codes the client uses, the reader that cuts a
// byte stream into frames whatever the chunk boundaries, and the payload
// padding.

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
export const FRAME_HEADER = 9;

export const FrameType = { DATA: 0x0, HEADERS: 0x1, RST_STREAM: 0x3, SETTINGS: 0x4, PUSH_PROMISE: 0x5, PING: 0x6, GOAWAY: 0x7, WINDOW_UPDATE: 0x8, CONTINUATION: 0x9 } as const;
/** ACK shares END_STREAM's bit (on SETTINGS and PING). */
export const Flag = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 } as const;
export const Setting = { ENABLE_PUSH: 0x2, MAX_CONCURRENT_STREAMS: 0x3, INITIAL_WINDOW_SIZE: 0x4, MAX_FRAME_SIZE: 0x5, MAX_HEADER_LIST_SIZE: 0x6 } as const;
export const ErrorCode = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  FLOW_CONTROL_ERROR: 0x3,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
  ENHANCE_YOUR_CALM: 0xb,
  INADEQUATE_SECURITY: 0xc,
} as const;

/** The initial window and frame size every HTTP/2 peer starts with (§6.9.2, §6.5.2). */
export const DEFAULT_WINDOW = 65_535;
export const DEFAULT_MAX_FRAME = 16_384;
export const MAX_FRAME_LIMIT = 2 ** 24 - 1;
export const MAX_STREAM_ID = 2 ** 31 - 1;
export const MAX_WINDOW = 2 ** 31 - 1;
/** Payload sizes fixed by the spec (GOAWAY: at least 8, with debug data after). */
export const FIXED_PAYLOAD_SIZE: Record<number, number> = { [FrameType.RST_STREAM]: 4, [FrameType.PING]: 8, [FrameType.GOAWAY]: 8, [FrameType.WINDOW_UPDATE]: 4 };

export type FrameHandler = (type: number, flags: number, streamId: number, payload: Buffer) => boolean;

/** Cuts the server's bytes into frames; a frame cut by a chunk boundary waits for the rest. */
export class FrameReader {
  private rest: Buffer | undefined;

  /**
   * Hands each complete frame of the bytes so far to `onFrame` (which answers
   * false to stop: the connection failed). Returns an error message for a
   * frame larger than our SETTINGS_MAX_FRAME_SIZE (we never raise it).
   */
  push(chunk: Buffer, onFrame: FrameHandler): string | undefined {
    const buf = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    this.rest = undefined;
    let at = 0;
    while (buf.length - at >= FRAME_HEADER) {
      const length = buf.readUIntBE(at, 3);
      if (length > DEFAULT_MAX_FRAME) return `frame of ${length} bytes exceeds SETTINGS_MAX_FRAME_SIZE`;
      if (buf.length - at < FRAME_HEADER + length) break;
      const type = buf[at + 3];
      const flags = buf[at + 4];
      const streamId = buf.readUInt32BE(at + 5) & MAX_STREAM_ID;
      const payload = buf.subarray(at + FRAME_HEADER, at + FRAME_HEADER + length);
      at += FRAME_HEADER + length;
      if (!onFrame(type, flags, streamId, payload)) return undefined;
    }
    if (at < buf.length) this.rest = buf.subarray(at);
    return undefined;
  }
}

/** A frame's 9-byte header. */
export function frameHeader(type: number, flags: number, streamId: number, length: number): Buffer {
  const head = Buffer.allocUnsafe(FRAME_HEADER);
  head.writeUIntBE(length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId, 5);
  return head;
}

/** The payload without its padding (§6.1), or undefined when the padding is malformed. */
export function unpad(flags: number, payload: Buffer): Buffer | undefined {
  if (!(flags & Flag.PADDED)) return payload;
  if (payload.length < 1) return undefined;
  const padLength = payload[0];
  if (padLength >= payload.length) return undefined;
  return payload.subarray(1, payload.length - padLength);
}

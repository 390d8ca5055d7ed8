// Follows the server-to-client bytes of one HTTP/2 connection frame by frame
// (RFC 7540 §4.1; a server sends no preface, its first frame is SETTINGS)
// and tells when the server sent a GOAWAY with an error code. nghttp2 sends
// one for a connection error and then leaves the socket open, waiting for
// the client to close it; the socket closes it instead (RFC 7540 §5.4.1:
// after a connection error "the endpoint MUST close the TCP connection").
// A graceful GOAWAY (NO_ERROR, a drain on shutdown) is not reported.

const FRAME_HEADER_LENGTH = 9;
const TYPE_GOAWAY = 0x7;
/** Last-Stream-ID (4 bytes), then the Error Code (4 bytes). */
const GOAWAY_CODE_END = 8;

export class GoAwayScanner {
  private readonly head = Buffer.alloc(FRAME_HEADER_LENGTH);
  private headFill = 0;
  /** Payload bytes of the current frame still to come. */
  private left = 0;
  /** The start of a GOAWAY payload being collected, or null. */
  private goAway: Buffer | null = null;
  private goAwayFill = 0;

  /** Consumes one written chunk; returns the error code of a GOAWAY that ended in it, or undefined. */
  push(chunk: Buffer): number | undefined {
    let found: number | undefined;
    for (let i = 0; i < chunk.length; ) {
      if (this.left > 0) {
        const k = Math.min(this.left, chunk.length - i);
        if (this.goAway !== null && this.goAwayFill < GOAWAY_CODE_END) {
          const n = Math.min(k, GOAWAY_CODE_END - this.goAwayFill);
          chunk.copy(this.goAway, this.goAwayFill, i, i + n);
          this.goAwayFill += n;
          if (this.goAwayFill === GOAWAY_CODE_END) {
            const code = this.goAway.readUInt32BE(4);
            if (code !== 0) found = code;
          }
        }
        this.left -= k;
        i += k;
        continue;
      }
      const k = Math.min(FRAME_HEADER_LENGTH - this.headFill, chunk.length - i);
      chunk.copy(this.head, this.headFill, i, i + k);
      this.headFill += k;
      i += k;
      if (this.headFill < FRAME_HEADER_LENGTH) break;
      this.headFill = 0;
      this.left = this.head.readUIntBE(0, 3);
      const isGoAway = this.head[3] === TYPE_GOAWAY && this.left >= GOAWAY_CODE_END;
      this.goAway = isGoAway ? Buffer.alloc(GOAWAY_CODE_END) : null;
      this.goAwayFill = 0;
    }
    return found;
  }
}

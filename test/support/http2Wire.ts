// Hand-made HTTP/2 for hostile-client tests: frames and header blocks built
// byte by byte (so they can be wrong on purpose), and a reader that reports
// what a server answered on one connection — its frames, by type and error
// code, and whether it closed — in a form tests compare with `toEqual`.

import type { Duplex } from 'node:stream';

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
export const T = { DATA: 0x0, HEADERS: 0x1, RST_STREAM: 0x3, SETTINGS: 0x4, PING: 0x6, GOAWAY: 0x7, WINDOW_UPDATE: 0x8, CONTINUATION: 0x9 } as const;
export const F = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4 } as const;
const TYPE_NAMES = Object.fromEntries(Object.entries(T).map(([k, v]) => [v, k]));
const CODE_NAMES = ['NO_ERROR', 'PROTOCOL_ERROR', 'INTERNAL_ERROR', 'FLOW_CONTROL_ERROR', 'SETTINGS_TIMEOUT', 'STREAM_CLOSED', 'FRAME_SIZE_ERROR', 'REFUSED_STREAM', 'CANCEL', 'COMPRESSION_ERROR', 'CONNECT_ERROR', 'ENHANCE_YOUR_CALM'];

export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(9);
  h.writeUIntBE(payload.length, 0, 3);
  h[3] = type;
  h[4] = flags;
  h.writeUInt32BE(streamId, 5);
  return Buffer.concat([h, payload]);
}

/** RFC 7541 §5.1 integer; `first` holds the bits above the prefix. */
export function hpackInteger(value: number, prefixBits: number, first = 0): Buffer {
  const max = (1 << prefixBits) - 1;
  if (value < max) return Buffer.from([first | value]);
  const out = [first | max];
  let v = value - max;
  for (; v >= 128; v = Math.floor(v / 128)) out.push((v % 128) | 0x80);
  out.push(v);
  return Buffer.from(out);
}

/** A literal field with a literal name (raw strings); `indexed` adds it to the peer's table. */
export function literal(name: string, value: string, indexed = false): Buffer {
  const n = Buffer.from(name, 'latin1');
  const v = Buffer.from(value, 'latin1');
  return Buffer.concat([Buffer.from([indexed ? 0x40 : 0x00]), hpackInteger(n.length, 7), n, hpackInteger(v.length, 7), v]);
}

/** The header block of a gRPC call to `path` (POST, http or https). */
export function grpcRequestBlock(path: string, authority: string, scheme: 'http' | 'https'): Buffer {
  return Buffer.concat([
    Buffer.from([0x83, scheme === 'http' ? 0x86 : 0x87]),
    literal(':path', path),
    literal(':authority', authority),
    literal('content-type', 'application/grpc'),
    literal('te', 'trailers'),
  ]);
}

/** One gRPC message as a DATA payload (uncompressed). */
export function grpcMessage(body: Buffer): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(body.length, 1);
  return Buffer.concat([prefix, body]);
}

/** A header block split into HEADERS + CONTINUATIONs of at most 16000 bytes each. */
export function headerFrames(streamId: number, block: Buffer, endStream: boolean): Buffer[] {
  const out: Buffer[] = [];
  for (let o = 0; o === 0 || o < block.length; o += 16_000) {
    const last = o + 16_000 >= block.length;
    const flags = (last ? F.END_HEADERS : 0) | (o === 0 && endStream ? F.END_STREAM : 0);
    out.push(frame(o === 0 ? T.HEADERS : T.CONTINUATION, flags, streamId, block.subarray(o, o + 16_000)));
  }
  return out;
}

export interface Answer {
  /** e.g. "SETTINGS", "SETTINGS ACK", "HEADERS 1", "RST_STREAM 1 FRAME_SIZE_ERROR", "GOAWAY ENHANCE_YOUR_CALM". */
  frames: string[];
  /** The server closed the connection before the wait ended. */
  closed: boolean;
  /** Bytes that did not parse as frames (e.g. an HTTP/1 reply). */
  rest: string;
}

/**
 * Writes `bytes` to `socket` (connected or connecting), then collects the
 * server's frames until it closes, `until` matches the frames so far, or
 * `waitMs` passes. PING, WINDOW_UPDATE and DATA are left out of `frames`:
 * servers differ in sending them, and they say nothing about the verdict.
 */
export function exchange(socket: Duplex, bytes: Buffer[], waitMs: number, until?: (frames: string[]) => boolean): Promise<Answer> {
  return new Promise((resolve) => {
    const frames: string[] = [];
    let buf = Buffer.alloc(0);
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ frames, closed, rest: buf.toString('latin1') });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 9) {
        const len = buf.readUIntBE(0, 3);
        if (buf.length < 9 + len || buf[3]! > 0x9) break;
        const type = buf[3]!;
        const p = buf.subarray(9, 9 + len);
        const sid = buf.readUInt32BE(5) & 0x7fffffff;
        const name = TYPE_NAMES[type]!;
        if (type === T.GOAWAY) frames.push(`GOAWAY ${CODE_NAMES[p.readUInt32BE(4)] ?? p.readUInt32BE(4)}`);
        else if (type === T.RST_STREAM) frames.push(`RST_STREAM ${sid} ${CODE_NAMES[p.readUInt32BE(0)] ?? p.readUInt32BE(0)}`);
        else if (type === T.SETTINGS) frames.push(buf[4]! & F.ACK ? 'SETTINGS ACK' : 'SETTINGS');
        else if (type === T.HEADERS || type === T.CONTINUATION) frames.push(`${name} ${sid}`);
        buf = buf.subarray(9 + len);
      }
      if (until?.(frames)) finish(false);
    });
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    socket.write(Buffer.concat(bytes));
  });
}

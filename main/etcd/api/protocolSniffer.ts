// One port, two protocols, as etcd's cmux does on the client port: a
// connection that opens with the HTTP/2 client preface goes to gRPC, anything
// else to the HTTP/1 handler (/health, /version, /metrics). The bytes read to
// decide are pushed back onto the socket before it is handed over, so the
// chosen server sees the stream from its first byte.
//
// A connection that sends nothing is closed after SNIFF_TIMEOUT_MS, so idle
// sockets cannot pile up before any server owns them (cmux's read timeout;
// etcd leaves it unset, which lets such sockets stay until the OS drops
// them). Every client etcd serves writes first: gRPC's preface, an HTTP
// request line; none waits for the server to speak.
//
// It works on any Duplex socket, so TLS can be terminated in front of it
// later (a tls.Server's 'secureConnection' socket sniffed the same way, or
// routed by ALPN "h2" without sniffing).

import type { Socket } from 'node:net';

/** RFC 7540 §3.5: every HTTP/2 client connection starts with these 24 bytes. */
const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** How long a connection may stay silent before its protocol is known. */
export const SNIFF_TIMEOUT_MS = 5_000;

export interface ProtocolRoutes {
  http2(socket: Socket): void;
  http1(socket: Socket): void;
}

/**
 * Reads until the first bytes either match the whole preface or diverge from
 * it (at most 24 bytes are examined), then routes the socket. A socket that
 * closes, or stays silent for `timeoutMs`, before deciding is dropped.
 */
export function routeByPreface(socket: Socket, routes: ProtocolRoutes, timeoutMs = SNIFF_TIMEOUT_MS): void {
  const chunks: Buffer[] = [];
  let seen = 0;
  const timer = setTimeout(onEnd, timeoutMs);

  const cleanup = () => {
    clearTimeout(timer);
    socket.removeListener('readable', onReadable);
    socket.removeListener('end', onEnd);
    socket.removeListener('error', onEnd);
  };

  const decide = (isHttp2: boolean) => {
    cleanup();
    socket.unshift(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    if (isHttp2) routes.http2(socket);
    else routes.http1(socket);
  };

  function onReadable(): void {
    // Bounded: each pass consumes what is buffered; at most 24 bytes decide.
    for (let chunk = socket.read() as Buffer | null; chunk !== null; chunk = socket.read() as Buffer | null) {
      chunks.push(chunk);
      const verdict = compareWithPreface(chunk, seen);
      seen += chunk.length;
      if (verdict === 'differs') return decide(false);
      if (verdict === 'matches' || seen >= HTTP2_PREFACE.length) return decide(true);
    }
  }

  function onEnd(): void {
    cleanup();
    socket.destroy();
  }

  socket.on('readable', onReadable);
  socket.once('end', onEnd);
  socket.once('error', onEnd);
}

/** Compares `chunk`, which starts at preface offset `offset`, with the preface. */
function compareWithPreface(chunk: Buffer, offset: number): 'differs' | 'matches' | 'undecided' {
  const n = Math.min(chunk.length, HTTP2_PREFACE.length - offset);
  for (let i = 0; i < n; i++) {
    if (chunk[i] !== HTTP2_PREFACE[offset + i]) return 'differs';
  }
  return offset + n >= HTTP2_PREFACE.length ? 'matches' : 'undecided';
}

// TLS in front of the client port (etcd's --cert-file, --key-file,
// --trusted-ca-file, --client-cert-auth on https:// listen URLs). TLS ends
// here; what comes out is a plain duplex routed exactly like a TCP
// connection, by ALPN when the client sent it and by the first bytes when
// not.
//
// ALPN choice: gRPC clients (Go's, grpc-js, Java) offer only "h2", while curl,
// browsers and Prometheus offer "http/1.1" beside it. Picking "http/1.1"
// whenever it is offered sends those to the HTTP/1 endpoints; grpc-js would
// answer a non-gRPC HTTP/2 request (curl's /health over h2) with 415.

import type { Socket } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer, type TLSSocket } from 'node:tls';

export interface ClientTlsOptions {
  /** PEM server certificate chain (--cert-file). */
  cert: string | Buffer;
  /** PEM private key (--key-file). */
  key: string | Buffer;
  /** PEM CA bundle that client certificates must chain to (--trusted-ca-file). */
  ca?: string | Buffer;
  /** Require and verify a client certificate (--client-cert-auth). */
  clientCertAuth?: boolean;
}

export type AlpnRoute = 'h2' | 'http/1.1' | 'sniff';

/** A TLS handshake not finished by then ends the connection. */
export const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;

/** ALPN selection; undefined rejects the handshake (no protocol in common). */
export function selectAlpn(offered: string[]): string | undefined {
  if (offered.includes('http/1.1')) return 'http/1.1';
  if (offered.includes('h2')) return 'h2';
  return undefined;
}

/** Where a finished handshake goes: ALPN decides, or the bytes do when no ALPN was sent. */
export function alpnRoute(socket: TLSSocket): AlpnRoute {
  if (socket.alpnProtocol === 'h2') return 'h2';
  if (socket.alpnProtocol === 'http/1.1') return 'http/1.1';
  return 'sniff';
}

/**
 * A TLS listener. `onTcp` sees every raw connection (so close() can drop
 * half-open handshakes); `onSecure` each established TLS socket.
 */
export function createClientTlsServer(
  opts: ClientTlsOptions,
  onTcp: (raw: Socket) => void,
  onSecure: (socket: TLSSocket) => void,
): TlsServer {
  const requireClientCert = opts.clientCertAuth === true;
  const server = createTlsServer({
    cert: opts.cert,
    key: opts.key,
    ca: opts.ca,
    requestCert: requireClientCert,
    rejectUnauthorized: requireClientCert,
    minVersion: 'TLSv1.2',
    // Go sets TCP_NODELAY on every connection; small unary replies must not wait.
    noDelay: true,
    ALPNCallback: ({ protocols }) => selectAlpn(protocols),
    // Node's default is 120 s; a connection that sends nothing is closed as
    // quickly as on a plain port (protocolSniffer.ts), allowing for a loaded
    // machine's slow handshakes.
    handshakeTimeout: TLS_HANDSHAKE_TIMEOUT_MS,
  });
  server.on('connection', onTcp);
  server.on('secureConnection', onSecure);
  // A failed handshake (bad client cert, plain text on a TLS port) only
  // ends that connection; Node reports it here instead of on a socket.
  server.on('tlsClientError', (_err, socket) => socket.destroy());
  return server;
}

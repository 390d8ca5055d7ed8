// The secure port: HTTPS with the serving certificate (--tls-cert-file /
// --tls-private-key-file); client certificates are requested and checked
// against --client-ca-file, but not required at the TLS level — a request
// without one still arrives, and authentication decides (kube's way, so
// token authenticators can run too). Listens on --bind-address:--secure-port.
//
// The connection limits are kube-apiserver's http.Server settings
// (k8s.io/apiserver pkg/server/secure_serving.go): MaxHeaderBytes 1 MiB
// (Go reads 4 KiB past it before answering 431), ReadHeaderTimeout 32 s
// (which also bounds the TLS handshake), IdleTimeout 90 s. The body of a
// request is bounded by the request timeout (withRequestTimeout answers 504;
// Node's requestTimeout closes a connection still sending a few seconds
// later). What Node's parser refuses gets Go's own answer (connectionErrors.ts).

import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { onClientError } from './connectionErrors';
import type { Handler } from './context';
import { requestListener } from './handlerChain';
import type { RequestTraceLog } from './traceLog';

export interface SecureServingOptions {
  bindAddress: string;
  securePort: number;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  clientCaFile?: string;
}

export interface SecureServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

export interface ConnectionLimits {
  /** --request-timeout; 0: none. */
  requestTimeoutMs: number;
  log: (line: string) => void;
}

const MAX_HEADER_BYTES = 1 << 20;
const READ_HEADER_TIMEOUT_MS = 32_000;
const IDLE_TIMEOUT_MS = 90_000;
/** How much longer than --request-timeout a request may still be arriving before its connection closes. */
const BODY_GRACE_MS = 5_000;

export async function serveSecurely(opts: SecureServingOptions, chain: Handler, traces: RequestTraceLog, limits: ConnectionLimits): Promise<SecureServer> {
  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES + 4096,
      handshakeTimeout: READ_HEADER_TIMEOUT_MS,
      // Node checks its header and request timeouts this often (30 s by default, which would double them).
      connectionsCheckingInterval: 1000,
      // Go's answer to a missing Host header differs from Node's (connectionErrors.ts writes it).
      requireHostHeader: false,
      cert: readFileSync(opts.tlsCertFile),
      key: readFileSync(opts.tlsPrivateKeyFile),
      ca: opts.clientCaFile ? readFileSync(opts.clientCaFile) : undefined,
      requestCert: opts.clientCaFile !== undefined,
      rejectUnauthorized: false,
      minVersion: 'TLSv1.2',
    },
    requestListener(chain, traces, limits.log),
  );
  server.keepAliveTimeout = IDLE_TIMEOUT_MS;
  server.headersTimeout = READ_HEADER_TIMEOUT_MS;
  // Node's requestTimeout bounds receiving a request, not answering it: a watch is received at once and not affected.
  server.requestTimeout = limits.requestTimeoutMs > 0 ? limits.requestTimeoutMs + BODY_GRACE_MS : 0;
  server.maxHeadersCount = 0; // Go limits the bytes, not the count
  server.on('clientError', onClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.securePort, opts.bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

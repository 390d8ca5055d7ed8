// The secure port: HTTPS with the serving certificate (--tls-cert-file /
// --tls-private-key-file); client certificates are requested and checked
// against --client-ca-file, but not required at the TLS level — a request
// without one still arrives, and authentication decides (kube's way, so
// token authenticators can run too). Listens on --bind-address:--secure-port.

import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
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

export async function serveSecurely(opts: SecureServingOptions, chain: Handler, traces: RequestTraceLog): Promise<SecureServer> {
  const server = createServer(
    {
      cert: readFileSync(opts.tlsCertFile),
      key: readFileSync(opts.tlsPrivateKeyFile),
      ca: opts.clientCaFile ? readFileSync(opts.clientCaFile) : undefined,
      requestCert: opts.clientCaFile !== undefined,
      rejectUnauthorized: false,
      minVersion: 'TLSv1.2',
    },
    requestListener(chain, traces),
  );
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 65_000;
  server.requestTimeout = 0; // watches are long-running
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

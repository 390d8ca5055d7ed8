// The plain-HTTP endpoints etcd serves on its client port beside gRPC
// (etcdserver/api/etcdhttp): /health, /version and /metrics, and the /v3
// JSON gateway (jsonGateway.ts). Bodies, status
// codes and headers are what etcd 3.4.23 sends, checked against Debian's
// etcd: `{"health":"true"}` (3.4 has no "reason" field), 503 with Go's
// http.Error body (trailing newline) when unhealthy, 405 + Allow for other
// methods, and Go's "404 page not found" for anything else.

import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { EtcdServer } from './etcdServer';
import { applyCors } from './cors';
import { gatewayRoute, serveGateway, type ServiceImplementations } from './jsonGateway';
import { CLUSTER_VERSION, SERVER_VERSION } from './etcdVersion';

/** The /version answer. The cluster version is the minor the cluster agreed on. */
export const VERSION_BODY = JSON.stringify({ etcdserver: SERVER_VERSION, etcdcluster: CLUSTER_VERSION });

const TEXT = 'text/plain; charset=utf-8';

export interface HttpEndpointOptions {
  /** /version is served on the client port, not on --listen-metrics-urls. */
  version: boolean;
  /** The gRPC handlers, for the /v3 JSON gateway (client port only). */
  gateway?: ServiceImplementations;
  /** --max-request-bytes, which bounds gateway request bodies (etcd default 1.5 MiB). */
  maxRequestBytes?: number;
  /** --cors: allowed origins, or ["*"] (etcd's default) for all. */
  cors?: readonly string[];
}

/** etcd 3.4's --max-request-bytes default. */
const DEFAULT_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;

export function clientHttpHandler(server: EtcdServer, opts: HttpEndpointOptions = { version: true }): RequestListener {
  return (req, res) => {
    if (applyCors(opts.cors ?? ['*'], req, res)) return;
    const path = (req.url ?? '/').split('?', 1)[0];
    const done = (p: Promise<void>) =>
      p.catch((err: unknown) => goError(res, 500, err instanceof Error ? err.message : String(err)));
    switch (path) {
      case '/health':
        if (allowGet(req, res)) done(health(server, res));
        return;
      case '/version':
        if (!opts.version) break;
        if (allowGet(req, res)) send(res, 200, 'application/json', VERSION_BODY);
        return;
      case '/metrics':
        done(metrics(server, res));
        return;
    }
    const route = opts.gateway && gatewayRoute(path);
    if (route) {
      if (req.method !== 'POST') {
        res.setHeader('Allow', 'POST');
        return goError(res, 405, 'Method Not Allowed');
      }
      return serveGateway(opts.gateway!, route, req, res, opts.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES);
    }
    goError(res, 404, '404 page not found');
  };
}

async function health(server: EtcdServer, res: ServerResponse): Promise<void> {
  const h = await server.health();
  if (h.health) {
    send(res, 200, TEXT, '{"health":"true"}');
  } else {
    goError(res, 503, '{"health":"false"}');
  }
}

async function metrics(server: EtcdServer, res: ServerResponse): Promise<void> {
  const text = await server.metrics.metrics();
  send(res, 200, server.metrics.contentType, text);
}

function allowGet(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method === 'GET') return true;
  res.setHeader('Allow', 'GET');
  goError(res, 405, 'Method Not Allowed');
  return false;
}

/** Go's http.Error: text/plain, nosniff, the message plus a newline. */
function goError(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.setHeader('X-Content-Type-Options', 'nosniff');
  send(res, status, TEXT, `${message}\n`);
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

// CORS on the client port's HTTP endpoints, as etcd 3.4 wraps its mux
// (embed/serve.go, pkg/httputil's CORS handler; --cors):
//  - ["*"] (the default): every response carries Access-Control-Allow-Origin
//    "*" and the allowed methods and headers, whatever the request's Origin;
//  - a list of origins: only a request whose Origin is one of them, as sent,
//    gets those headers, with its own origin echoed; any other gets none;
//  - OPTIONS (a preflight) is answered 200 with an empty body before any
//    routing, allowed origin or not.
// Checked against Debian's etcd 3.4 with --cors http://a.com:80,http://b.com:8080.

import type { IncomingMessage, ServerResponse } from 'node:http';

const ALLOW_METHODS = 'POST, GET, OPTIONS, PUT, DELETE';
const ALLOW_HEADERS = 'accept, content-type, authorization';

/** Sets the CORS headers for `req`; true when the request was a preflight and has been answered. */
export function applyCors(origins: readonly string[], req: IncomingMessage, res: ServerResponse): boolean {
  const allowed = origins.includes('*') ? '*' : allowedOrigin(origins, req.headers.origin);
  if (allowed !== undefined) {
    res.setHeader('Access-Control-Allow-Origin', allowed);
    res.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
    res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
  }
  if (req.method !== 'OPTIONS') return false;
  res.writeHead(200, { 'Content-Length': 0 });
  res.end();
  return true;
}

function allowedOrigin(origins: readonly string[], origin: string | undefined): string | undefined {
  return origin !== undefined && origins.includes(origin) ? origin : undefined;
}

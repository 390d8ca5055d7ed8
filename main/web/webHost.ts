// The web host's HTTP server: the built renderer and the bridge WebSocket at
// /bridge, on 127.0.0.1 only, every request guarded (requestGuard.ts) and
// answered with the console's security headers. Only the upgrade to /bridge
// needs the access token; pages and assets are the public build.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { consoleCsp } from '../common/rendererHost/csp';
import type { BridgeSockets } from './bridgeSockets';
import { BRIDGE_SUBPROTOCOL } from '../../preload/contract';
import { guardBridgeUpgrade, guardRequest } from './requestGuard';
import { staticFile } from '../common/rendererHost/staticFiles';

export const BRIDGE_PATH = '/bridge';
/** Loopback only: the console must never be reachable from another machine. */
export const WEB_HOST_ADDRESS = '127.0.0.1';
/** A terminal paste or a large call fits; anything bigger is not a console message. */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export interface WebHostOptions {
  sockets: BridgeSockets;
  token: string;
  /** 0 picks a free port. */
  port: number;
  rendererDir: string;
}

export interface WebHost {
  port: number;
  /** http://127.0.0.1:PORT/#token=TOKEN: the fragment never reaches a server, and the page moves it out of the address bar. */
  url: string;
  close(): Promise<void>;
}

/** Headers on every response, errors included. */
export function securityHeaders(): Record<string, string> {
  return {
    'Content-Security-Policy': consoleCsp('web'),
    'X-Content-Type-Options': 'nosniff',
    // The opened URL carries the token in its fragment (never part of a Referer); send no Referer at all.
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

export async function startWebHost(opts: WebHostOptions): Promise<WebHost> {
  // The token offer is never echoed: the host selects the bridge protocol (the guard made sure it was offered).
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, handleProtocols: () => BRIDGE_SUBPROTOCOL });
  const server = createServer();
  let port = opts.port;

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void handleRequest(req, res).catch((err: unknown) => {
      if (!res.headersSent) plain(res, 500, `internal error: ${(err as Error).message}`);
      else res.destroy();
    });
  });

  async function handleRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const verdict = guardRequest(req, port);
    if (verdict.status !== 200) return plain(res, verdict.status, verdict.reason);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return plain(res, 405, 'method not allowed');
    }
    if (verdict.url.pathname === BRIDGE_PATH) return plain(res, 426, 'the bridge is a WebSocket', { Upgrade: 'websocket' });
    const file = await staticFile(opts.rendererDir, verdict.url.pathname);
    // Browsers ask for a favicon on their own; without one, answer "nothing" rather than an error in the console.
    if (!file && verdict.url.pathname === '/favicon.ico') {
      res.writeHead(204, { ...securityHeaders(), 'Cache-Control': 'no-store' });
      return void res.end();
    }
    if (!file) return plain(res, 404, 'not found');
    res.writeHead(200, {
      ...securityHeaders(),
      'Content-Type': file.contentType,
      'Content-Length': String(file.body.length),
      'Cache-Control': file.cacheControl,
    });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  }

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const verdict = guardBridgeUpgrade(req, port, opts.token);
    if (verdict.status !== 200) return rejectUpgrade(socket, verdict.status, verdict.reason);
    if (verdict.url.pathname !== BRIDGE_PATH) return rejectUpgrade(socket, 404, 'not found');
    wss.handleUpgrade(req, socket, head, (ws) => opts.sockets.attach(ws));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, WEB_HOST_ADDRESS, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  const origin = `http://${WEB_HOST_ADDRESS}:${port}`;
  return {
    port,
    url: `${origin}/#token=${opts.token}`,
    async close() {
      opts.sockets.closeAll();
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function plain(res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}): void {
  const body = `${status} ${text}\n`;
  res.writeHead(status, {
    ...securityHeaders(),
    ...extra,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' };

/** Answer a refused upgrade with a plain HTTP response, then drop the connection. */
function rejectUpgrade(socket: Duplex, status: number, text: string): void {
  const body = `${status} ${text}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: text/plain; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.on('error', () => socket.destroy());
}

// --listen-metrics-urls: etcd's extra plain-HTTP listener serving only
// /metrics and /health (embed/etcd.go serveMetrics), so scrapers and
// liveness probes need neither the client port nor its TLS.

import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { EtcdServer } from './etcdServer';
import { clientHttpHandler } from './httpEndpoints';
import { bindListener, parseListenUrl } from './listenUrl';

export interface MetricsServerHandle {
  ports: number[];
  close(): Promise<void>;
}

export async function startMetricsServer(server: EtcdServer, opts: { listenUrls: string[] }): Promise<MetricsServerHandle> {
  const addresses = opts.listenUrls.map(parseListenUrl);
  for (const a of addresses) {
    if (a.scheme === 'https') throw new Error(`${a.url}: https metrics URLs are not supported`);
  }
  const handler = clientHttpHandler(server, { version: false });
  const sockets = new Set<Socket>();
  const servers: HttpServer[] = [];
  const close = async () => {
    const closed = servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
    for (const s of sockets) s.destroy();
    await Promise.all(closed);
  };
  try {
    for (const a of addresses) {
      const s = createHttpServer(handler);
      s.on('connection', (socket: Socket) => {
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
      });
      servers.push(await bindListener(s, a));
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { ports: servers.map((s) => (s.address() as AddressInfo).port), close };
}

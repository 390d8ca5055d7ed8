// --listen-client-urls / --listen-metrics-urls entries → what to bind. etcd accepts http and https
// URLs with an IP or "localhost"; Go resolves "localhost" to 127.0.0.1, while
// Node would pick ::1 first on many hosts, so it is pinned to IPv4 here.

import type { Server } from 'node:net';

export interface ListenAddress {
  url: string;
  scheme: 'http' | 'https';
  host: string;
  port: number;
}

export function parseListenUrl(raw: string): ListenAddress {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`invalid listen URL "${raw}"`);
  }
  const scheme = u.protocol.slice(0, -1);
  if (scheme !== 'http' && scheme !== 'https') {
    throw new Error(`listen URL scheme must be http or https: "${raw}"`);
  }
  if (u.port === '') throw new Error(`listen URL needs a port: "${raw}"`);
  if (u.pathname !== '/' && u.pathname !== '') throw new Error(`listen URL must not have a path: "${raw}"`);
  let host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost') host = '127.0.0.1';
  return { url: raw, scheme, host, port: Number(u.port) };
}

/** Binds `server` to the address; rejects with the bind error (EADDRINUSE, ...). */
export function bindListener<S extends Server>(server: S, a: ListenAddress): Promise<S> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: a.host, port: a.port }, () => {
      server.removeListener('error', reject);
      resolve(server);
    });
  });
}

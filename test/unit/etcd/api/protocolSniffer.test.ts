// Routing by the first bytes, however the client's writes are split: the
// routed socket must still read the whole stream from byte 0.

import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeByPreface } from '../../../../main/etcd/api/protocolSniffer';

const PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';

let server: Server;
let port: number;
const routed: { route: string; data: string }[] = [];

beforeAll(async () => {
  server = createServer((socket) => {
    const collect = (route: string) => (s: Socket) => {
      let data = '';
      s.setEncoding('latin1');
      s.on('data', (d: string) => (data += d));
      s.on('end', () => {
        routed.push({ route, data });
        s.end();
      });
    };
    routeByPreface(socket, { http2: collect('http2'), http1: collect('http1') });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

/** Sends `parts` as separate writes with a pause between, then half-closes; resolves once the server side ends. */
function send(parts: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = connect(port, '127.0.0.1');
    c.on('error', reject);
    c.resume();
    c.on('close', () => resolve());
    let i = 0;
    const next = () => {
      if (i === parts.length) return void c.end();
      c.write(parts[i++]!, 'latin1');
      setTimeout(next, 15);
    };
    c.on('connect', next);
  });
}

describe('routeByPreface', () => {
  const frames = '\x00\x00\x00\x04\x00\x00\x00\x00\x00';
  const cases = [
    { name: 'whole preface and frames in one write', parts: [PREFACE + frames], route: 'http2' },
    { name: 'preface split byte by byte', parts: [...PREFACE].concat(frames), route: 'http2' },
    { name: 'preface split mid-way', parts: ['PRI * HT', 'TP/2.0\r\n\r\nSM\r\n', '\r\n' + frames], route: 'http2' },
    { name: 'HTTP/1.1 GET', parts: ['GET /health HTTP/1.1\r\nHost: x\r\n\r\n'], route: 'http1' },
    { name: 'POST shares its first letter with PRI', parts: ['P', 'OST /v3/kv/range HTTP/1.1\r\n\r\n'], route: 'http1' },
    { name: 'diverges late in the preface', parts: ['PRI * HTTP/1.1\r\n\r\n'], route: 'http1' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      routed.length = 0;
      await send(c.parts);
      expect(routed).toEqual([{ route: c.route, data: c.parts.join('') }]);
    });
  }

  it('drops a connection that closes before sending enough to decide', async () => {
    routed.length = 0;
    await send(['PRI *']);
    expect(routed).toEqual([]);
  });
});

describe('a connection that sends nothing', () => {
  it('is closed after the timeout, without being routed; one that speaks in time is routed', async () => {
    const seen: string[] = [];
    const sockets: Socket[] = [];
    const quiet = createServer((socket) => {
      sockets.push(socket);
      routeByPreface(socket, { http2: () => seen.push('http2'), http1: () => seen.push('http1') }, 300);
    });
    await new Promise<void>((r) => quiet.listen(0, '127.0.0.1', r));
    const quietPort = (quiet.address() as AddressInfo).port;
    try {
      const started = Date.now();
      const closedAfter = await new Promise<number>((resolve) => {
        const c = connect(quietPort, '127.0.0.1');
        c.resume();
        c.on('close', () => resolve(Date.now() - started));
      });
      expect(closedAfter).toBeGreaterThanOrEqual(250);
      expect(seen).toEqual([]);
      const c = connect(quietPort, '127.0.0.1', () => c.write('GET / HTTP/1.1\r\n'));
      await expect.poll(() => seen, { timeout: 5_000 }).toEqual(['http1']);
      c.destroy();
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => quiet.close(() => r()));
    }
  });
});

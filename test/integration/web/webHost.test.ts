// The web host in-process on a real socket (ports 28410-28419): pages and
// assets served without the token (Host/Origin guarded), the /bridge
// WebSocket only with the token offered as a subprotocol, the wire format,
// event broadcast, loopback-only binding, and the renderer's socket bridge
// client (renderer/src/bridge.ts) against it, reconnect included.
// The handler map is built here (the real services are main/console's).

import { request } from 'node:http';
import { connect } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { BridgeHandlers } from '../../../preload/contract';
import { TerminalService } from '../../../main/console/terminals';
import { BridgeSockets } from '../../../main/web/bridgeSockets';
import { newToken } from '../../../main/web/token';
import { startWebHost, type WebHost } from '../../../main/web/webHost';
import { bridgeProtocols, createSocketBridge, type ConnectionState, type SocketLike } from '../../../renderer/src/bridge';
import { eventually } from '../../support/waitFor';

const PORT = 28410;
const HOST = `127.0.0.1:${PORT}`;
const token = newToken();
/** What the renderer offers on the handshake. */
const offer = bridgeProtocols(token);
const dir = mkdtempSync(join(tmpdir(), 'pilothouse-webhost-'));
const rendererDir = join(dir, 'renderer');
mkdirSync(join(rendererDir, 'assets'), { recursive: true });
writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Pilothouse</title>');
writeFileSync(join(rendererDir, 'assets', 'index-abc.js'), 'console.log(1)');

const sockets = new BridgeSockets();
// /bin/sh, not a login bash: a login bash runs the machine's profile, which may be slow (pyenv) and, when a test ends the shell mid-way, can leave a lock that stalls every later shell.
const terminals = new TerminalService({ env: { ETCDCTL_API: '3' }, cwd: dir, events: sockets, shell: '/bin/sh' });
const handlers = {
  version: () => ({ pilothouse: '0.1.0', commit: '1a2b3c4', runtime: 'web', versions: { node: process.versions.node } }),
  members: () => {
    throw new Error('etcdserver: no leader');
  },
  watchEventDetail: () => null,
  openTerminal: (req: { cols: number; rows: number }) => terminals.open(req),
  terminalInput: (req: { id: string; data: string }) => terminals.input(req),
  closeTerminal: (req: { id: string }) => terminals.close(req),
} as unknown as BridgeHandlers;
sockets.serve(handlers);

let host: WebHost;
beforeAll(async () => {
  host = await startWebHost({ sockets, token, port: PORT, rendererDir });
});
afterAll(async () => {
  await host?.close();
  await terminals.dispose();
  rmSync(dir, { recursive: true, force: true });
});

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: PORT, path, method, headers: { host: HOST, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Open a raw ws socket; resolves with it once open, or with the refused handshake's status. */
function openSocket(path: string, protocols: string[] = offer, options: WebSocket.ClientOptions = {}): Promise<WebSocket | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${HOST}${path}`, protocols, options);
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.once('error', (err) => reject(err));
  });
}

/** Send a message and resolve with the next result (events in between are skipped). */
function rawCall(ws: WebSocket, msg: unknown): Promise<unknown> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const m = JSON.parse(data.toString()) as { t: string };
      if (m.t !== 'result') return;
      ws.off('message', onMessage);
      resolve(m);
    };
    ws.on('message', onMessage);
    ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  });
}

describe('HTTP', () => {
  it('serves the page, assets and client routes without the token, and sets no cookie', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>Pilothouse</title>');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const asset = await get('/assets/index-abc.js');
    expect(asset.status).toBe(200);
    expect(asset.body).toBe('console.log(1)');
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await get('/members')).body).toContain('<title>Pilothouse</title>');
    for (const r of [page, asset]) expect(r.headers['set-cookie']).toBeUndefined();
    expect((await get('/assets/missing.js')).status).toBe(404);
    expect((await get('/favicon.ico')).status).toBe(204);
    expect((await get('/bridge')).status).toBe(426);
  });

  const forbidden: { name: string; headers: Record<string, string> }[] = [
    { name: 'rebinding Host', headers: { host: `evil.example:${PORT}` } },
    { name: 'foreign Origin', headers: { origin: 'http://evil.example' } },
  ];
  it.each(forbidden)('403: $name', async ({ headers }) => {
    const r = await get('/', headers);
    expect(r.status).toBe(403);
    expect(r.body).not.toContain('Pilothouse');
  });

  it('only GET and HEAD', async () => {
    expect((await get('/', {}, 'POST')).status).toBe(405);
    const head = await get('/', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it('listens on 127.0.0.1 only', async () => {
    const others = ['127.0.0.2', ...Object.values(networkInterfaces()).flatMap((list) => (list ?? []).filter((a) => a.family === 'IPv4' && !a.internal).map((a) => a.address))];
    for (const address of others) {
      const refused = await new Promise<boolean>((resolve) => {
        const s = connect({ host: address, port: PORT });
        s.once('connect', () => {
          s.destroy();
          resolve(false);
        });
        s.once('error', () => resolve(true));
      });
      expect(refused, `connect to ${address}:${PORT}`).toBe(true);
    }
    expect(host.url).toBe(`http://127.0.0.1:${PORT}/#token=${token}`);
  });
});

describe('WebSocket /bridge', () => {
  const refused = [
    { name: 'no subprotocols', path: '/bridge', protocols: [], options: {}, want: 401 },
    { name: 'bridge protocol only', path: '/bridge', protocols: ['pilothouse.bridge'], options: {}, want: 401 },
    { name: 'wrong token', path: '/bridge', protocols: bridgeProtocols('x'), options: {}, want: 401 },
    { name: 'token in the query', path: `/bridge?token=${token}`, protocols: ['pilothouse.bridge'], options: {}, want: 401 },
    { name: 'token in a cookie', path: '/bridge', protocols: ['pilothouse.bridge'], options: { headers: { cookie: `pilothouse_token_${PORT}=${token}` } }, want: 401 },
    { name: 'foreign origin', path: '/bridge', protocols: offer, options: { origin: 'http://evil.example' }, want: 403 },
    { name: 'other path', path: '/socket', protocols: offer, options: {}, want: 404 },
  ];
  it.each(refused)('refuses the upgrade: $name → $want', async ({ path, protocols, options, want }) => {
    expect(await openSocket(path, protocols, options)).toBe(want);
  });

  it('selects the bridge protocol and never echoes the token', async () => {
    const ws = await openSocket('/bridge');
    if (typeof ws === 'number') throw new Error(`refused: ${ws}`);
    expect(ws.protocol).toBe('pilothouse.bridge');
    ws.terminate();
  });

  it('answers calls in the wire format', async () => {
    const ws = await openSocket('/bridge', offer, { origin: `http://${HOST}` });
    if (typeof ws === 'number') throw new Error(`refused: ${ws}`);
    try {
      expect(await rawCall(ws, { t: 'call', id: 1, name: 'version', args: [] })).toEqual({
        t: 'result',
        id: 1,
        ok: true,
        value: { pilothouse: '0.1.0', commit: '1a2b3c4', runtime: 'web', versions: { node: process.versions.node } },
      });
      expect(await rawCall(ws, { t: 'call', id: 2, name: 'members', args: [] })).toEqual({ t: 'result', id: 2, ok: false, error: 'etcdserver: no leader' });
      expect(await rawCall(ws, { t: 'call', id: 3, name: 'deleteEverything', args: [] })).toEqual({ t: 'result', id: 3, ok: false, error: 'unknown bridge call "deleteEverything"' });
      const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
      ws.send('not json');
      expect(await closed).toBe(1007);
    } finally {
      ws.terminate();
    }
  });

  it("closes a socket's terminals when it disconnects (a reload must not leak shells)", async () => {
    const ws = await openSocket('/bridge');
    if (typeof ws === 'number') throw new Error(`refused: ${ws}`);
    const before = terminals.size;
    const opened = (await rawCall(ws, { t: 'call', id: 1, name: 'openTerminal', args: [{ cols: 80, rows: 24 }] })) as { value: { id: string } };
    expect(opened.value.id).toMatch(/^t\d+$/);
    expect(terminals.size).toBe(before + 1);
    ws.close();
    await eventually('the terminal to close', () => terminals.size === before, { timeoutMs: 10_000, intervalMs: 20 });
  });
});

describe('renderer socket bridge against the host', () => {
  const connectWs = (url: string, protocols: string[]) => new WebSocket(url, protocols) as unknown as SocketLike;
  const url = `ws://${HOST}/bridge`;

  it('calls, receives terminal events, and reports errors as rejections', async () => {
    const b = createSocketBridge({ url, protocols: offer, connect: connectWs });
    try {
      expect(await b.version()).toMatchObject({ runtime: 'web' });
      await expect(b.members()).rejects.toThrow('etcdserver: no leader');
      expect(await b.watchEventDetail({ seq: 1 })).toBeNull();
      let out = '';
      let exitCode: number | undefined;
      const offData = b.on('terminalData', (p) => (out += p.data));
      b.on('terminalExit', (p) => (exitCode = p.code));
      const t = await b.openTerminal({ cols: 80, rows: 24 });
      await b.terminalInput({ id: t.id, data: 'echo "over the bridge $((6*7))"\r' });
      await eventually('terminal output', () => out.includes('over the bridge 42'), { timeoutMs: 10_000, intervalMs: 20 });
      offData();
      await b.terminalInput({ id: t.id, data: 'exit 5\r' });
      await eventually('terminal exit', () => exitCode !== undefined, { timeoutMs: 10_000, intervalMs: 20 });
      expect(exitCode).toBe(5);
    } finally {
      b.close();
    }
  });

  it('rejects pending calls on disconnect, reconnects, and keeps subscriptions', async () => {
    const states: ConnectionState[] = [];
    const b = createSocketBridge({ url, protocols: offer, connect: connectWs, initialBackoffMs: 50, maxBackoffMs: 200 });
    b.onConnection((s) => states.push(s));
    const seen: string[] = [];
    b.on('logLines', (lines) => seen.push(...lines.map((l) => l.text)));
    try {
      await b.version();
      // A call the host never answers: the socket drops under it.
      const gate = new Promise<void>(() => {});
      sockets.serve({ ...handlers, logComponents: () => gate } as unknown as BridgeHandlers);
      const pending = b.logComponents();
      await new Promise((r) => setTimeout(r, 50));
      sockets.closeAll();
      await expect(pending).rejects.toThrow('console bridge disconnected');
      sockets.serve(handlers);
      await eventually('reconnect', () => states.filter((s) => s === 'open').length >= 2, { timeoutMs: 10_000, intervalMs: 20 });
      expect(await b.version()).toMatchObject({ runtime: 'web' });
      sockets.emit('logLines', [{ component: 'm1', seq: 1, at: 'now', stream: 'stdout', text: 'after reconnect' }]);
      await eventually('event after reconnect', () => seen.includes('after reconnect'), { timeoutMs: 10_000, intervalMs: 20 });
      expect(states.slice(0, 3)).toEqual(['connecting', 'open', 'closed']);
    } finally {
      sockets.serve(handlers);
      b.close();
    }
  });

  it('queues calls made while connecting, rejects them when the connection is refused, fails at once between attempts', async () => {
    const ok = createSocketBridge({ url, protocols: offer, connect: connectWs });
    const bad = createSocketBridge({ url, protocols: bridgeProtocols('wrong'), connect: connectWs, initialBackoffMs: 10_000 });
    try {
      // Made while connecting: queued, then failed with the refused handshake.
      const early = bad.version().then(() => 'resolved', (e: Error) => e.message);
      expect(await ok.version()).toMatchObject({ runtime: 'web' });
      expect(await early).toBe('console bridge disconnected');
      await expect(bad.version()).rejects.toThrow('console bridge disconnected'); // between attempts: at once
    } finally {
      ok.close();
      bad.close();
    }
    await expect(ok.version()).rejects.toThrow('console bridge closed');
  });
});

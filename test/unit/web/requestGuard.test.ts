import { describe, expect, it } from 'vitest';
import { guardBridgeUpgrade, guardRequest, UNAUTHORIZED } from '../../../main/web/requestGuard';

const port = 28403;
const token = 'tok';
const host = `127.0.0.1:${port}`;
const offer = 'pilothouse.bridge, pilothouse.token.tok';

describe('guardRequest (pages and assets: no token needed)', () => {
  const cases = [
    { name: 'page', req: { url: '/', headers: { host } }, want: 200 },
    { name: 'asset, localhost', req: { url: '/assets/x.js', headers: { host: `localhost:${port}` } }, want: 200 },
    { name: 'own origin', req: { url: '/', headers: { host, origin: `http://127.0.0.1:${port}` } }, want: 200 },
    { name: 'rebinding host', req: { url: '/', headers: { host: `evil.example:${port}` } }, want: 403 },
    { name: 'no host', req: { url: '/', headers: {} }, want: 403 },
    { name: 'another port in Host', req: { url: '/', headers: { host: '127.0.0.1:7380' } }, want: 403 },
    { name: 'foreign origin', req: { url: '/', headers: { host, origin: 'http://evil.example' } }, want: 403 },
    { name: 'unparsable target', req: { url: 'http://[', headers: { host } }, want: 400 },
  ];
  it.each(cases)('$name → $want', ({ req, want }) => {
    expect(guardRequest(req, port).status).toBe(want);
  });
});

describe('guardBridgeUpgrade', () => {
  const cases = [
    { name: 'bridge and token offered', headers: { host, 'sec-websocket-protocol': offer }, want: 200 },
    { name: 'own origin', headers: { host, origin: `http://localhost:${port}`, 'sec-websocket-protocol': offer }, want: 200 },
    { name: 'no subprotocols', headers: { host }, want: 401 },
    { name: 'bridge without token', headers: { host, 'sec-websocket-protocol': 'pilothouse.bridge' }, want: 401 },
    { name: 'token without bridge', headers: { host, 'sec-websocket-protocol': 'pilothouse.token.tok' }, want: 401 },
    { name: 'wrong token', headers: { host, 'sec-websocket-protocol': 'pilothouse.bridge, pilothouse.token.nope' }, want: 401 },
    { name: 'right token, foreign origin', headers: { host, origin: 'http://evil.example', 'sec-websocket-protocol': offer }, want: 403 },
    { name: 'right token, rebinding host', headers: { host: `evil.example:${port}`, 'sec-websocket-protocol': offer }, want: 403 },
  ];
  it.each(cases)('$name → $want', ({ headers, want }) => {
    expect(guardBridgeUpgrade({ url: '/bridge', headers }, port, token).status).toBe(want);
  });

  it('a token in the query does not count', () => {
    expect(guardBridgeUpgrade({ url: '/bridge?token=tok', headers: { host, 'sec-websocket-protocol': 'pilothouse.bridge' } }, port, token).status).toBe(401);
  });

  it('401 says where the tokened URL is', () => {
    const v = guardBridgeUpgrade({ url: '/bridge', headers: { host } }, port, token);
    expect(v.status === 401 && v.reason).toBe(UNAUTHORIZED);
    expect(UNAUTHORIZED).toContain('console.url');
  });
});
